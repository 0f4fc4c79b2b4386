import { dirname, isAbsolute, join } from "node:path";
import type { Context } from "../core/context.ts";
import { toolError } from "../core/errors.ts";
import { printable } from "../core/plain-text.ts";
import { err, ok, type Result } from "../core/result.ts";
import { isInside, resolvesInside } from "../fs/path-inside.ts";
import { type ConfigEntry, GitConfig, parseConfigBool, readConfigFile, repoConfigPath } from "./config.ts";
import type { RepoLocation } from "./discover.ts";

type ConfigContext = Pick<Context, "files" | "env" | "home" | "platform">;

/**
 * The config files git reads before the repository's own, in git's order: the system file, then
 * the user's XDG file and `~/.gitconfig`. `GIT_CONFIG_NOSYSTEM`, `GIT_CONFIG_SYSTEM` and
 * `GIT_CONFIG_GLOBAL` move or drop them as they do for git (an empty value counts as unset). twig
 * reads remotes through libgit2, which reads the same levels, so a `url.<base>.insteadOf` set only
 * for the user applies here too.
 */
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
 * The configuration remotes are looked up in: the system and user files, then the repository's,
 * each with the files its `include.path` and `includeIf "gitdir:…"` / `"gitdir/i:…"` entries name
 * read in place, as git reads them (dotfiles often include per-directory files that set
 * `insteadOf` for work repositories). Other conditions (`onbranch:`, `hasconfig:`) never hold: no
 * remote depends on the checked-out branch. A missing file counts as empty; a broken one, or
 * includes nested past git's limit, is an error naming the file, as git refuses to run with one.
 *
 * Unlike git, a file already included in this read is not read again, and at most
 * {@link MAX_INCLUDED_FILES} files are included: a hostile config whose files each include several
 * others would otherwise be read once per path through the include graph (4^10 for four includes
 * ten levels deep). The repository's config, written by whoever made the repository, may include
 * only files in the repository's own directories, judged by their text before anything is touched
 * (`//host/share/x` would contact that host) and through links after.
 */
export async function readEffectiveConfig(repo: RepoLocation, ctx: ConfigContext): Promise<Result<GitConfig>> {
  const entries: ConfigEntry[] = [];
  const included = new Set<string>();
  const refuse = (message: string, hint: string) => err(toolError("unsupported_repo", message, hint));
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
        return refuse(
          `Git config includes nest deeper than ${MAX_INCLUDE_DEPTH} levels (from ${path})`,
          "git refuses this too; look for a config file that includes itself.",
        );
      }
      if (included.has(target)) continue;
      if (included.size >= MAX_INCLUDED_FILES) {
        return refuse(
          `Git config includes more than ${MAX_INCLUDED_FILES} files (from ${path})`,
          "twig-mcp reads at most this many included config files; merge some of them, or look for includes generated in a loop.",
        );
      }
      const place = [repo.gitDir, repo.commonDir, repo.workTree].find((dir) => isInside(target, dir));
      if (fromRepository && (place === undefined || !(await resolvesInside(target, place)))) {
        return refuse(
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
  const own = await read(repoConfigPath(repo), [], true);
  return own.ok ? ok(new GitConfig(entries)) : own;
}

/** The file an `include.path` or a holding `includeIf "gitdir…".path` entry names, else `null`. */
function includeTarget({ key, value }: ConfigEntry, from: string, gitDir: string, home: string): string | null {
  const [, icase, pattern] = /^includeif\.gitdir(\/i)?:(.*)\.path$/s.exec(key) ?? [];
  if (value === "" || (key !== "include.path" && !gitdirHolds(pattern, icase !== undefined, from, gitDir, home))) {
    return null;
  }
  return value.startsWith("~/") ? join(home, value.slice(2)) : isAbsolute(value) ? value : join(dirname(from), value);
}

/**
 * git's `prepare_include_condition_pattern` (`~/` and `./` expanded, `**\/` before a relative
 * pattern, `**` after a trailing `/`), then matched as git's wildmatch with WM_PATHNAME does:
 * Bun's glob matcher has the same `*`, `**`, `?` and `[...]`, and runs in linear time, so a
 * pattern built to backtrack costs nothing. Braces are literal in git, so they are escaped.
 */
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
