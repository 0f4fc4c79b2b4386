/**
 * Hand-written: TOML libraries on npm round-trip values and drop the user's comments and layout.
 * Bun.TOML.parse checks the file first and reads the keys (merge.ts reads the result back), so this
 * only has to find where each statement (a table header or a key/value) starts and ends.
 */
import { applyEdits, type Edit } from "jsonc-parser";
import { err, ok, type Result } from "../../core/result.ts";

type TomlEntry = Record<string, string | readonly string[]>;

interface Statement {
  /** `[` for a table header, `[[` for an array of tables, `null` for a key/value. */
  header: "[" | "[[" | null;
  /** The key as written: bare, quoted or dotted. */
  key: string;
  /** From `[` or the key to just after `]` or the value (before a trailing comment). */
  start: number;
  end: number;
}

/** Strings (which may span lines), comments, line breaks, brackets, `=`, and runs of anything else. */
const TOKEN =
  /"""(?:[^\\]|\\[\s\S])*?"""(?!")|'''[\s\S]*?'''(?!')|"(?:[^"\\\n]|\\.)*"|'[^'\n]*'|#[^\n]*|\n|[ \t\r]+|[[\]{}=]|[^\s[\]{}="'#]+/y;

/** The statements of a valid document; a line break inside brackets or a string does not end one. */
function statements(text: string): Statement[] | null {
  const out: Statement[] = [];
  let current: { start: number; end: number; equals: number } | null = null;
  let depth = 0;
  for (let pos = 0; pos < text.length; ) {
    TOKEN.lastIndex = pos;
    const match = TOKEN.exec(text);
    if (match === null) return null;
    const [token] = match;
    pos += token.length;
    if (token === "\n" && depth === 0 && current !== null) {
      out.push(statement(text, current));
      current = null;
    }
    if (/^[\s#]/.test(token)) continue;
    current ??= { start: match.index, end: 0, equals: -1 };
    if (token === "=" && depth === 0 && current.equals === -1) current.equals = match.index;
    depth += token === "[" || token === "{" ? 1 : token === "]" || token === "}" ? -1 : 0;
    current.end = pos;
  }
  if (current !== null) out.push(statement(text, current));
  return out;
}

function statement(text: string, { start, end, equals }: { start: number; end: number; equals: number }): Statement {
  const header = text.startsWith("[[", start) ? "[[" : text[start] === "[" ? "[" : null;
  const key = header === null ? text.slice(start, equals) : text.slice(start + header.length, end - header.length);
  return { header, key, start, end };
}

/** Whether a key as written names `path`; Bun reads it, so `[mcp_servers."twig"]` is `[mcp_servers.twig]`. */
function names(key: string, path: readonly string[]): boolean {
  return lookup(Bun.TOML.parse(`${key} = 0`), path) === 0;
}

/**
 * Sets `values` in `[table]`, appending the table when missing; otherwise only those keys' lines
 * change. Refuses invalid TOML and a table written as dotted keys or an inline table.
 */
export function setTomlTable(text: string, table: readonly string[], values: TomlEntry): Result<string, string> {
  let parsed: unknown;
  try {
    parsed = Bun.TOML.parse(text);
  } catch (error) {
    return err(`it is not valid TOML: ${error instanceof Error ? error.message : String(error)}`);
  }
  const all = statements(text);
  if (all === null) return err("it is not valid TOML: a statement could not be read");
  const eol = text.includes("\r\n") ? "\r\n" : "\n";
  const headerAt = all.findIndex((s) => s.header === "[" && names(s.key, table));
  const header = `[${table.map(tomlKey).join(".")}]`;

  if (headerAt === -1) {
    if (lookup(parsed, table) !== undefined) {
      return err(
        `it defines ${table.join(".")} without a ${header} header (as dotted keys or an inline table); ` +
          "rewrite it as a table or remove it, then run this again",
      );
    }
    const lines = [header, ...Object.entries(values).map(([k, v]) => assignment(k, v))];
    const separator = text === "" ? "" : text.endsWith("\n") ? eol : eol + eol;
    return ok(`${text}${separator}${lines.join(eol)}${eol}`);
  }

  const following = all.slice(headerAt + 1);
  const nextHeader = following.findIndex((s) => s.header !== null);
  const body = nextHeader === -1 ? following : following.slice(0, nextHeader);
  const edits: Edit[] = [];
  const missing: string[] = [];
  for (const [key, value] of Object.entries(values)) {
    const existing = body.find((s) => names(s.key, [key]));
    if (existing)
      edits.push({ offset: existing.start, length: existing.end - existing.start, content: assignment(key, value) });
    else missing.push(eol + assignment(key, value));
  }
  if (missing.length > 0) {
    // At the end of the table's last line, after its comment.
    const after = (body.at(-1) ?? all[headerAt]) as Statement;
    const lineBreak = text.indexOf("\n", after.end);
    const at = lineBreak === -1 ? text.length : text[lineBreak - 1] === "\r" ? lineBreak - 1 : lineBreak;
    edits.push({ offset: at, length: 0, content: missing.join("") });
  }
  return ok(applyEdits(text, edits));
}

/** `key = value`; a JSON string is a valid TOML basic string, with the same escapes. */
function assignment(key: string, value: string | readonly string[]): string {
  return `${tomlKey(key)} = ${JSON.stringify(value).replaceAll('","', '", "')}`;
}

/** The value at `path` (own keys only), `undefined` when a step is missing or not an object. */
export function lookup(value: unknown, path: readonly string[]): unknown {
  let node = value;
  for (const part of path) {
    if (typeof node !== "object" || node === null || !Object.hasOwn(node, part)) return undefined;
    node = (node as Record<string, unknown>)[part];
  }
  return node;
}

/** A key as written in a header: bare when it can be, quoted otherwise. */
function tomlKey(part: string): string {
  return /^[A-Za-z0-9_-]+$/.test(part) ? part : JSON.stringify(part);
}
