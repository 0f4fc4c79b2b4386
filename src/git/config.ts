import { ok, type Result } from "../core/result.ts";
import type { CachedFileReader } from "../fs/cached-file.ts";
import { unreadable, unsupported } from "./hints.ts";

export type ConfigEntry = { key: string; value: string };

/** `error`: where parsing stopped on a line git would refuse ("bad config line"); entries before it are kept. */
export type ConfigParse = { config: GitConfig; error: { line: number; message: string } | null };

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
