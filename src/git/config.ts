import { dirname, isAbsolute, join } from "node:path";
import type { Context } from "../core/context.ts";
import { printable } from "../core/plain-text.ts";
import { ok, type Result } from "../core/result.ts";
import type { CachedFileReader } from "../fs/cached-file.ts";
import { isInside, resolvesInside } from "../fs/path-inside.ts";
import { unreadable, unsupported } from "./hints.ts";

type ConfigEntry = { key: string; value: string };

/** `error`: where parsing stopped on a line git would refuse ("bad config line"); entries before it are kept. */
type ConfigParse = { config: GitConfig; error: { line: number; message: string } | null };

/** `[section]` (or the legacy `[section.subsection]`), or `[section "subsection"]` with `\x` standing for `x`. */
const HEADER = /\[(?:([A-Za-z0-9.-]*)\]|([A-Za-z0-9.-]+)[ \t\r]+"((?:[^"\\\n]|\\[^\n])*)"\])/y;
const KEY = /[A-Za-z][A-Za-z0-9-]*/y;
/** The escapes git knows in a value (a `\` before the line end continues the line); any other is an error. */
const ESCAPES: Record<string, string> = { t: "\t", b: "\b", n: "\n", "\\": "\\", '"': '"' };
const isSpace = (c: string) => c === " " || c === "\t" || c === "\n" || c === "\r";
const lineEnd = (text: string, from: number) => (text.indexOf("\n", from) + 1 || text.length + 1) - 1;

/**
 * Parses git's config format as `config.c` does: a quoted subsection keeps its case, a bare `name`
 * means true, values may be partly quoted, `#`/`;` outside quotes start a comment, inner whitespace
 * runs are kept, and a trailing `\` continues the line. Includes are not followed here.
 */
export function parseGitConfig(raw: string): ConfigParse {
  const text = raw.replace(/^\uFEFF/, "").replace(/\r\n/g, "\n");
  const entries: ConfigEntry[] = [];
  // Errors name the line where the bad header or key began, even if continuation lines followed.
  const fail = (at: number, message: string): ConfigParse => ({
    config: new GitConfig(entries),
    error: { line: text.slice(0, at).split("\n").length, message },
  });
  let section: string | null = null;
  for (let i = 0; i < text.length; ) {
    const c = text.charAt(i);
    if (isSpace(c)) i++;
    else if (c === "#" || c === ";") i = lineEnd(text, i);
    else if (c === "[") {
      HEADER.lastIndex = i;
      const [, plain, name, sub] = HEADER.exec(text) ?? [];
      if (plain === "" || plain?.startsWith(".") || (plain ?? name) === undefined) return fail(i, "bad section header");
      section = plain?.toLowerCase() ?? `${name?.toLowerCase()}.${sub?.replace(/\\(.)/gs, "$1")}`;
      i = HEADER.lastIndex;
    } else {
      KEY.lastIndex = i;
      const key = KEY.exec(text)?.[0].toLowerCase();
      if (key === undefined) return fail(i, "a key must start with a letter");
      let at = KEY.lastIndex;
      while (text[at] === " " || text[at] === "\t") at++;
      let value: { value: string; end: number } | null = { value: "true", end: at + 1 };
      if (at < text.length && text[at] !== "\n") {
        if (text[at] !== "=") return fail(i, "expected '=' after the key");
        value = parseValue(text, at + 1);
        if (value === null) return fail(i, "bad value (unknown escape or unclosed quote)");
      }
      // git accepts a key before any section header, but no command can address it.
      if (section !== null) entries.push({ key: `${section}.${key}`, value: value.value });
      i = value.end;
    }
  }
  return { config: new GitConfig(entries), error: null };
}

/** From just after `=`: the value and where its line ends, or `null` on an unknown escape or unclosed quote. */
function parseValue(text: string, from: number): { value: string; end: number } | null {
  let value = "";
  let quoted = false;
  let spaces = 0;
  for (let i = from; ; i++) {
    const c = text[i] ?? "\n";
    if (c === "\n") return quoted ? null : { value, end: i + 1 };
    if (!quoted && isSpace(c)) {
      if (value !== "") spaces++;
    } else if (!quoted && (c === "#" || c === ";")) {
      i = lineEnd(text, i) - 1;
    } else {
      value += " ".repeat(spaces);
      spaces = 0;
      if (c === '"') quoted = !quoted;
      else if (c !== "\\") value += c;
      else if ((text[++i] ?? "\n") !== "\n") {
        const escaped = ESCAPES[text[i] as string];
        if (escaped === undefined) return null;
        value += escaped;
      }
    }
  }
}

/** Far beyond any real config; the parser works character by character on the event loop. */
const MAX_CONFIG_BYTES = 16 * 1024 * 1024;

/** Config files hold arbitrary bytes (a Latin-1 user name is common); bad bytes become U+FFFD. */
const lenientUtf8 = new TextDecoder("utf-8");

/** Reads one config file (not following includes); a missing file is an empty config. */
export async function readConfigFile(path: string, files: CachedFileReader): Promise<Result<GitConfig>> {
  const read = await files.read(path, "git:config", (bytes) => parseGitConfig(lenientUtf8.decode(bytes)), {
    maxBytes: MAX_CONFIG_BYTES,
  });
  if (read.kind === "missing") return ok(new GitConfig([]));
  if (read.kind === "unreadable") return unreadable(path, read.cause);
  const { config, error } = read.value;
  if (error === null) return ok(config);
  return unsupported(
    `Bad config line ${error.line} in ${path}: ${error.message}`,
    "git refuses this file too; fix the line (see `git config --list`).",
  );
}

/** git's `git_parse_maybe_bool`: true/yes/on, false/no/off/empty, any case, or an integer; else `null`. */
export function parseConfigBool(value: string | undefined): boolean | null {
  const word = value?.toLowerCase();
  if (word === "true" || word === "yes" || word === "on") return true;
  if (word === "false" || word === "no" || word === "off" || word === "") return false;
  return word !== undefined && /^[+-]?\d+$/.test(word) ? Number.parseInt(word, 10) !== 0 : null;
}

/** Entries in file order, keyed `section.subsection.name` with section and name lower-cased. */
export class GitConfig {
  readonly #last = new Map<string, string>();

  constructor(readonly entries: readonly ConfigEntry[]) {
    for (const { key, value } of entries) this.#last.set(key, value);
  }

  /** The last value of `key`, as git reads single-valued keys. */
  get(key: string): string | undefined {
    const first = key.indexOf(".");
    const last = key.lastIndexOf(".");
    return this.#last.get(key.slice(0, first).toLowerCase() + key.slice(first, last) + key.slice(last).toLowerCase());
  }
}

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
export async function readEffectiveConfig(
  repo: Record<"gitDir" | "commonDir" | "workTree", string>,
  ctx: Pick<Context, "files" | "env" | "home" | "platform">,
): Promise<Result<GitConfig>> {
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

/** Where an `include.path`, or an `includeIf "gitdir[/i]:…"` whose pattern holds, leads; else `null`. */
function includeTarget({ key, value }: ConfigEntry, from: string, gitDir: string, home: string): string | null {
  if (value === "") return null;
  if (key !== "include.path") {
    const [, icase, raw] = /^includeif\.gitdir(\/i)?:(.*)\.path$/s.exec(key) ?? [];
    if (raw === undefined || raw.length > MAX_PATTERN_CHARS) return null;
    // Matched by Bun's glob: wildmatch's syntax in linear time (braces escaped). `join` keeps a trailing
    // separator, which decides whether `**` is added below.
    let pattern = raw.startsWith("~/") ? join(home, raw.slice(2)) : raw;
    if (raw.startsWith("./")) pattern = join(dirname(from), raw.slice(2));
    if (!isAbsolute(pattern)) pattern = `**/${pattern}`;
    if (pattern.endsWith("/")) pattern += "**";
    const glob = new Bun.Glob((icase ? pattern.toLowerCase() : pattern).replace(/[{}]/g, "\\$&"));
    if (!glob.match(icase ? gitDir.toLowerCase() : gitDir)) return null;
  }
  return value.startsWith("~/") ? join(home, value.slice(2)) : isAbsolute(value) ? value : join(dirname(from), value);
}

export type Remote = { name: string; url: string };

/** Each remote's first URL, in config order, rewritten by `url.<base>.insteadOf` as git's `alias_url` does. */
export function remoteUrls(config: GitConfig): Remote[] {
  const urls = new Map<string, string | null>();
  // git groups insteadOf values under their base, bases in order of first appearance.
  const rewrites = new Map<string, string[]>();
  for (const { key, value } of config.entries) {
    // `section.subsection.name`, where the subsection (itself possibly dotted) is required here.
    const [, section, subsection = "", name] = /^(remote|url)\.(.+)\.([^.]+)$/s.exec(key) ?? [];
    if (section === "remote" && urls.get(subsection) == null) urls.set(subsection, name === "url" ? value : null);
    if (section !== "url" || name !== "insteadof") continue;
    rewrites.set(subsection, [...(rewrites.get(subsection) ?? []), value]);
  }
  return [...urls].flatMap(([name, url]) => {
    if (url === null) return [];
    let best = { base: "", insteadOf: "" };
    for (const [base, values] of rewrites) {
      for (const insteadOf of values) {
        if (url.startsWith(insteadOf) && insteadOf.length > best.insteadOf.length) best = { base, insteadOf };
      }
    }
    return [{ name, url: best.base + url.slice(best.insteadOf.length) }];
  });
}
