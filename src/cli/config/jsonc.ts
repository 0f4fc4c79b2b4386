/**
 * A client's JSON-with-comments file, read and edited through jsonc-parser (VS Code's parser):
 * `parseTree` to check it and say where it is wrong, `modify` and `applyEdits` to write, in the
 * file's own indentation and line breaks, so comments and the other entries stay as they were
 * (an object written on one line gets the value on that line, unformatted). One thing moves: a
 * comment that ended the last member's line ends the new member's line instead.
 */
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
 * Sets the value at `path` (object keys from the top), creating missing objects on the way. Fails
 * when the text is not JSON(C) or a key on the path holds something other than an object.
 */
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
