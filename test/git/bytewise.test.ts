import { describe, expect, setDefaultTimeout, test } from "bun:test";
import fc from "fast-check";
import { compareBytewise, sortBytewise } from "../../src/git/bytewise.ts";

// Property runs are CPU-bound: their hundreds of cases take seconds on a busy machine, beyond bun's 5 s default.
setDefaultTimeout(60_000);

const utf8 = (text: string) => Buffer.from(text, "utf8");

describe("compareBytewise", () => {
  test("orders by UTF-8 bytes, not UTF-16 units", () => {
    // U+FF21 (3 UTF-8 bytes, EF BC A1) sorts before U+1F680 (4 bytes, F0 9F 9A 80), though its
    // UTF-16 unit 0xFF21 is above the surrogate 0xD83D.
    expect(compareBytewise("\uFF21", "🚀")).toBe(-1);
    expect("\uFF21" < "🚀").toBe(false);
    expect(["b", "B", "a", "ä", "A", "日本", "🚀", "z"].sort(compareBytewise)).toEqual([
      "A",
      "B",
      "a",
      "b",
      "z",
      "ä",
      "日本",
      "🚀",
    ]);
    expect(compareBytewise("feature", "feature/a")).toBe(-1);
    expect(compareBytewise("feature-x", "feature/a")).toBe(-1);
    expect(compareBytewise("same", "same")).toBe(0);
  });

  test("agrees with Buffer.compare on arbitrary strings", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme" }), fc.string({ unit: "grapheme" }), (a, b) => {
        expect(compareBytewise(a, b)).toBe(Buffer.compare(utf8(a), utf8(b)));
      }),
      { numRuns: 2000 },
    );
    fc.assert(
      fc.property(fc.string({ unit: "binary" }), fc.string({ unit: "binary" }), (a, b) => {
        expect(compareBytewise(a, b)).toBe(Buffer.compare(utf8(a), utf8(b)));
      }),
      { numRuns: 2000 },
    );
  });
});

describe("sortBytewise", () => {
  test("sorts as compareBytewise does, with and without astral characters", () => {
    fc.assert(
      fc.property(fc.array(fc.string({ unit: "grapheme" })), fc.array(fc.string({ unit: "binary" })), (a, b) => {
        expect(sortBytewise([...a])).toEqual([...a].sort(compareBytewise));
        expect(sortBytewise([...b])).toEqual([...b].sort(compareBytewise));
        expect(sortBytewise([...a, ...b])).toEqual([...a, ...b].sort(compareBytewise));
      }),
      { numRuns: 1000 },
    );
    expect(sortBytewise(["🚀", "\uFF21", "a"])).toEqual(["a", "\uFF21", "🚀"]);
  });
});
