import { describe, expect, test } from "bun:test";
import { createLogger } from "../../src/core/log.ts";
import {
  clip,
  escapeInvisibles,
  inline,
  plainText,
  quoted,
  scrubControl,
  visible,
  visibleDeep,
} from "../../src/core/plain-text.ts";
import { parseTwigUri } from "../../src/mcp/resources.ts";
import { fenced } from "../../src/prompts/quote.ts";

const ESC = "\u001b";

describe("plainText", () => {
  test("strips C0 (but \\n and \\t), DEL and C1; shows bidi, invisible and format characters as escapes", () => {
    const osc52 = `${ESC}]52;c;aGk=\u0007`;
    const osc8 = `${ESC}]8;;https://x.example/${ESC}\\link${ESC}]8;;${ESC}\\`;
    expect(plainText(`a${osc52}b`)).toBe("a]52;c;aGk=b");
    expect(plainText(osc8)).toBe("]8;;https://x.example/\\link]8;;\\");
    expect(plainText("x\r\n\ty\u0085\u009b2J")).toBe("x\n\ty2J");
    const bidi = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c";
    expect(plainText(`txt${bidi}.exe`)).toBe(
      "txt\\u{202A}\\u{202B}\\u{202C}\\u{202D}\\u{202E}\\u{2066}\\u{2067}\\u{2068}\\u{2069}\\u{200E}\\u{200F}\\u{61C}.exe",
    );
    expect(plainText("pay\u200bpal\ufeff\u2060\u00ad")).toBe("pay\\u{200B}pal\\u{FEFF}\\u{2060}\\u{AD}");
    // Tag characters smuggle invisible ASCII; variation selectors, U+034F and Mongolian ones too.
    expect(plainText("hi\u{e0049}\u{e0067}")).toBe("hi\\u{E0049}\\u{E0067}");
    expect(plainText("a\ufe00\u{e0100}\u034f\u180b\u180f\u200d")).toBe(
      "a\\u{FE00}\\u{E0100}\\u{34F}\\u{180B}\\u{180F}\\u{200D}",
    );
    expect(plainText("a\u2028b\u2029c")).toBe("a\nb\nc");
  });

  test("leaves ordinary text alone; an emoji's joiner and variation selector show as escapes", () => {
    for (const text of ["main", "feature/añadir-ü", "日本語", "👩 ok ✔", "a\tb\nc"]) expect(plainText(text)).toBe(text);
    expect(plainText("👩\u200d💻 ✔\ufe0f")).toBe("👩\\u{200D}💻 ✔\\u{FE0F}");
  });

  test("visible and visibleDeep escape controls and invisible characters, keep values without them as they are", () => {
    const clean = { a: ["x", { b: "y" }] };
    expect(visibleDeep(clean)).toBe(clean);
    expect(visibleDeep<unknown>({ "k\u200b": [`v${ESC}\u2060`, 1, null] })).toEqual({
      "k\\u{200B}": ["v\\u{1B}\\u{2060}", 1, null],
    });
    expect(visible("a\tb\nc")).toBe("a\tb\nc");
  });
});

describe("clip and scrubControl", () => {
  test("clip counts code points and never leaves half a surrogate pair", () => {
    expect(clip("abcdef", 6)).toBe("abcdef");
    expect(clip("abcdef", 4)).toBe("abc…");
    expect(clip("🔥🔥🔥", 3)).toBe("🔥🔥🔥");
    expect(clip("a🔥🔥🔥", 3)).toBe("a🔥…");
    for (let max = 1; max < 8; max++) {
      const cut = clip(`x${"\u{1F525}".repeat(8)}`, max);
      expect(cut).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/);
      expect(Array.from(cut)).toHaveLength(max);
    }
  });

  test("scrubControl turns every C0 and C1 control, newline and tab included, into a space", () => {
    expect(scrubControl(`a${ESC}]52;c\u0007b\n\tc\u0085d`)).toBe("a ]52;c b  c d");
  });
});

describe("quoting", () => {
  test("inline keeps one line; quoted cannot end its quote, start a line or be long", () => {
    expect(inline("a\nb\tc")).toBe("a b c");
    expect(quoted('say "hi"\n```\nnext')).toBe('"say \\"hi\\"\\n```\\nnext"');
    expect(quoted("x".repeat(500), 10)).toBe(`"${"x".repeat(9)}…"`);
    expect(quoted(`a${ESC}[31mb`)).toBe('"a[31mb"');
    expect(quoted("a\u202eb\u2028c")).toBe('"a\\u{202E}b\\nc"');
  });

  test("fenced chooses a fence longer than any run of backticks inside", () => {
    expect(fenced("a\n")).toBe("```\na\n```");
    expect(fenced("```\nIgnore\n`````")).toBe("``````\n```\nIgnore\n`````\n``````");
  });

  test("escapeInvisibles keeps the JSON value and escapes what a terminal would act on", () => {
    const value = { name: "a\u202eb\u0085\u{e0041}\u{e0100}\u034f", plain: "ok" };
    const json = escapeInvisibles(JSON.stringify(value));
    expect(json).toBe('{"name":"a\\u202eb\\u0085\\udb40\\udc41\\udb40\\udd00\\u034f","plain":"ok"}');
    expect(JSON.parse(json)).toEqual(value);
  });
});

describe("resource URIs", () => {
  test("branch-context URIs are matched by their ends: names with slashes parse, empty or long hostile ones do not", () => {
    const hostile = `twig://branch/${"%2Fcontext/".repeat(50_000)}x`;
    expect(parseTwigUri(hostile)).toBeNull();
    expect(parseTwigUri("twig://branch/feature%2Fauth/context")).toEqual({ kind: "context", branch: "feature/auth" });
    expect(parseTwigUri("twig://branch/feature/auth/context?repo=shop")).toEqual({
      kind: "context",
      branch: "feature/auth",
      repo: "shop",
    });
    expect(parseTwigUri("twig://branch//context")).toBeNull();
    expect(parseTwigUri("twig://branch/context")).toBeNull();
  });
});

describe("the stderr log", () => {
  test("a message quoting a hostile name is written without its control or bidi characters", () => {
    const lines: string[] = [];
    createLogger(0, (line) => lines.push(line)).warn(`branch 'a${ESC}]52;c;eA==\u0007\u202eb': bad\nsecond line`);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toEndWith("twig-mcp: branch 'a]52;c;eA==\\u{202E}b': bad\nsecond line\n");
  });
});
