import { createScanner, type Node, type ParseError, parseTree, printParseErrorCode } from "jsonc-parser";
import { err, ok, type Result } from "../../core/result.ts";

/**
 * A JSON-with-comments document (parsed by jsonc-parser, as VS Code does) whose nodes remember
 * their offsets, so an edit can change a few characters and leave the rest byte-identical.
 */
export type JsonNode =
  | ObjectNode
  | { kind: "array"; start: number; end: number; items: JsonNode[] }
  | { kind: "scalar"; start: number; end: number; value: unknown };

export interface ObjectNode {
  kind: "object";
  /** Offsets of `{` and just after `}`. */
  start: number;
  end: number;
  members: Member[];
  /** Offset of a comma after the last member (JSONC allows one), else `null`. */
  trailingComma: number | null;
}

export interface Member {
  key: string;
  keyStart: number;
  value: JsonNode;
}

type JsoncError = { message: string; line: number; column: number };

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

export function parseJsonc(text: string): Result<JsonNode, JsoncError> {
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
  if (root === undefined) return err(at(source, source.length, "unexpected end of the document"));
  return ok(convert(source, root));
}

function at(text: string, offset: number, message: string): JsoncError {
  const before = text.slice(0, offset);
  const line = before.split("\n").length;
  return { message, line, column: offset - (before.lastIndexOf("\n") + 1) + 1 };
}

function convert(text: string, node: Node): JsonNode {
  const start = node.offset;
  const end = node.offset + node.length;
  if (node.type === "array")
    return { kind: "array", start, end, items: (node.children ?? []).map((n) => convert(text, n)) };
  if (node.type !== "object") return { kind: "scalar", start, end, value: node.value };
  const members: Member[] = [];
  for (const property of node.children ?? []) {
    const [key, value] = property.children ?? [];
    if (key === undefined || value === undefined) continue;
    members.push({ key: String(key.value), keyStart: property.offset, value: convert(text, value) });
  }
  const last = members.at(-1);
  return { kind: "object", start, end, members, trailingComma: last ? commaAfter(text, last.value.end) : null };
}

/** Where the next token after `offset`, past blanks and comments, is a comma. */
function commaAfter(text: string, offset: number): number | null {
  const scanner = createScanner(text, true);
  scanner.setPosition(offset);
  scanner.scan();
  const token = scanner.getTokenOffset();
  return text[token] === "," ? token : null;
}

/** The plain value of a node (comments and trailing commas dropped); `__proto__` stays a plain key. */
export function plainValue(node: JsonNode): unknown {
  switch (node.kind) {
    case "scalar":
      return node.value;
    case "array":
      return node.items.map(plainValue);
    case "object": {
      const out: Record<string, unknown> = {};
      for (const member of node.members) {
        Object.defineProperty(out, member.key, {
          value: plainValue(member.value),
          enumerable: true,
          writable: true,
          configurable: true,
        });
      }
      return out;
    }
  }
}

/** The member a JSON reader would see for `key`: with duplicates, the last one wins. */
export function findMember(node: ObjectNode, key: string): Member | undefined {
  for (let i = node.members.length - 1; i >= 0; i--) {
    if (node.members[i]?.key === key) return node.members[i];
  }
  return undefined;
}
