/**
 * The reply budget's estimate against the real tokenizer: on every corpus it is at least the
 * count (so a reply within the budget is within it by the client's count too), and on ordinary
 * JSON not so far above that replies shrink for nothing.
 */
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { readFileSync } from "node:fs";
import fc from "fast-check";
import { planBranches } from "../../bench/lib/repo-gen.ts";
import { KNOWN_PUNCTUATION, KNOWN_WORDS, textUnits, UNITS_PER_TOKEN } from "../../src/mcp/reply-budget.ts";
import { countTokens } from "../support/tokens.ts";

// The tokenizer takes seconds over these corpora on a busy machine.
setDefaultTimeout(120_000);

const estimate = (text: string) => textUnits(text) / UNITS_PER_TOKEN;

function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) & 0x7fffffff;
    return state / 0x7fffffff;
  };
}
const next = random(42);
const pick = (alphabet: readonly string[], length: number) =>
  Array.from({ length }, () => alphabet[Math.floor(next() * alphabet.length)]).join("");

const chars = (text: string) => [...text];
const HEX = chars("0123456789abcdef");
const BASE64 = chars("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=");
const CJK = Array.from({ length: 3000 }, (_, i) => String.fromCodePoint(0x4e00 + i * 7));
const HANGUL = Array.from({ length: 3000 }, (_, i) => String.fromCodePoint(0xac00 + i * 3));
const EMOJI = [...Array.from({ length: 200 }, (_, i) => String.fromCodePoint(0x1f300 + i)), "👩‍💻", "✔️"];

const LOWER = chars("abcdefghijklmnopqrstuvwxyz");
const join = (parts: number, length: number, separator: string) =>
  Array.from({ length: parts }, () => pick(LOWER, length)).join(separator);

/** list_branches-shaped JSON of `count` records named by `name`. */
function listOf(name: (i: number) => string, count = 1500): string {
  const branches = Array.from({ length: count }, (_, i) => ({
    branch: name(i),
    jira_issue: `SHOP-${i}`,
    pr_number: i,
    parent_branch: "main",
    created_at: "2025-10-01T12:00:00Z",
  }));
  return JSON.stringify({ branches });
}

const plans = planBranches(1500);
const CORPORA: Record<string, string> = {
  ordinary: listOf((i) => plans[i]?.name ?? "main"),
  "hex and base64": listOf(() => `u/${pick(HEX, 12)}/${pick(BASE64, 10)}`),
  hex: listOf(() => pick(HEX, 40)),
  base64: listOf(() => pick(BASE64, 40)),
  lowercase: listOf(() => pick(LOWER, 30)),
  "long lowercase runs": listOf(() => pick(LOWER, 200), 300),
  "short lowercase runs": listOf(() => join(40, 5, "-"), 200),
  "three-letter runs": listOf(() => join(60, 3, "."), 200),
  "long capital runs": listOf(() => pick(chars("ABCDEFGHIJKLMNOPQRSTUVWXYZ"), 64)),
  "long digit runs": listOf(() => pick(chars("0123456789"), 64)),
  "long punctuation runs": listOf(() => `x${pick(chars("!#$%&'()*+,-.:;<=>?@[]^_{|}~"), 64)}`),
  CJK: listOf(() => `機能/${pick(CJK, 10)}`),
  Hangul: listOf(() => pick(HANGUL, 12)),
  emoji: listOf(() => `e/${pick(EMOJI, 8)}`),
  digits: listOf(() => pick(chars("0123456789"), 30)),
  punctuation: listOf(() => pick(chars("!#$%&'()*+,-.:;<=>?@[]^_`{|}~"), 30)),
  escapes: listOf(() => `x/${pick(["a", "b"], 6)}\\u{200D}\\u{E0041}`),
  "private use": listOf(() => pick(["\uE000", "\uE123", "a"], 20)),
  alternating: listOf(() => "0a+B".repeat(8)),
  "GitHub API": readFileSync(new URL("../github/fixtures/github-openapi-examples.json", import.meta.url), "utf8").slice(
    0,
    200_000,
  ),
  "drawn tree": plans.map((plan) => `${"│   ".repeat(plan.depth)}├── ${plan.name} (SHOP-1, #2)`).join("\n"),
};

describe("the reply budget's token estimate", () => {
  for (const [name, text] of Object.entries(CORPORA)) {
    test(`${name}: at least the tokenizer's count`, () => {
      const tokens = countTokens(text);
      const estimated = estimate(text);
      expect(estimated).toBeGreaterThanOrEqual(tokens);
      // Ordinary replies keep most of their room.
      if (name === "ordinary") expect(estimated / tokens).toBeLessThan(1.2);
      if (name === "drawn tree") expect(estimated / tokens).toBeLessThan(1.45);
    });
  }

  test("known words and punctuation cost what the tokenizer says, quoted as in JSON", () => {
    for (const [word, tokens] of KNOWN_WORDS) expect([word, countTokens(`"${word}"`) - 2]).toEqual([word, tokens]);
    for (const [run, tokens] of KNOWN_PUNCTUATION) expect([run, countTokens(`a${run}b`) - 2]).toEqual([run, tokens]);
  });

  test("random names from mixed alphabets, runs of one character included: at least the tokenizer's count", () => {
    const alphabet = [...HEX, ...BASE64, ...CJK.slice(0, 50), ...EMOJI.slice(0, 50), "/", "-", "_", ".", " ", "│"];
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...alphabet), { minLength: 200, maxLength: 600 }), (parts) => {
        const text = JSON.stringify({ branch: parts.join("") });
        expect(estimate(text)).toBeGreaterThanOrEqual(countTokens(text));
      }),
      { numRuns: 200 },
    );
  });
});
