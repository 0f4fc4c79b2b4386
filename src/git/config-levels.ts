import { join } from "node:path";
import type { Context } from "../context.ts";
import { err, ok, type Result } from "../result.ts";
import { combinedConfig, type GitConfig, parseConfigBool, readConfigFile, readRepoConfig } from "./config.ts";
import type { RepoLocation } from "./discover.ts";

type ConfigContext = Pick<Context, "files" | "env" | "home" | "platform">;

/**
 * The config files git reads before the repository's own, in git's order: the system file, then
 * the user's XDG file and `~/.gitconfig`. `GIT_CONFIG_NOSYSTEM`, `GIT_CONFIG_SYSTEM` and
 * `GIT_CONFIG_GLOBAL` move or drop them as they do for git. twig reads remotes through libgit2,
 * which reads the same levels, so a `url.<base>.insteadOf` set only for the user applies here too.
 */
export function userConfigPaths(ctx: Pick<Context, "env" | "home" | "platform">): string[] {
  const { env, home, platform } = ctx;
  const paths: string[] = [];
  if (parseConfigBool(env.GIT_CONFIG_NOSYSTEM) !== true) {
    const programFiles = env.ProgramFiles ?? env.PROGRAMFILES ?? "C:\\Program Files";
    const fallback = platform === "win32" ? join(programFiles, "Git", "etc", "gitconfig") : "/etc/gitconfig";
    paths.push(nonEmpty(env.GIT_CONFIG_SYSTEM) ?? fallback);
  }
  const global = nonEmpty(env.GIT_CONFIG_GLOBAL);
  if (global !== undefined) {
    paths.push(global);
  } else {
    const xdg = nonEmpty(env.XDG_CONFIG_HOME);
    paths.push(xdg !== undefined ? join(xdg, "git", "config") : join(home, ".config", "git", "config"));
    paths.push(join(home, ".gitconfig"));
  }
  // `/dev/null` is how tests and scripts say "no such file"; it is not a regular file to read.
  return paths.filter((path) => path !== "/dev/null");
}

/**
 * The configuration a remote is looked up in: the system and user files, then the repository's
 * (`include` directives are not followed). A missing file counts as empty; a broken one is an
 * error naming it, as git refuses to run with one.
 */
export async function readEffectiveConfig(repo: RepoLocation, ctx: ConfigContext): Promise<Result<GitConfig>> {
  const levels: GitConfig[] = [];
  for (const path of userConfigPaths(ctx)) {
    const level = await readConfigFile(path, ctx.files);
    if (!level.ok) return err(level.error);
    levels.push(level.value);
  }
  const local = await readRepoConfig(repo, ctx.files);
  if (!local.ok) return local;
  levels.push(local.value);
  return ok(combinedConfig(levels));
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === "" ? undefined : value;
}
