import { join } from "node:path";
import { toolError } from "../core/errors.ts";
import { err, ok, type Result } from "../core/result.ts";
import type { CachedFileReader } from "../fs/cached-file.ts";
import { isGitSpace } from "./git-space.ts";
import { unreadable } from "./hints.ts";

export type ConfigEntry = { key: string; value: string };

/** `error`: where parsing stopped on a line git would refuse ("bad config line"); entries before it are kept. */
export type ConfigParse = { config: GitConfig; error: { line: number; message: string } | null };

/**
 * Parses git's config format the way git's `config.c` does, character by character: section
 * headers `[section]`, `[section "subsection"]` (only `\` escapes inside the quotes), the legacy
 * `[section.subsection]` (all lower-cased), `name = value`, and a bare `name` meaning true. Values
 * may be partly quoted; outside quotes `#` and `;` start a comment and whitespace runs are kept
 * (one space per character) only between words; `\n`, `\t`, `\b`, `\\`, `\"` are the escapes and a
 * trailing `\` continues the line. `include` directives are not followed.
 */
export function parseGitConfig(text: string): ConfigParse {
  const source = new Source(text.startsWith("\uFEFF") ? text.slice(1) : text);
  const entries: ConfigEntry[] = [];
  // Errors name the line where the bad header or key began, even if continuation lines followed.
  let statementLine = 1;
  const fail = (message: string): ConfigParse => ({
    config: new GitConfig(entries),
    error: { line: statementLine, message },
  });
  let section: string | null = null;
  for (;;) {
    let c = source.next();
    if (c === "\n" && source.eof) return { config: new GitConfig(entries), error: null };
    if (isGitSpace(c.charCodeAt(0))) continue;
    if (c === "#" || c === ";") {
      source.match(REST_OF_LINE);
      continue;
    }
    statementLine = source.line;
    if (c === "[") {
      section = parseSectionHeader(source);
      if (section === null) return fail("bad section header");
      continue;
    }
    if (!/[A-Za-z]/.test(c)) return fail("a key must start with a letter");
    const name = (c + (source.match(KEY_REST)?.[0] ?? "")).toLowerCase();
    c = source.next();
    while (c === " " || c === "\t") c = source.next();
    let value = "true";
    if (c !== "\n") {
      if (c !== "=") return fail("expected '=' after the key");
      const parsed = parseValue(source);
      if (parsed === null) return fail("bad value (unknown escape or unclosed quote)");
      value = parsed;
    }
    // git accepts a key before any section header, but no command can address it.
    if (section !== null) entries.push({ key: `${section}.${name}`, value });
  }
}

/**
 * Far beyond any real config (a section per branch for 100,000 branches is about 8 MB); the parser
 * reads character by character on the event loop, so a larger file is refused rather than parsed.
 */
const MAX_CONFIG_BYTES = 16 * 1024 * 1024;

/** The repository's shared config file (`<commonDir>/config`). */
export function repoConfigPath(repo: { commonDir: string }): string {
  return join(repo.commonDir, "config");
}

/** Reads one config file (not following includes); a missing file is an empty config. */
export async function readConfigFile(path: string, files: CachedFileReader): Promise<Result<GitConfig>> {
  const read = await files.read(path, "git:config", (bytes) => parseGitConfig(lenientUtf8.decode(bytes)), {
    maxBytes: MAX_CONFIG_BYTES,
  });
  if (read.kind === "missing") return ok(new GitConfig([]));
  if (read.kind === "unreadable") return unreadable(path, read.cause);
  const { config, error } = read.value;
  if (error === null) return ok(config);
  return err(
    toolError(
      "unsupported_repo",
      `Bad config line ${error.line} in ${path}: ${error.message}`,
      "git refuses this file too; fix the line (see `git config --list`).",
    ),
  );
}

/**
 * git's boolean reading (`git_parse_maybe_bool`): true/yes/on/1, false/no/off/0/empty, any case, or
 * an integer (non-zero is true); `null` for anything else.
 */
export function parseConfigBool(value: string | undefined): boolean | null {
  if (value === undefined) return null;
  const word = value.toLowerCase();
  if (word === "true" || word === "yes" || word === "on") return true;
  if (word === "false" || word === "no" || word === "off" || word === "") return false;
  return /^[+-]?\d+$/.test(value) ? Number.parseInt(value, 10) !== 0 : null;
}

/** A key in its stored form: section and name lower-cased, the subsection (between the first and last dot) as written. */
function normalizeConfigKey(key: string): string {
  const first = key.indexOf(".");
  const last = key.lastIndexOf(".");
  if (first === -1) return key.toLowerCase();
  return key.slice(0, first).toLowerCase() + key.slice(first, last) + key.slice(last).toLowerCase();
}

/** Config files hold arbitrary bytes (a Latin-1 user name is common); bad bytes become U+FFFD. */
const lenientUtf8 = new TextDecoder("utf-8");

/**
 * A parsed git config file. Keys are `section.subsection.name` (or `section.name`): section and
 * name are case-insensitive and stored lower-cased, the subsection is case-sensitive.
 */
export class GitConfig {
  readonly #last = new Map<string, string>();

  /** `entries` in file order, keys in their stored form. */
  constructor(readonly entries: readonly ConfigEntry[]) {
    for (const { key, value } of entries) this.#last.set(key, value);
  }

  /** The last value of `key`, as git reads single-valued keys. */
  get(key: string): string | undefined {
    return this.#last.get(normalizeConfigKey(key));
  }
}

/**
 * Hands out characters as git's `get_next_char` does: CRLF reads as LF, and the end of the text
 * reads as a final LF with `eof` set, so every line, including the last, ends in "\n".
 */
class Source {
  #pos = 0;
  line = 1;
  eof = false;

  constructor(readonly text: string) {}

  next(): string {
    if (this.#pos >= this.text.length) {
      this.eof = true;
      return "\n";
    }
    let c = this.text.charAt(this.#pos++);
    if (c === "\r" && this.text.charAt(this.#pos) === "\n") {
      this.#pos++;
      c = "\n";
    }
    if (c === "\n") this.line++;
    return c;
  }

  /** `pattern` (sticky, and never spanning a line end) read at the current position, if it is there. */
  match(pattern: RegExp): RegExpExecArray | null {
    pattern.lastIndex = this.#pos;
    const found = pattern.exec(this.text);
    if (found !== null) this.#pos = pattern.lastIndex;
    return found;
  }
}

/** A comment, after its `#` or `;`, up to the line end. */
const REST_OF_LINE = /[^\n]*/y;
/** A key's characters after its first, a letter. */
const KEY_REST = /[A-Za-z0-9-]*/y;
/** `[section]`, or the legacy `[section.subsection]` (lower-cased whole). */
const PLAIN_HEADER = /([A-Za-z0-9.-]*)\]/y;
/** `[section "subsection"]`: whitespace but no line end before the quotes, inside them `\x` stands for `x`. */
const QUOTED_HEADER = /([A-Za-z0-9.-]+)[ \t\r]+"((?:[^"\\\n]|\\[^\n])*)"\]/y;

/** After `[`: the section (with `.subsection` appended) up to `]`, or `null` when malformed. */
function parseSectionHeader(source: Source): string | null {
  const plain = source.match(PLAIN_HEADER)?.[1];
  if (plain !== undefined) return plain === "" || plain.startsWith(".") ? null : plain.toLowerCase();
  const quoted = source.match(QUOTED_HEADER);
  if (quoted === null) return null;
  return `${(quoted[1] as string).toLowerCase()}.${(quoted[2] as string).replace(/\\(.)/gs, "$1")}`;
}

/** The escapes git knows in a value (a `\` before the line end continues the line); any other is an error. */
const VALUE_ESCAPES: Record<string, string> = { t: "\t", b: "\b", n: "\n", "\\": "\\", '"': '"' };

/** After `=`: the value up to the end of the line, or `null` on an unknown escape or unclosed quote. */
function parseValue(source: Source): string | null {
  let value = "";
  let quoted = false;
  let pendingSpaces = 0;
  for (;;) {
    let c = source.next();
    if (c === "\n") return quoted ? null : value;
    if (!quoted && isGitSpace(c.charCodeAt(0))) {
      if (value !== "") pendingSpaces++;
      continue;
    }
    if (!quoted && (c === "#" || c === ";")) {
      source.match(REST_OF_LINE);
      continue;
    }
    value += " ".repeat(pendingSpaces);
    pendingSpaces = 0;
    if (c === "\\") {
      c = source.next();
      if (c === "\n") continue;
      const escaped = VALUE_ESCAPES[c];
      if (escaped === undefined) return null;
      value += escaped;
      continue;
    }
    if (c === '"') {
      quoted = !quoted;
      continue;
    }
    value += c;
  }
}
