/**
 * Codex's TOML file, edited through toml-patch, which keeps the comments and layout of everything
 * it does not change. A new table gets a `[table]` header of its own, as Codex's documentation
 * writes it, rather than an inline table under its parent.
 */
import { parse, patch } from "@decimalturn/toml-patch";
import { err, ok, type Result } from "../../core/result.ts";

/** Sets `[parent.name]` to `values`, replacing what was there. */
export function setTomlTable(
  text: string,
  [parent, name]: readonly [string, string],
  values: object,
): Result<string, string> {
  try {
    const existing = parse(text) as Record<string, unknown>;
    const holder = existing[parent];
    if (holder !== undefined && !isTable(holder))
      return err(`"${parent}" holds a plain value or an array, not a table`);
    const eol = text.includes("\r\n") ? "\r\n" : "\n";
    const separator = text === "" ? "" : text.endsWith("\n") ? eol : eol + eol;
    const base = holder?.[name] === undefined ? `${text}${separator}[${tomlKey(parent)}.${tomlKey(name)}]${eol}` : text;
    const document = parse(base) as Record<string, Record<string, unknown>>;
    (document[parent] as Record<string, unknown>)[name] = values;
    const next = patch(base, document);
    return ok(next.endsWith("\n") ? next : next + eol);
  } catch (error) {
    // The first and last lines: where, and what is wrong; not the file's line between them.
    const lines = (error instanceof Error ? error.message : String(error)).split("\n");
    return err(`it is not valid TOML: ${[...new Set([lines[0], lines.at(-1)])].join(" ")}`);
  }
}

function isTable(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value) && !(value instanceof Date);
}

/** A key as written in a header: bare when it can be, quoted otherwise. */
function tomlKey(part: string): string {
  return /^[A-Za-z0-9_-]+$/.test(part) ? part : JSON.stringify(part);
}
