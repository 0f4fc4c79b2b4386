import { dirname, isAbsolute, join } from "node:path";
import type { Context } from "../core/context.ts";
import { toolError } from "../core/errors.ts";
import { err, ok, type Result } from "../core/result.ts";
import { configFromEntries, type GitConfig, parseConfigBool, readConfigFile, repoConfigPath } from "./config.ts";
import type { RepoLocation } from "./discover.ts";
import { readHead } from "./head.ts";
import { wildmatch } from "./wildmatch.ts";

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
 * The configuration a remote is looked up in: the system and user files, then the repository's,
 * each with its `include.path` and `includeIf.<condition>.path` files read in place, as git and
 * libgit2 read them (`gitdir:`, `gitdir/i:` and `onbranch:` conditions; others never hold). A
 * missing file counts as empty; a broken one, or includes nested past git's limit, is an error
 * naming the file, as git refuses to run with one.
 */
export async function readEffectiveConfig(repo: RepoLocation, ctx: ConfigContext): Promise<Result<GitConfig>> {
  const conditions = new IncludeConditions(repo, ctx);
  const levels: GitConfig[] = [];
  for (const path of [...userConfigPaths(ctx), repoConfigPath(repo)]) {
    const level = await readWithIncludes(path, ctx, conditions, 0);
    if (!level.ok) return level;
    levels.push(level.value);
  }
  return ok(configFromEntries(levels.flatMap((level) => level.entries())));
}

/** git's limit on nested includes (`MAX_INCLUDE_DEPTH`). */
const MAX_INCLUDE_DEPTH = 10;

async function readWithIncludes(
  path: string,
  ctx: ConfigContext,
  conditions: IncludeConditions,
  depth: number,
): Promise<Result<GitConfig>> {
  const file = await readConfigFile(path, ctx.files);
  if (!file.ok) return file;
  const entries = file.value.entries();
  if (!entries.some(({ key }) => key === "include.path" || key.startsWith("includeif."))) return file;
  const merged: Array<{ key: string; value: string }> = [];
  for (const entry of entries) {
    // As git does, the include entry stays, and the included file's entries follow it.
    merged.push(entry);
    const target = await includeTarget(entry, path, ctx, conditions);
    if (target === null) continue;
    if (depth + 1 > MAX_INCLUDE_DEPTH) {
      return err(
        toolError(
          "unsupported_repo",
          `Git config includes nest deeper than ${MAX_INCLUDE_DEPTH} levels (from ${path})`,
          "git refuses this too; look for a config file that includes itself.",
        ),
      );
    }
    const included = await readWithIncludes(target, ctx, conditions, depth + 1);
    if (!included.ok) return included;
    merged.push(...included.value.entries());
  }
  return ok(configFromEntries(merged));
}

/** The file an `include.path` or a holding `includeIf.<condition>.path` entry names; else `null`. */
async function includeTarget(
  entry: { key: string; value: string },
  from: string,
  ctx: ConfigContext,
  conditions: IncludeConditions,
): Promise<string | null> {
  const { key, value } = entry;
  if (value === "") return null;
  if (key !== "include.path") {
    if (!key.startsWith("includeif.") || !key.endsWith(".path")) return null;
    const condition = key.slice("includeif.".length, -".path".length);
    if (!(await conditions.hold(condition, from))) return null;
  }
  if (value.startsWith("~/")) return join(ctx.home, value.slice(2));
  return isAbsolute(value) ? value : join(dirname(from), value);
}

/** The facts `includeIf` conditions are judged on, looked up once and only when asked. */
class IncludeConditions {
  #branch: Promise<string | null> | undefined;

  constructor(
    readonly repo: RepoLocation,
    readonly ctx: ConfigContext,
  ) {}

  async hold(condition: string, from: string): Promise<boolean> {
    const colon = condition.indexOf(":");
    if (colon === -1) return false;
    const kind = condition.slice(0, colon);
    const pattern = condition.slice(colon + 1);
    if (kind === "gitdir" || kind === "gitdir/i") {
      return wildmatch(this.#gitdirPattern(pattern, from), this.repo.gitDir, kind === "gitdir/i");
    }
    if (kind === "onbranch") {
      const branch = await this.#currentBranch();
      return branch !== null && wildmatch(pattern.endsWith("/") ? `${pattern}**` : pattern, branch);
    }
    return false;
  }

  /** git's `prepare_include_condition_pattern`: `~/` and `./` expanded, `**\/` before a relative pattern, `**` after a trailing `/`. */
  #gitdirPattern(raw: string, from: string): string {
    let pattern = raw;
    // `join` keeps a trailing separator, which decides whether `**` is added below.
    if (pattern.startsWith("~/")) pattern = join(this.ctx.home, pattern.slice(2));
    else if (pattern.startsWith("./")) pattern = join(dirname(from), pattern.slice(2));
    if (!isAbsolute(pattern)) pattern = `**/${pattern}`;
    if (pattern.endsWith("/")) pattern += "**";
    return pattern;
  }

  #currentBranch(): Promise<string | null> {
    this.#branch ??= readHead(this.repo, this.ctx.files).then((head) =>
      head.ok && head.value.kind === "branch" ? head.value.branch : null,
    );
    return this.#branch;
  }
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === "" ? undefined : value;
}
