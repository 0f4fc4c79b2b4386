import { dirname, isAbsolute, join } from "node:path";
import type { Context } from "../core/context.ts";
import { printable } from "../core/plain-text.ts";
import { ok, type Result } from "../core/result.ts";
import { isInside, resolvesInside } from "../fs/path-inside.ts";
import { type ConfigEntry, GitConfig, parseConfigBool, readConfigFile } from "./config.ts";
import type { RepoLocation } from "./discover.ts";
import { unsupported } from "./hints.ts";

type ConfigContext = Pick<Context, "files" | "env" | "home" | "platform">;

/** The config files git (and twig's libgit2) reads before the repository's own, as `GIT_CONFIG_*` move them. */
export function userConfigPaths({ env, home, platform }: Pick<Context, "env" | "home" | "platform">): string[] {
  const paths: string[] = [];
  if (parseConfigBool(env.GIT_CONFIG_NOSYSTEM) !== true) {
    const programFiles = env.ProgramFiles ?? env.PROGRAMFILES ?? "C:\\Program Files";
    const fallback = platform === "win32" ? join(programFiles, "Git", "etc", "gitconfig") : "/etc/gitconfig";
    paths.push(env.GIT_CONFIG_SYSTEM || fallback);
  }
  if (env.GIT_CONFIG_GLOBAL) paths.push(env.GIT_CONFIG_GLOBAL);
  else paths.push(join(env.XDG_CONFIG_HOME || join(home, ".config"), "git", "config"), join(home, ".gitconfig"));
  // `/dev/null` is how tests and scripts say "no such file"; it is not a regular file to read.
  return paths.filter((path) => path !== "/dev/null");
}

/** git's limit on nested includes (`MAX_INCLUDE_DEPTH`). */
const MAX_INCLUDE_DEPTH = 10;
/** Included files per read, over all levels: far more than any real setup splits its config into. */
const MAX_INCLUDED_FILES = 64;
/** No real `gitdir:` pattern is longer; a longer one never holds. */
const MAX_PATTERN_CHARS = 4096;

/**
 * The configuration remotes are looked up in: the user levels, then the repository's, with
 * `include.path` and `includeIf "gitdir[/i]:…"` files read in place as git does. Unlike git, a file
 * is included once per read, at most {@link MAX_INCLUDED_FILES} (a hostile graph would be read once
 * per path, 4^10), and the repository's config may include only files inside the repository,
 * judged by text first (`//host/share/x` would contact that host) and through links after.
 */
export async function readEffectiveConfig(repo: RepoLocation, ctx: ConfigContext): Promise<Result<GitConfig>> {
  const entries: ConfigEntry[] = [];
  const included = new Set<string>();
  const read = async (path: string, chain: readonly string[], fromRepository: boolean): Promise<Result<true>> => {
    const file = await readConfigFile(path, ctx.files);
    if (!file.ok) return file;
    for (const entry of file.value.entries) {
      // As git does, the include entry stays, and the included file's entries follow it.
      entries.push(entry);
      const target = includeTarget(entry, path, repo.gitDir, ctx.home);
      if (target === null) continue;
      // A file including one of its includers loops until git's depth limit, so it fails the same way.
      if (chain.length >= MAX_INCLUDE_DEPTH || target === path || chain.includes(target)) {
        return unsupported(
          `Git config includes nest deeper than ${MAX_INCLUDE_DEPTH} levels (from ${path})`,
          "git refuses this too; look for a config file that includes itself.",
        );
      }
      if (included.has(target)) continue;
      if (included.size >= MAX_INCLUDED_FILES) {
        return unsupported(
          `Git config includes more than ${MAX_INCLUDED_FILES} files (from ${path})`,
          "twig-mcp reads at most this many included config files; merge some of them, or look for includes generated in a loop.",
        );
      }
      const place = [repo.gitDir, repo.commonDir, repo.workTree].find((dir) => isInside(target, dir));
      if (fromRepository && (place === undefined || !(await resolvesInside(target, place)))) {
        return unsupported(
          `The repository's git config includes ${printable(target, 300)}, outside the repository (from ${path})`,
          "twig-mcp follows includes of the repository's own config only inside the repository; move that file into the repository, or include it from your user config (~/.gitconfig) instead.",
        );
      }
      included.add(target);
      const inner = await read(target, [...chain, path], fromRepository);
      if (!inner.ok) return inner;
    }
    return ok(true);
  };
  for (const path of userConfigPaths(ctx)) {
    const level = await read(path, [], false);
    if (!level.ok) return level;
  }
  const own = await read(join(repo.commonDir, "config"), [], true);
  return own.ok ? ok(new GitConfig(entries)) : own;
}

function includeTarget({ key, value }: ConfigEntry, from: string, gitDir: string, home: string): string | null {
  const [, icase, pattern] = /^includeif\.gitdir(\/i)?:(.*)\.path$/s.exec(key) ?? [];
  if (value === "" || (key !== "include.path" && !gitdirHolds(pattern, icase !== undefined, from, gitDir, home)))
    return null;
  return value.startsWith("~/") ? join(home, value.slice(2)) : isAbsolute(value) ? value : join(dirname(from), value);
}

/** git's include pattern, matched by Bun's glob: wildmatch's syntax in linear time (braces escaped). */
function gitdirHolds(raw: string | undefined, icase: boolean, from: string, gitDir: string, home: string): boolean {
  if (raw === undefined || raw.length > MAX_PATTERN_CHARS) return false;
  // `join` keeps a trailing separator, which decides whether `**` is added below.
  let pattern = raw.startsWith("~/") ? join(home, raw.slice(2)) : raw;
  if (raw.startsWith("./")) pattern = join(dirname(from), raw.slice(2));
  if (!isAbsolute(pattern)) pattern = `**/${pattern}`;
  if (pattern.endsWith("/")) pattern += "**";
  const glob = new Bun.Glob((icase ? pattern.toLowerCase() : pattern).replace(/[{}]/g, "\\$&"));
  return glob.match(icase ? gitDir.toLowerCase() : gitDir);
}
