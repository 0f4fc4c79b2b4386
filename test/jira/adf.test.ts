import { describe, expect, setDefaultTimeout, test } from "bun:test";
import fc from "fast-check";
import { MAX_TABLE_COLUMNS, renderAdf } from "../../src/jira/adf.ts";
import { RICH_ADF, RICH_ADF_TEXT } from "./fixtures/rich-adf.ts";

const adfToText = (document: unknown) => renderAdf(document, Number.POSITIVE_INFINITY).text;

// Property runs are CPU-bound: their hundreds of cases take seconds on a busy machine, beyond bun's 5 s default.
setDefaultTimeout(60_000);

const doc = (...content: unknown[]) => ({ version: 1, type: "doc", content });
const p = (...content: unknown[]) => ({ type: "paragraph", content });
const t = (text: string, ...marks: unknown[]) =>
  marks.length ? { type: "text", text, marks } : { type: "text", text };
const li = (...content: unknown[]) => ({ type: "listItem", content });

describe("adfToText", () => {
  test("rich document: headings, nested lists, code, panel, quote, table, tasks, media, cards, unknown nodes", () => {
    expect(adfToText(RICH_ADF)).toBe(RICH_ADF_TEXT);
  });

  test("non-documents degrade to empty text", () => {
    for (const value of [null, undefined, 42, "text", [], {}, { type: "doc" }, { type: "doc", content: "nope" }]) {
      expect(adfToText(value)).toBe("");
    }
  });

  test("malformed children are skipped, not fatal", () => {
    expect(adfToText(doc(null, 7, "x", p(t("kept"), null, { text: 3 }), { content: [p(t("typeless"))] }))).toBe(
      "kept\n\ntypeless",
    );
  });

  test("ordered lists honour attrs.order; bullets nest under numbers", () => {
    const list = {
      type: "orderedList",
      attrs: { order: 3 },
      content: [li(p(t("three")), { type: "bulletList", content: [li(p(t("sub")))] }), li(p(t("four")))],
    };
    expect(adfToText(doc(list))).toBe("3. three\n   - sub\n4. four");
  });

  test("multi-paragraph list items stay inside the item", () => {
    const list = { type: "bulletList", content: [li(p(t("first")), p(t("second line")))] };
    expect(adfToText(doc(list))).toBe("- first\n  second line");
  });

  test("nested task lists", () => {
    const tasks = {
      type: "taskList",
      content: [
        { type: "taskItem", attrs: { state: "TODO" }, content: [t("parent")] },
        { type: "taskList", content: [{ type: "taskItem", attrs: { state: "DONE" }, content: [t("child")] }] },
      ],
    };
    expect(adfToText(doc(tasks))).toBe("- [ ] parent\n  - [x] child");
  });

  test("code block containing a fence gets a longer fence", () => {
    const code = { type: "codeBlock", content: [t("```\ninner\n```")] };
    expect(adfToText(doc(code))).toBe("````\n```\ninner\n```\n````");
  });

  test("inline code containing backticks", () => {
    expect(adfToText(doc(p(t("a `b` c", { type: "code" }))))).toBe("``a `b` c``");
  });

  test("marks keep surrounding spaces outside; link whose text is the URL stays bare", () => {
    const link = { type: "link", attrs: { href: "https://example.com" } };
    expect(adfToText(doc(p(t(" bold ", { type: "strong" }), t("https://example.com", link))))).toBe(
      "**bold** https://example.com",
    );
    expect(adfToText(doc(p(t("x", { type: "strong" }, { type: "em" }, link))))).toBe("[***x***](https://example.com)");
  });

  test("mentions and emoji without display text", () => {
    expect(
      adfToText(doc(p({ type: "mention", attrs: { id: "123" } }, t(" "), { type: "mention", attrs: { text: "Bob" } }))),
    ).toBe("@unknown @Bob");
    expect(adfToText(doc(p({ type: "emoji", attrs: { shortName: ":custom-party:" } })))).toBe(":custom-party:");
  });

  test("table with colspan and a missing header row still forms a valid grid", () => {
    const cell = (text: string, attrs: object = {}) => ({ type: "tableCell", attrs, content: [p(t(text))] });
    const table = {
      type: "table",
      content: [
        { type: "tableRow", content: [cell("a", { colspan: 2 }), cell("b")] },
        { type: "tableRow", content: [cell("c"), cell("d\nmulti")] },
      ],
    };
    expect(adfToText(doc(table))).toBe("| a | | b |\n| --- | --- | --- |\n| c | d multi | |");
  });

  test("heading levels are clamped; hard breaks inside headings become spaces", () => {
    expect(
      adfToText(doc({ type: "heading", attrs: { level: 9 }, content: [t("a"), { type: "hardBreak" }, t("b")] })),
    ).toBe("###### a b");
    expect(adfToText(doc({ type: "heading", content: [t("x")] }))).toBe("# x");
  });

  test("external media and block cards", () => {
    expect(
      adfToText(
        doc(
          {
            type: "mediaSingle",
            content: [{ type: "media", attrs: { type: "external", url: "https://img.example/a.png" } }],
          },
          { type: "blockCard", attrs: { url: "https://example.com/card" } },
          { type: "extension", attrs: { extensionKey: "jira-chart" } },
        ),
      ),
    ).toBe("![image](https://img.example/a.png)\n\nhttps://example.com/card\n\n[jira-chart]");
  });

  test("pathologically deep nesting is cut off, not a stack overflow", () => {
    let node: unknown = p(t("deep"));
    for (let i = 0; i < 200_000; i++) node = { type: "blockquote", content: [node] };
    const text = adfToText(doc(node));
    expect(text).toContain("…");
    expect(text).not.toContain("deep");
  });

  test("property: arbitrary JSON never throws and yields a string", () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 6 }), (value) => {
        expect(typeof adfToText(value)).toBe("string");
        expect(typeof adfToText({ type: "doc", content: [value] })).toBe("string");
      }),
      { numRuns: 500 },
    );
  });

  test("property: plain paragraphs keep their text", () => {
    fc.assert(
      fc.property(fc.array(fc.stringMatching(/^[a-zA-Z0-9 ,.]{1,30}$/), { minLength: 1, maxLength: 5 }), (texts) => {
        const expected = texts.map((s) => s.trim()).filter((s) => s !== "");
        expect(adfToText(doc(...texts.map((s) => p(t(s)))))).toBe(expected.join("\n\n"));
      }),
    );
  });
});

describe("untrusted padding", () => {
  test("a long run of blanks inside a line is kept and one at a line's end is trimmed, in linear time", () => {
    // Quadratic trimming would take minutes on 400,000 blanks: the test would time out.
    const run = " \t".repeat(200_000);
    const text = adfToText({
      type: "doc",
      version: 1,
      content: [{ type: "paragraph", content: [{ type: "text", text: `a${run}b${run}` }] }],
    });
    expect(text).toBe(`a${run}b`);
  });
});

describe("nesting", () => {
  test("a bullet list nested 30 deep keeps its innermost item: a list costs one level of the depth cap", () => {
    let node: Record<string, unknown> = { type: "paragraph", content: [{ type: "text", text: "deepest" }] };
    for (let level = 0; level < 30; level++) {
      node = { type: "bulletList", content: [{ type: "listItem", content: [node] }] };
    }
    const text = adfToText({ type: "doc", version: 1, content: [node] });
    expect(text).toContain("deepest");
    expect(text).not.toContain("…");
  });
});

describe("renderAdf under a budget", () => {
  const cell = (text: string, attrs: object = {}) => ({ type: "tableCell", attrs, content: [p(t(text))] });
  const row = (...cells: unknown[]) => ({ type: "tableRow", content: cells });

  test("a document within the budget renders whole, as adfToText does", () => {
    const document = doc(p(t("short")), { type: "bulletList", content: [li(p(t("item")))] });
    expect(renderAdf(document, 1_000)).toEqual({ text: adfToText(document), complete: true });
  });

  test("rendering stops near the budget, whatever the document multiplies", () => {
    const paragraphs = doc(...Array.from({ length: 10_000 }, (_, i) => p(t(`paragraph ${i}`))));
    const cut = renderAdf(paragraphs, 1_000);
    expect(cut.complete).toBe(false);
    expect(cut.text.length).toBeLessThan(2_100);
    expect(adfToText(paragraphs).startsWith(cut.text)).toBe(true);

    const huge = doc(p(t("x".repeat(1_000_000))));
    expect(renderAdf(huge, 500).text.length).toBeLessThanOrEqual(501);
  });

  test("tables: at most MAX_TABLE_COLUMNS columns, cells clipped, rows stop at the budget", () => {
    const wide = doc({
      type: "table",
      content: [
        row(...Array(200).fill(cell("h", { colspan: 64 }))),
        ...Array(5_000).fill(row(cell("y".repeat(2_000)))),
      ],
    });
    const cut = renderAdf(wide, 20_000);
    expect(cut.complete).toBe(false);
    const lines = cut.text.split("\n");
    expect(lines[1]).toBe(`|${" --- |".repeat(MAX_TABLE_COLUMNS)}`);
    expect(Math.max(...lines.map((line) => line.length))).toBeLessThan(MAX_TABLE_COLUMNS * 4 + 510);
    expect(cut.text.length).toBeLessThan(45_000);
  });
});
