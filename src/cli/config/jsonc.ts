import { err, ok, type Result } from "../../core/result.ts";

/**
 * A JSON-with-comments document read for editing: every node remembers where it sits in the text,
 * so an edit can replace or insert a few characters and leave the rest byte-identical. Accepts
 * what VS Code's JSONC accepts (`//` and block comments, trailing commas); plain JSON is a subset.
 */
export type JsonNode = ObjectNode | ArrayNode | ScalarNode;

export interface ObjectNode {
  kind: "object";
  /** Offset of `{`. */
  start: number;
  /** Offset just after `}`. */
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

export interface ArrayNode {
  kind: "array";
  start: number;
  end: number;
  items: JsonNode[];
}

export interface ScalarNode {
  kind: "scalar";
  start: number;
  end: number;
}

export interface JsoncError {
  message: string;
  line: number;
  column: number;
}

const MAX_DEPTH = 512;

export function parseJsonc(text: string): Result<JsonNode, JsoncError> {
  const parser = new Parser(text);
  try {
    const root = parser.value(0);
    parser.skipTrivia();
    if (parser.pos < text.length) parser.fail("unexpected text after the end of the document");
    return ok(root);
  } catch (error) {
    if (error instanceof SyntaxFailure) return err(error.detail);
    throw error;
  }
}

class SyntaxFailure extends Error {
  constructor(readonly detail: JsoncError) {
    super(detail.message);
  }
}

class Parser {
  pos = 0;
  constructor(readonly text: string) {
    // A byte-order mark is not content; editors keep it, and so do we (it is never touched).
    if (text.charCodeAt(0) === 0xfeff) this.pos = 1;
  }

  fail(message: string): never {
    const before = this.text.slice(0, this.pos);
    const line = before.split("\n").length;
    const column = this.pos - before.lastIndexOf("\n");
    throw new SyntaxFailure({ message, line, column });
  }

  skipTrivia(): void {
    const text = this.text;
    while (this.pos < text.length) {
      const ch = text[this.pos];
      if (ch === " " || ch === "\t" || ch === "\n" || ch === "\r") {
        this.pos++;
      } else if (ch === "/" && text[this.pos + 1] === "/") {
        const eol = text.indexOf("\n", this.pos);
        this.pos = eol === -1 ? text.length : eol;
      } else if (ch === "/" && text[this.pos + 1] === "*") {
        const close = text.indexOf("*/", this.pos + 2);
        if (close === -1) this.fail("unterminated /* comment");
        this.pos = close + 2;
      } else {
        return;
      }
    }
  }

  value(depth: number): JsonNode {
    if (depth > MAX_DEPTH) this.fail("nested too deeply");
    this.skipTrivia();
    const ch = this.text[this.pos];
    if (ch === "{") return this.object(depth);
    if (ch === "[") return this.array(depth);
    const start = this.pos;
    if (ch === '"') {
      this.string();
      return { kind: "scalar", start, end: this.pos };
    }
    const literal = /^(?:true|false|null|-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?)/.exec(
      this.text.slice(start, start + 400),
    );
    if (!literal) this.fail(ch === undefined ? "unexpected end of the document" : `unexpected character '${ch}'`);
    this.pos += literal[0].length;
    return { kind: "scalar", start, end: this.pos };
  }

  string(): string {
    const start = this.pos;
    this.pos++;
    const text = this.text;
    while (this.pos < text.length) {
      const ch = text[this.pos];
      if (ch === '"') {
        this.pos++;
        try {
          return JSON.parse(text.slice(start, this.pos)) as string;
        } catch {
          this.pos = start;
          this.fail("invalid string");
        }
      }
      if (ch === "\\") this.pos++;
      else if (ch === "\n") this.fail("unterminated string");
      this.pos++;
    }
    this.pos = start;
    return this.fail("unterminated string");
  }

  object(depth: number): ObjectNode {
    const node: ObjectNode = { kind: "object", start: this.pos, end: 0, members: [], trailingComma: null };
    this.pos++;
    for (;;) {
      this.skipTrivia();
      if (this.text[this.pos] === "}") break;
      if (this.text[this.pos] !== '"') this.fail('expected a "key" or }');
      const keyStart = this.pos;
      const key = this.string();
      this.skipTrivia();
      if (this.text[this.pos] !== ":") this.fail("expected : after the key");
      this.pos++;
      node.members.push({ key, keyStart, value: this.value(depth + 1) });
      this.skipTrivia();
      if (this.text[this.pos] === ",") {
        const comma = this.pos;
        this.pos++;
        this.skipTrivia();
        if (this.text[this.pos] === "}") {
          node.trailingComma = comma;
          break;
        }
        continue;
      }
      if (this.text[this.pos] !== "}") this.fail("expected , or }");
      break;
    }
    this.pos++;
    node.end = this.pos;
    return node;
  }

  array(depth: number): ArrayNode {
    const node: ArrayNode = { kind: "array", start: this.pos, end: 0, items: [] };
    this.pos++;
    for (;;) {
      this.skipTrivia();
      if (this.text[this.pos] === "]") break;
      node.items.push(this.value(depth + 1));
      this.skipTrivia();
      if (this.text[this.pos] === ",") {
        this.pos++;
        this.skipTrivia();
        if (this.text[this.pos] === "]") break;
        continue;
      }
      if (this.text[this.pos] !== "]") this.fail("expected , or ]");
      break;
    }
    this.pos++;
    node.end = this.pos;
    return node;
  }
}

/** The plain value of a node (comments and trailing commas dropped). */
export function plainValue(text: string, node: JsonNode): unknown {
  switch (node.kind) {
    case "scalar":
      return JSON.parse(text.slice(node.start, node.end));
    case "array":
      return node.items.map((item) => plainValue(text, item));
    case "object": {
      const out: Record<string, unknown> = {};
      for (const member of node.members) {
        Object.defineProperty(out, member.key, {
          value: plainValue(text, member.value),
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
