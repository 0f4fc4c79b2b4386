import { dirname, isAbsolute, join } from "node:path";
import type { Context } from "../core/context.ts";
import { toolError } from "../core/errors.ts";
import { printable } from "../core/plain-text.ts";
import { err, ok, type Result } from "../core/result.ts";
import { isInside, resolvesInside } from "../fs/path-inside.ts";
import { type ConfigEntry, GitConfig, parseConfigBool, readConfigFile, repoConfigPath } from "./config.ts";
import type { RepoLocation } from "./discover.ts";
import { readHead } from "./head.ts";
import { wildmatch } from "./wildmatch.ts";

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

/**
 * The configuration a remote is looked up in: the system and user files, then the repository's,
 * each with its `include.path` and `includeIf.<condition>.path` files read in place, as git and
 * libgit2 read them (`gitdir:`, `gitdir/i:` and `onbranch:` conditions; others never hold). A
 * missing file counts as empty; a broken one, or includes nested past git's limit, is an error
 * naming the file, as git refuses to run with one.
 *
 * Unlike git, a file already included in this read is not read again, and at most
 * {@link MAX_INCLUDED_FILES} files are included: a hostile config whose files each include several
 * others would otherwise be read once per path through the include graph (4^10 for four includes
 * ten levels deep). A repeated include only re-applied values already read, so what is lost is at
 * most the order of a value set again between the two includes.
 */
export async function readEffectiveConfig(repo: RepoLocation, ctx: ConfigContext): Promise<Result<GitConfig>> {
  const reader = new IncludingReader(repo, ctx);
  const levels: (readonly ConfigEntry[])[] = [];
  for (const path of userConfigPaths(ctx)) {
    const level = await reader.read(path, 0);
    if (!level.ok) return level;
    levels.push(level.value);
  }
  const own = await reader.read(repoConfigPath(repo), 0, [], true);
  if (!own.ok) return own;
  levels.push(own.value);
  return ok(new GitConfig(levels.flat()));
}

/** git's limit on nested includes (`MAX_INCLUDE_DEPTH`). */
const MAX_INCLUDE_DEPTH = 10;

/** Included files per read, over all levels: far more than any real setup splits its config into. */
export const MAX_INCLUDED_FILES = 64;

/** Reads config files with their includes; the facts `includeIf` conditions need are looked up once, when asked. */
class IncludingReader {
  #branch: Promise<string | null> | undefined;
  /** Every file included so far in this read. */
  readonly #included = new Set<string>();

  constructor(
    readonly repo: RepoLocation,
    readonly ctx: ConfigContext,
  ) {}

  /**
   * `chain`: the files whose includes led here, outermost first. `fromRepository`: the file is the
   * repository's config or one it included, written by whoever made the repository, so what it
   * includes must lie in the repository's own directories, by its text before any of it is
   * touched (a path such as `//host/share/x` would contact that host) and through links after.
   */
  async read(
    path: string,
    depth: number,
    chain: readonly string[] = [],
    fromRepository = false,
  ): Promise<Result<readonly ConfigEntry[]>> {
    const file = await readConfigFile(path, this.ctx.files);
    if (!file.ok) return file;
    const entries = file.value.entries;
    if (!entries.some(({ key }) => key === "include.path" || key.startsWith("includeif."))) return ok(entries);
    const merged: ConfigEntry[] = [];
    for (const entry of entries) {
      // As git does, the include entry stays, and the included file's entries follow it.
      merged.push(entry);
      const target = await this.#includeTarget(entry, path);
      if (target === null) continue;
      // A file including one of its includers loops until git's depth limit, so it fails the same way.
      if (depth + 1 > MAX_INCLUDE_DEPTH || target === path || chain.includes(target)) {
        return err(
          toolError(
            "unsupported_repo",
            `Git config includes nest deeper than ${MAX_INCLUDE_DEPTH} levels (from ${path})`,
            "git refuses this too; look for a config file that includes itself.",
          ),
        );
      }
      if (this.#included.has(target)) continue;
      if (this.#included.size >= MAX_INCLUDED_FILES) {
        return err(
          toolError(
            "unsupported_repo",
            `Git config includes more than ${MAX_INCLUDED_FILES} files (from ${path})`,
            "twig-mcp reads at most this many included config files; merge some of them, or look for includes generated in a loop.",
          ),
        );
      }
      if (fromRepository && !(await this.#inRepository(target))) {
        return err(
          toolError(
            "unsupported_repo",
            `The repository's git config includes ${printable(target, 300)}, outside the repository (from ${path})`,
            "twig-mcp follows includes of the repository's own config only inside the repository; move that file into the repository, or include it from your user config (~/.gitconfig) instead.",
          ),
        );
      }
      this.#included.add(target);
      const included = await this.read(target, depth + 1, [...chain, path], fromRepository);
      if (!included.ok) return included;
      for (const inner of included.value) merged.push(inner);
    }
    return ok(merged);
  }

  /** Whether `path` lies in the repository's work tree, git dir or common dir, as text and through links. */
  async #inRepository(path: string): Promise<boolean> {
    const { workTree, gitDir, commonDir } = this.repo;
    const place = [gitDir, commonDir, workTree].find((dir) => isInside(path, dir));
    return place !== undefined && (await resolvesInside(path, place));
  }

  /** The file an `include.path` or a holding `includeIf.<condition>.path` entry names; else `null`. */
  async #includeTarget({ key, value }: ConfigEntry, from: string): Promise<string | null> {
    if (value === "") return null;
    if (key !== "include.path") {
      if (!key.startsWith("includeif.") || !key.endsWith(".path")) return null;
      if (!(await this.#holds(key.slice("includeif.".length, -".path".length), from))) return null;
    }
    if (value.startsWith("~/")) return join(this.ctx.home, value.slice(2));
    return isAbsolute(value) ? value : join(dirname(from), value);
  }

  async #holds(condition: string, from: string): Promise<boolean> {
    const [, kind, pattern] = /^(gitdir|gitdir\/i|onbranch):(.*)$/s.exec(condition) ?? [];
    if (pattern === undefined) return false;
    if (kind !== "onbranch") {
      return wildmatch(this.#gitdirPattern(pattern, from), this.repo.gitDir, kind === "gitdir/i");
    }
    this.#branch ??= readHead(this.repo, this.ctx.files).then((head) =>
      head.ok && head.value.kind === "branch" ? head.value.branch : null,
    );
    const branch = await this.#branch;
    return branch !== null && wildmatch(pattern.endsWith("/") ? `${pattern}**` : pattern, branch);
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
}
