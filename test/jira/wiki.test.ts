import { describe, expect, setDefaultTimeout, test } from "bun:test";
import fc from "fast-check";
import { MAX_TABLE_COLUMNS } from "../../src/jira/adf.ts";
import { renderWiki } from "../../src/jira/wiki.ts";
import { RICH_WIKI, RICH_WIKI_TEXT } from "./fixtures/rich-wiki.ts";

const wikiToText = (source: string) => renderWiki(source, Number.POSITIVE_INFINITY).text;

// Property runs are CPU-bound: their hundreds of cases take seconds on a busy machine, beyond bun's 5 s default.
setDefaultTimeout(60_000);

describe("wikiToText", () => {
  test("rich description: headings, emphasis, lists, code, quotes, tables, links, mentions, images", () => {
    expect(wikiToText(RICH_WIKI)).toBe(RICH_WIKI_TEXT);
  });

  test("headings h1.–h6.", () => {
    expect(wikiToText("h1. One\nh6.Six")).toBe("# One\n###### Six");
  });

  test("ordered lists count per level and restart after other text", () => {
    expect(wikiToText("# a\n# b\n## b1\n## b2\n# c\n\n# again")).toBe(
      "1. a\n2. b\n   1. b1\n   2. b2\n3. c\n\n1. again",
    );
  });

  test("dash bullets, and a bold start of line is not a list", () => {
    expect(wikiToText("- one\n- two\n*Note:* text")).toBe("- one\n- two\n**Note:** text");
  });

  test("code parameters: language, title and language= forms", () => {
    expect(wikiToText("{code:title=Foo.java|borderStyle=solid}\nx\n{code}")).toBe("```\nx\n```");
    expect(wikiToText("{code:language=python|title=a}\nx\n{code}")).toBe("```python\nx\n```");
    expect(wikiToText("{code:sql}SELECT 1{code}")).toBe("```sql\nSELECT 1\n```");
  });

  test("unclosed code block runs to the end; markup inside is untouched", () => {
    expect(wikiToText("before\n{code}\n*x* [a|b]\nh1. no")).toBe("before\n\n```\n*x* [a|b]\nh1. no\n```");
  });

  test("code containing a fence gets a longer fence", () => {
    expect(wikiToText("{noformat}\n```\n{noformat}")).toBe("````\n```\n````");
  });

  test("links: label|url, bare url, mention with account id, anchors, attachments, plain brackets", () => {
    expect(
      wikiToText(
        "[Docs|https://d.example/a_b|tip] [https://x.example] [~accountid:5b10a28] [#anchor] [^log.txt] [WIP]",
      ),
    ).toBe("[Docs](https://d.example/a_b) https://x.example @accountid:5b10a28 #anchor [attachment: log.txt] [WIP]");
  });

  test("emphasis does not reach inside words, URLs or code", () => {
    expect(wikiToText("a*b*c file_name_here 2*3*4 {{*x*}} http://h/_a_")).toBe(
      "a*b*c file_name_here 2*3*4 `*x*` http://h/_a_",
    );
  });

  test("tables without a header row still get a separator", () => {
    expect(wikiToText("|a|b|\n|c|d|\nafter")).toBe("| a | b |\n| --- | --- |\n| c | d |\n\nafter");
  });

  test("panel titles are kept, colour macros dropped", () => {
    expect(wikiToText("{panel:title=Heads up|borderStyle=dashed}\nBody {color:#ff0000}red{color}\n{panel}")).toBe(
      "**Heads up**\n\nBody red",
    );
  });

  test("plain text passes through", () => {
    expect(wikiToText("Just a sentence.\n\nAnother one, with (parentheses) and 3 - 2 = 1.")).toBe(
      "Just a sentence.\n\nAnother one, with (parentheses) and 3 - 2 = 1.",
    );
  });

  test("placeholder characters in the input cannot smuggle shelved text", () => {
    expect(wikiToText("\uE0000\uE001 {{x}}")).toBe("0 `x`");
  });

  test("monospace of the words code, noformat and quote is not a block", () => {
    expect(wikiToText("use {{code}}, {{noformat}} and {{quote}}")).toBe("use `code`, `noformat` and `quote`");
  });

  test("property: never throws on arbitrary text", () => {
    const markup = fc.string({
      unit: fc.constantFrom(
        "*",
        "_",
        "-",
        "+",
        "{",
        "}",
        "[",
        "]",
        "|",
        "!",
        "#",
        "~",
        "^",
        "\\",
        "\n",
        " ",
        "a",
        "h1. ",
        "{code}",
        "{quote}",
        "||",
        "{{",
        "}}",
        "\uE000",
        "\uE001",
        "1",
      ),
    });
    fc.assert(
      fc.property(fc.oneof(markup, fc.string({ unit: "binary" })), (text) => {
        expect(typeof wikiToText(text)).toBe("string");
      }),
      { numRuns: 1000 },
    );
  });

  test("property: text without markup characters is unchanged apart from trailing spaces", () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[A-Za-z0-9 ,.;:]{0,60}$/), (text) => {
        expect(wikiToText(text)).toBe(text.trimEnd());
      }),
    );
  });
});

describe("hostile markup stays linear", () => {
  // Each input took quadratic time with a pattern that retried from every opener: at this size,
  // minutes. The limit only catches that; linear conversion takes milliseconds.
  const LINEAR = 20_000;
  const cases: Array<[string, string]> = [
    ["unclosed {{ openers", "{{a ".repeat(300_000)],
    ["{code: openers with no closing brace", "{code:x ".repeat(150_000)],
    ["{panel: openers with no closing brace", "{panel:title=x ".repeat(100_000)],
    ["{color: openers with no closing brace", "{color:red ".repeat(120_000)],
  ];
  for (const [name, text] of cases) {
    test(
      name,
      () => {
        const out = wikiToText(text);
        // Nothing was taken for markup: the words are all still there.
        expect(out.length).toBeGreaterThan(text.length / 2);
      },
      LINEAR,
    );
  }
});

describe("renderWiki under a budget", () => {
  test("whole within the budget, cut near it beyond", () => {
    expect(renderWiki("h1. Title\n* one", 1_000)).toEqual({ text: wikiToText("h1. Title\n* one"), complete: true });
    const long = Array.from({ length: 10_000 }, (_, i) => `line *${i}*`).join("\n");
    const cut = renderWiki(long, 1_000);
    expect(cut.complete).toBe(false);
    expect(cut.text.length).toBeLessThanOrEqual(1_001);
    expect(wikiToText(long).startsWith(cut.text)).toBe(true);
  });

  test("table rows keep at most MAX_TABLE_COLUMNS cells of at most 500 characters", () => {
    const text = wikiToText(`|${"c|".repeat(100)}\n|${"z".repeat(5_000)}|`);
    const [first, , second] = text.split("\n");
    expect(first?.split(" | ")).toHaveLength(MAX_TABLE_COLUMNS);
    expect(second?.length).toBeLessThan(510);
  });
});
