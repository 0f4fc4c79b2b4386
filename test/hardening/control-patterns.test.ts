import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";

/**
 * core/plain-text.ts is the one module that says what a control character or an escape sequence is: a second
 * hand-written pattern drifts from it (one forgot C1, another DEL). Others compose its `ASCII_CONTROLS`/`ALL_CONTROLS`.
 */

const SRC = join(import.meta.dir, "..", "..", "src");
const OWNER = "core/plain-text.ts";

/** ESC, DEL or a C1 control written out, a range from a C0 control, or a Unicode control class. */
const CONTROL_PATTERN =
  /\\(?:u001b|x1b|u007f|x7f|u009f|x9f|u0080|x80|u00[01][0-9a-f]-|x[01][0-9a-f]-)|\\p\{Cc\}|\\p\{C\}|\[:cntrl:\]/i;

/** Each line of `text` that writes a control-character pattern, as `file:line: text`. */
function offenders(file: string, text: string): string[] {
  return text
    .split("\n")
    .flatMap((line, i) => (CONTROL_PATTERN.test(line) ? [`${file}:${i + 1}: ${line.trim()}`] : []));
}

describe("control-character patterns", () => {
  test("only core/plain-text.ts defines one", () => {
    const files = readdirSync(SRC, { recursive: true, encoding: "utf8" }).filter((name) => name.endsWith(".ts"));
    expect(files.length).toBeGreaterThan(100);
    const found = files.flatMap((name) => {
      const file = relative(SRC, join(SRC, name)).replaceAll("\\", "/");
      return file === OWNER ? [] : offenders(file, readFileSync(join(SRC, name), "utf8"));
    });
    expect(found).toEqual([]);
  });

  test("the scan finds the patterns it looks for, and not a NUL used as a separator", () => {
    expect(offenders(OWNER, readFileSync(join(SRC, OWNER), "utf8")).length).toBeGreaterThanOrEqual(3);
    for (const pattern of ["/[\\u0000-\\u001f]/", "/\\x1b\\[/", "/[\\x7f]/", "/\\p{Cc}/u", '"\\\\u0080-\\\\u009f"']) {
      expect(offenders("x.ts", pattern)).toHaveLength(1);
    }
    expect(offenders("x.ts", 'const key = base + "\\u0000" + path;')).toEqual([]);
  });
});
