/**
 * A client's JSON-with-comments file, read and edited through jsonc-parser (VS Code's parser):
 * `parseTree` for the offsets, `applyEdits` to write. The edits are placed here, not by its
 * `modify`: users' files must keep every byte but our entry (test/cli/config-merge.test.ts), and
 * with formatting options `modify` re-lays the whole line it inserts on (the last member's line:
 * its spacing, a one-line object or array there), writes `"args"` one item per line, puts a
 * comment that ended the last member's line after the new member, and follows the first of
 * duplicate keys where JSON readers use the last; without them it writes minified JSON.
 */
import {
  applyEdits,
  createScanner,
  type Edit,
  getNodeValue,
  type Node,
  type ParseError,
  parseTree,
  printParseErrorCode,
} from "jsonc-parser";
import { err, ok, type Result } from "../../core/result.ts";

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

function at(text: string, offset: number, message: string): string {
  const before = text.slice(0, offset);
  return `${message} at line ${before.split("\n").length}, column ${offset - before.lastIndexOf("\n")}`;
}

/** The plain value (comments and trailing commas dropped); objects have no prototype, so `__proto__` is a plain key. */
export function plainValue(text: string): unknown {
  const parsed = parseJsonc(text);
  return parsed.ok ? getNodeValue(parsed.value) : undefined;
}

/**
 * Sets the value at `path` (object keys from the top), creating missing objects on the way; only
 * that value's (or the inserted member's) characters change. Fails when the text is not JSON(C)
 * or a key on the path holds something other than an object.
 */
export function setJsonValue(text: string, path: readonly string[], value: unknown): Result<string, string> {
  const bom = text.startsWith("\ufeff") ? "\ufeff" : "";
  const body = text.slice(bom.length);
  const eol = body.includes("\r\n") ? "\r\n" : "\n";
  if (body.trim() === "") return ok(`${bom}${stringify(nest(path, value), "  ", "", eol)}${eol}`);
  const parsed = parseJsonc(body);
  if (!parsed.ok) return err(`it is not valid JSON: ${parsed.error}`);
  if (parsed.value.type !== "object") return err("its top level is not a JSON object");
  // One level: what the first line after a `{` or `[` adds to that line's indentation.
  const style: Style = { unit: /^([ \t]*).*[{[]\r?\n\1([ \t]+)\S/m.exec(body)?.[2] ?? "  ", eol };
  let node = parsed.value;
  for (const [i, key] of path.entries()) {
    // With duplicate keys, the last one: it is the one JSON readers use.
    const member = node.children?.findLast((property) => property.children?.[0]?.value === key)?.children?.[1];
    if (member === undefined) {
      return ok(bom + applyEdits(body, insertMember(body, node, key, nest(path.slice(i + 1), value), style)));
    }
    if (i === path.length - 1) {
      const space = oneLineSpace(body, node);
      const rendered =
        space === null
          ? stringify(value, style.unit, lineIndent(body, member.parent?.offset ?? member.offset), eol)
          : oneLineJson(value, space);
      return ok(bom + applyEdits(body, [{ offset: member.offset, length: member.length, content: rendered }]));
    }
    if (member.type !== "object") {
      return err(
        `"${path.slice(0, i + 1).join(".")}" holds ${member.type === "array" ? "an array" : "a plain value"}, not an object`,
      );
    }
    node = member;
  }
  return err("an empty path names the whole document");
}

/** How the file is laid out (one level of indentation, line break), so inserted text matches it. */
type Style = { unit: string; eol: string };

function nest(path: readonly string[], value: unknown): unknown {
  return path.reduceRight<unknown>((inner, key) => ({ [key]: inner }), value);
}

/** The spaces and tabs that start the line `pos` is on. */
function lineIndent(text: string, pos: number): string {
  const lineStart = text.lastIndexOf("\n", pos - 1) + 1;
  return /^[ \t]*/.exec(text.slice(lineStart, pos))?.[0] ?? "";
}

/**
 * For an object whose members start on its `{` line (a one-line or minified file): the blank it
 * puts after `:` and `,` ("" when minified); `null` when its members are on lines of their own.
 */
function oneLineSpace(text: string, node: Node): string | null {
  const first = node.children?.[0];
  if (first === undefined || text.slice(node.offset, first.offset).includes("\n")) return null;
  return /\s/.test(text.slice(node.offset, node.offset + node.length)) ? " " : "";
}

function oneLineJson(value: unknown, space: string): string {
  return space === "" ? JSON.stringify(value) : stringify(value, "", "", " ");
}

/** From after the last member's comma: blanks and comments that end on its line, which stay with it. */
const LINE_END = /^(?:[ \t]*\/\*(?:(?!\*\/).)*\*\/)*(?:[ \t]*\/\/.*)?[ \t]*/;

function insertMember(text: string, node: Node, key: string, value: unknown, style: Style): Edit[] {
  const last = node.children?.at(-1);
  const member = (indent: string) => `${JSON.stringify(key)}: ${stringify(value, style.unit, indent, style.eol)}`;
  if (last === undefined) {
    const outer = lineIndent(text, node.offset);
    const indent = outer + style.unit;
    const inside = text.slice(node.offset + 1, node.offset + node.length - 1);
    const added = `${style.eol}${indent}${member(indent)}`;
    // Only comments inside: they stay, after the new member.
    if (inside.trim() !== "") return [{ offset: node.offset + 1, length: 0, content: added }];
    return [{ offset: node.offset + 1, length: inside.length, content: `${added}${style.eol}${outer}` }];
  }
  // A trailing comma (JSONC allows one) then separates the new member, which gets one of its own.
  const scanner = createScanner(text, true);
  scanner.setPosition(last.offset + last.length);
  scanner.scan();
  const trailing = text[scanner.getTokenOffset()] === ",";
  const anchor = trailing ? scanner.getPosition() : last.offset + last.length;
  const comma = { offset: anchor, length: 0, content: trailing ? "" : "," };
  const space = oneLineSpace(text, node);
  if (space !== null) {
    comma.content += `${space}${JSON.stringify(key)}:${space}${oneLineJson(value, space)}`;
    return [comma];
  }
  const indent = lineIndent(text, last.offset);
  const at = anchor + (LINE_END.exec(text.slice(anchor))?.[0].length ?? 0);
  return [comma, { offset: at, length: 0, content: `${style.eol}${indent}${member(indent)}${trailing ? "," : ""}` }];
}

/**
 * JSON text at `indent`, one member or item per line, except that short arrays of plain values
 * stay on one line (`"args": ["--repo", "/src/shop"]`) as people write them.
 */
function stringify(value: unknown, unit: string, indent: string, eol: string): string {
  if (Array.isArray(value)) {
    if (value.length === 0) return "[]";
    const inline = `[${value.map((item) => JSON.stringify(item)).join(", ")}]`;
    if (value.every((item) => item === null || typeof item !== "object") && inline.length <= 100) return inline;
    const inner = indent + unit;
    return `[${eol}${value.map((item) => inner + stringify(item, unit, inner, eol)).join(`,${eol}`)}${eol}${indent}]`;
  }
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value);
    if (entries.length === 0) return "{}";
    const inner = indent + unit;
    const lines = entries.map(([key, item]) => `${inner}${JSON.stringify(key)}: ${stringify(item, unit, inner, eol)}`);
    return `{${eol}${lines.join(`,${eol}`)}${eol}${indent}}`;
  }
  return JSON.stringify(value);
}
