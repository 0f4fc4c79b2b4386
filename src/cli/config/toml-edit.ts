/**
 * Hand-written: TOML libraries on npm round-trip values and drop the user's comments and layout.
 * Bun.TOML.parse checks every result, so this only has to find where the table's lines are.
 */
import { err, ok, type Result } from "../../core/result.ts";
import { scanToml, type TomlStatement, tomlKey, tomlValue } from "./toml.ts";

type TomlEntry = Record<string, string | readonly string[]>;

interface Edit {
  start: number;
  end: number;
  text: string;
}

/**
 * Sets `values` in `[table]`, appending the table when missing; otherwise only those keys' lines
 * change. Refuses invalid TOML and a table written as dotted keys or an inline table.
 */
export function setTomlTable(text: string, table: readonly string[], values: TomlEntry): Result<string, string> {
  const parsed = parseToml(text);
  if (!parsed.ok) return parsed;
  const scanned = scanToml(text);
  if (!scanned.ok) return err(`it is not valid TOML: ${scanned.error}`);
  const statements = scanned.value;
  const eol = text.includes("\r\n") ? "\r\n" : "\n";
  const headerAt = statements.findIndex((s) => s.kind === "table" && sameKey(s.key, table));

  if (headerAt === -1) {
    if (lookup(parsed.value, table) !== undefined) {
      return err(
        `it defines ${table.join(".")} without a [${table.map(tomlKey).join(".")}] header (as dotted keys or an inline table); ` +
          "rewrite it as a table or remove it, then run this again",
      );
    }
    const lines = [`[${table.map(tomlKey).join(".")}]`, ...Object.entries(values).map(([k, v]) => assignment(k, v))];
    const separator = text === "" ? "" : text.endsWith("\n") ? eol : eol + eol;
    return checked(`${text}${separator}${lines.join(eol)}${eol}`, table, values);
  }

  const header = statements[headerAt] as TomlStatement;
  const body: TomlStatement[] = [];
  for (const statement of statements.slice(headerAt + 1)) {
    if (statement.kind !== "keyvalue") break;
    body.push(statement);
  }
  const edits: Edit[] = [];
  const missing: string[] = [];
  for (const [key, value] of Object.entries(values)) {
    const existing = body.find((s) => sameKey(s.key, [key]));
    if (existing) edits.push({ start: existing.start, end: existing.end, text: assignment(key, value) });
    else missing.push(assignment(key, value));
  }
  if (missing.length > 0) {
    const after = body.at(-1) ?? header;
    const at = lineEnd(text, after.end);
    edits.push({ start: at, end: at, text: missing.map((line) => eol + line).join("") });
  }
  let next = text;
  for (const edit of edits.sort((a, b) => b.start - a.start)) {
    next = next.slice(0, edit.start) + edit.text + next.slice(edit.end);
  }
  return checked(next, table, values);
}

function assignment(key: string, value: string | readonly string[]): string {
  return `${tomlKey(key)} = ${tomlValue(value)}`;
}

function sameKey(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((part, i) => part === b[i]);
}

function parseToml(text: string): Result<Record<string, unknown>, string> {
  try {
    return ok(Bun.TOML.parse(text) as Record<string, unknown>);
  } catch (error) {
    return err(`it is not valid TOML: ${error instanceof Error ? error.message : String(error)}`);
  }
}

function lookup(value: unknown, path: readonly string[]): unknown {
  let node = value;
  for (const part of path) {
    if (typeof node !== "object" || node === null || !Object.hasOwn(node, part)) return undefined;
    node = (node as Record<string, unknown>)[part];
  }
  return node;
}

/** The edit must read back as exactly what was meant; otherwise nothing is written. */
function checked(next: string, table: readonly string[], values: TomlEntry): Result<string, string> {
  const parsed = parseToml(next);
  if (!parsed.ok) return err(`the edited file would not be valid TOML (${parsed.error}); nothing was changed`);
  const written = lookup(parsed.value, table);
  for (const [key, value] of Object.entries(values)) {
    if (JSON.stringify(lookup(written, [key])) !== JSON.stringify(value)) {
      return err(`the edited file would not contain ${table.join(".")}.${key} as intended; nothing was changed`);
    }
  }
  return ok(next);
}

/** Where the line containing `pos` breaks (before `\r\n`). */
function lineEnd(text: string, pos: number): number {
  const eol = text.indexOf("\n", pos);
  if (eol === -1) return text.length;
  return text[eol - 1] === "\r" ? eol - 1 : eol;
}
