import { err, ok, type Result } from "../../core/result.ts";

/**
 * A TOML document's table headers and key/value pairs with their offsets, for editing one table in
 * place. Values are skipped over, never interpreted: `Bun.TOML.parse` checks the meaning.
 */
export interface TomlStatement {
  kind: "table" | "array-table" | "keyvalue";
  key: string[];
  /** From `[` or the key to just after `]` or the value (before a trailing comment). */
  start: number;
  end: number;
}

export function scanToml(text: string): Result<TomlStatement[], string> {
  try {
    return ok(new Scanner(text).statements());
  } catch (error) {
    if (error instanceof ScanFailure) return err(error.message);
    throw error;
  }
}

class ScanFailure extends Error {}

const ESCAPES: Record<string, string> = {
  b: "\b",
  t: "\t",
  n: "\n",
  f: "\f",
  r: "\r",
  e: "\x1b",
  '"': '"',
  "\\": "\\",
};

class Scanner {
  pos = 0;
  constructor(readonly text: string) {}

  fail(message: string): never {
    const line = this.text.slice(0, this.pos).split("\n").length;
    throw new ScanFailure(`${message} at line ${line}`);
  }

  statements(): TomlStatement[] {
    const out: TomlStatement[] = [];
    for (;;) {
      this.skip(true);
      if (this.pos >= this.text.length) return out;
      const start = this.pos;
      if (this.text[this.pos] === "[") {
        const array = this.text[this.pos + 1] === "[";
        this.pos += array ? 2 : 1;
        const key = this.key();
        if (!this.text.startsWith(array ? "]]" : "]", this.pos)) this.fail("expected ] after the table name");
        this.pos += array ? 2 : 1;
        out.push({ kind: array ? "array-table" : "table", key, start, end: this.pos });
      } else {
        const key = this.key();
        if (this.text[this.pos] !== "=") this.fail("expected = after the key");
        this.pos++;
        this.skip(false);
        this.value();
        out.push({ kind: "keyvalue", key, start, end: this.pos });
      }
      this.skip(false);
      if (this.pos < this.text.length && this.text[this.pos] !== "\n" && !this.text.startsWith("\r\n", this.pos)) {
        this.fail("expected the end of the line");
      }
    }
  }

  /** Blanks and comments; line breaks too when `lines`. */
  skip(lines: boolean): void {
    for (;;) {
      const ch = this.text[this.pos];
      if (ch === " " || ch === "\t" || (lines && (ch === "\n" || ch === "\r"))) {
        this.pos++;
      } else if (ch === "#") {
        const eol = this.text.indexOf("\n", this.pos);
        this.pos = eol === -1 ? this.text.length : eol;
      } else {
        return;
      }
    }
  }

  key(): string[] {
    const parts: string[] = [];
    for (;;) {
      this.skip(false);
      const ch = this.text[this.pos];
      if (ch === '"') parts.push(this.basicString());
      else if (ch === "'") parts.push(this.literalString());
      else {
        const bare = /^[A-Za-z0-9_-]+/.exec(this.text.slice(this.pos, this.pos + 256));
        if (!bare) this.fail("expected a key");
        parts.push(bare[0]);
        this.pos += bare[0].length;
      }
      this.skip(false);
      if (this.text[this.pos] !== ".") return parts;
      this.pos++;
    }
  }

  value(): void {
    const text = this.text;
    const ch = text[this.pos];
    if (text.startsWith('"""', this.pos)) this.multiline('"""', true);
    else if (text.startsWith("'''", this.pos)) this.multiline("'''", false);
    else if (ch === '"') this.basicString();
    else if (ch === "'") this.literalString();
    else if (ch === "[" || ch === "{") this.container(ch === "[" ? "]" : "}", ch === "{");
    else {
      // Numbers, booleans, dates; a date and a time may be separated by one space.
      const token = /^(?:\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}[^\s,\]}#]*|[^\s,\]}#]+)/.exec(
        text.slice(this.pos, this.pos + 256),
      );
      if (!token) this.fail("expected a value");
      this.pos += token[0].length;
    }
  }

  container(close: string, keyed: boolean): void {
    this.pos++;
    for (;;) {
      this.skip(true);
      if (this.text[this.pos] === close) {
        this.pos++;
        return;
      }
      if (keyed) {
        this.key();
        if (this.text[this.pos] !== "=") this.fail("expected = in an inline table");
        this.pos++;
        this.skip(false);
      }
      this.value();
      this.skip(true);
      if (this.text[this.pos] === ",") {
        this.pos++;
        continue;
      }
      if (this.text[this.pos] !== close) this.fail(`expected , or ${close}`);
    }
  }

  basicString(): string {
    const start = this.pos;
    this.pos++;
    let out = "";
    for (;;) {
      const ch = this.text[this.pos];
      if (ch === undefined || ch === "\n") this.fail("unterminated string");
      this.pos++;
      if (ch === '"') return out;
      if (ch !== "\\") {
        out += ch;
        continue;
      }
      const code = this.text[this.pos] as string;
      this.pos++;
      if (code in ESCAPES) out += ESCAPES[code];
      else if (code === "u" || code === "U") {
        const length = code === "u" ? 4 : 8;
        const hex = this.text.slice(this.pos, this.pos + length);
        if (!/^[0-9a-fA-F]+$/.test(hex) || hex.length !== length) this.fail("invalid \\u escape");
        out += String.fromCodePoint(Number.parseInt(hex, 16));
        this.pos += length;
      } else {
        this.pos = start;
        this.fail("invalid escape in a string");
      }
    }
  }

  literalString(): string {
    const close = this.text.indexOf("'", this.pos + 1);
    const eol = this.text.indexOf("\n", this.pos + 1);
    if (close === -1 || (eol !== -1 && eol < close)) this.fail("unterminated string");
    const value = this.text.slice(this.pos + 1, close);
    this.pos = close + 1;
    return value;
  }

  multiline(delimiter: string, escapes: boolean): void {
    let at = this.pos + 3;
    for (;;) {
      const close = this.text.indexOf(delimiter, at);
      if (close === -1) this.fail("unterminated multi-line string");
      let backslashes = 0;
      while (escapes && this.text[close - 1 - backslashes] === "\\") backslashes++;
      if (backslashes % 2 === 1) {
        at = close + 1;
        continue;
      }
      // Up to two quotes may end the content just before the closing delimiter.
      let end = close + 3;
      while (end < close + 5 && this.text[end] === delimiter[0]) end++;
      this.pos = end;
      return;
    }
  }
}

/** A JSON string is a valid TOML basic string, with the same escapes. */
export function tomlValue(value: string | readonly string[]): string {
  return JSON.stringify(value).replaceAll('","', '", "');
}

/** A key as written in a header: bare when it can be, quoted otherwise. */
export function tomlKey(part: string): string {
  return /^[A-Za-z0-9_-]+$/.test(part) ? part : JSON.stringify(part);
}
