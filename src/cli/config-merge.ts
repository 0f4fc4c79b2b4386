/**
 * Our server entry, put into a client's configuration text with everything else left as written:
 * JSON with comments through jsonc-parser (VS Code's), in the file's own indentation and line breaks;
 * Codex's TOML through toml-patch, a new table under a `[table]` header of its own as Codex writes it.
 */
import { parse, patch } from "@decimalturn/toml-patch";
import {
  applyEdits,
  findNodeAtLocation,
  getNodeValue,
  modify,
  type Node,
  type ParseError,
  parseTree,
  printParseErrorCode,
} from "jsonc-parser";
import { err, ok, type Result } from "../core/result.ts";
import { lineColumn } from "../twig/json-errors.ts";
import { isPlainObject } from "../twig/state.ts";
import type { ExistingEntry } from "./config-entry-update.ts";

type ServerEntry = Record<string, string | string[] | Record<string, string>>;
export type Format = "json" | "toml";

/** The edit must read back as meant, and a strict JSON file must stay strict JSON; otherwise nothing is written. */
export function mergeServerEntry(
  format: Format,
  text: string,
  serversKey: string,
  name: string,
  entry: ServerEntry,
): Result<string, string> {
  const next =
    format === "toml" ? setTomlTable(text, serversKey, name, entry) : setJsonValue(text, [serversKey, name], entry);
  if (!next.ok) return next;
  if (!Bun.deepEquals(entryIn(format, next.value, serversKey, name), entry)) {
    return err(`the edited file would not contain ${serversKey}.${name} as intended; nothing was changed`);
  }
  if (format === "json" && isStrictJson(text) && !isStrictJson(next.value)) {
    return err("the edited file would no longer be plain JSON; nothing was changed");
  }
  return next;
}

function isStrictJson(text: string): boolean {
  try {
    JSON.parse(text.replace(/^\ufeff/, "") || "{}");
    return true;
  } catch {
    return false;
  }
}

/** The value under `serversKey.name` (own keys only); `undefined` when absent or when the file does not parse. */
function entryIn(format: Format, text: string, serversKey: string, name: string): unknown {
  try {
    let node = format === "json" ? plainValue(text) : Bun.TOML.parse(text);
    for (const key of [serversKey, name])
      node = isPlainObject(node) && Object.hasOwn(node, key) ? node[key] : undefined;
    return node;
  } catch {
    return undefined;
  }
}

/** Our entry as it is now, or `null` when there is none (or it has no command). */
export function readServerEntry(format: Format, text: string, serversKey: string, name: string): ExistingEntry | null {
  const entry = entryIn(format, text, serversKey, name);
  if (!isPlainObject(entry) || typeof entry.command !== "string") return null;
  const { command, args, env, type: _type, ...others } = entry;
  return {
    command,
    args: Array.isArray(args) ? args : [],
    env: isPlainObject(env) ? env : {},
    otherKeys: Object.keys(others),
  };
}

/** jsonc-parser's error codes in words a person editing the file understands. */
const MESSAGES: Record<string, string> = {
  InvalidSymbol: "unexpected character",
  InvalidNumberFormat: "invalid number",
  PropertyNameExpected: 'expected a "key" or }',
  ValueExpected: "expected a value",
  ColonExpected: "expected : after the key",
  CommaExpected: "expected a comma",
  CloseBraceExpected: "expected , or }",
  CloseBracketExpected: "expected , or ]",
  EndOfFileExpected: "unexpected text after the end of the document",
  InvalidCommentToken: "invalid comment",
  UnexpectedEndOfComment: "unterminated /* comment",
  UnexpectedEndOfString: "unterminated string",
  UnexpectedEndOfNumber: "unterminated number",
  InvalidUnicode: "invalid \\u escape",
  InvalidEscapeCharacter: "invalid escape in a string",
  InvalidCharacter: "invalid character in a string",
};

/** The document's tree, with offsets; the error says what is wrong and at which line and column. */
function parseJsonc(text: string): Result<Node, string> {
  // jsonc-parser reads a byte-order mark as a stray character; a space in its place keeps every offset.
  const source = text.charCodeAt(0) === 0xfeff ? ` ${text.slice(1)}` : text;
  const errors: ParseError[] = [];
  let root: Node | undefined;
  try {
    root = parseTree(source, errors, { allowTrailingComma: true, disallowComments: false });
  } catch (error) {
    // The parser recurses; a file nested thousands deep exhausts the stack.
    if (error instanceof RangeError) return err(at(source, 0, "nested too deeply"));
    throw error;
  }
  const first = errors[0];
  if (first !== undefined) {
    // A word after the document comes back as a stray character; saying the document ended is clearer.
    const code = printParseErrorCode(first.error);
    const afterEnd = code === "InvalidSymbol" && root !== undefined && first.offset >= root.offset + root.length;
    return err(at(source, first.offset, MESSAGES[afterEnd ? "EndOfFileExpected" : code] ?? "invalid JSON"));
  }
  return root === undefined ? err(at(source, source.length, "unexpected end of the document")) : ok(root);
}

const at = (text: string, offset: number, message: string) => `${message} at ${lineColumn(text, offset)}`;

/** The plain value (comments and trailing commas dropped); objects have no prototype, so `__proto__` is a plain key. */
export function plainValue(text: string): unknown {
  const parsed = parseJsonc(text);
  return parsed.ok ? getNodeValue(parsed.value) : undefined;
}

/** Sets the value at `path`, creating missing objects; fails on text not JSON(C) or a non-object on the path. */
export function setJsonValue(text: string, path: readonly string[], value: unknown): Result<string, string> {
  const bom = text.startsWith("\ufeff") ? "\ufeff" : "";
  const body = text.slice(bom.length);
  const eol = body.includes("\r\n") ? "\r\n" : "\n";
  // One level: what the first line after a `{` or `[` adds to that line's indentation.
  const unit = /^([ \t]*).*[{[]\r?\n\1([ \t]+)\S/m.exec(body)?.[2] ?? "  ";
  const formattingOptions = { insertSpaces: !unit.includes("\t"), tabSize: unit.includes("\t") ? 1 : unit.length, eol };
  if (body.trim() === "")
    return ok(`${bom}${applyEdits("", modify("", [...path], value, { formattingOptions }))}${eol}`);
  const parsed = parseJsonc(body);
  if (!parsed.ok) return err(`it is not valid JSON: ${parsed.error}`);
  if (parsed.value.type !== "object") return err("its top level is not a JSON object");
  // The deepest object on the path that exists; one on a single line stays on it (no formatting).
  let holder = parsed.value;
  for (let depth = 1; depth < path.length; depth++) {
    const node = findNodeAtLocation(parsed.value, path.slice(0, depth));
    if (node === undefined) break;
    if (node.type !== "object") {
      const holds = node.type === "array" ? "an array" : "a plain value";
      return err(`"${path.slice(0, depth).join(".")}" holds ${holds}, not an object`);
    }
    holder = node;
  }
  const oneLine = holder.children?.length && !/\n/.test(body.slice(holder.offset, holder.offset + holder.length));
  return ok(bom + applyEdits(body, modify(body, [...path], value, oneLine ? {} : { formattingOptions })));
}

function setTomlTable(text: string, parent: string, name: string, values: object): Result<string, string> {
  const key = (part: string) => (/^[A-Za-z0-9_-]+$/.test(part) ? part : JSON.stringify(part));
  try {
    const holder = (parse(text) as Record<string, unknown>)[parent];
    if (holder !== undefined && (!isPlainObject(holder) || holder instanceof Date))
      return err(`"${parent}" holds a plain value or an array, not a table`);
    const eol = text.includes("\r\n") ? "\r\n" : "\n";
    const separator = text === "" ? "" : text.endsWith("\n") ? eol : eol + eol;
    const base = holder?.[name] === undefined ? `${text}${separator}[${key(parent)}.${key(name)}]${eol}` : text;
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
