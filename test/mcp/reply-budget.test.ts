import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import * as v from "valibot";
import { parseArgs } from "../../src/cli/args.ts";
import { toolError } from "../../src/core/errors.ts";
import { err, ok } from "../../src/core/result.ts";
import { DEFAULT_MAX_REPLY_TOKENS, MAX_REPLY_TOKENS_ENV, parseSetting, readSettings } from "../../src/core/settings.ts";
import {
  KNOWN_PUNCTUATION,
  KNOWN_WORDS,
  MOST_PER_CHARACTER,
  replyBudget,
  textUnits,
  UNITS_PER_TOKEN,
  unitsUpTo,
} from "../../src/mcp/reply-budget.ts";
import { okResult, ToolRegistry } from "../../src/mcp/tool-registry.ts";
import { defineTool, LOCAL_ANNOTATIONS, type ReplyBudget, type ToolDefinition } from "../../src/tools/shared/define.ts";
import { cutFields } from "../../src/tools/shared/paging.ts";
import { createTestContext } from "../support/context.ts";

const ctx = createTestContext({
  home: "/nonexistent",
  dirs: { configDir: "/x", dataDir: "/x", cacheDir: "/x" },
  repo: err(toolError("no_repo", "none")),
});
const signal = new AbortController().signal;

const Output = v.object({ items: v.array(v.string()), truncated: v.optional(v.literal(true)) });

/** Answers `size` items of 10 bytes each; `fit` keeps what fits, or misbehaves on request. */
function listTool(fit?: "keep" | "invalid" | "too-big"): ToolDefinition {
  return defineTool({
    name: "items",
    title: "Items",
    description: "Items",
    group: "local",
    input: v.object({ size: v.number() }),
    output: Output,
    annotations: LOCAL_ANNOTATIONS,
    async handler({ size }) {
      return ok({ items: Array.from({ length: size }, (_, i) => `item-${String(i).padStart(3, "0")}`) });
    },
    ...(fit === undefined
      ? {}
      : {
          fit(answer: v.InferOutput<typeof Output>, budget: { units: number }) {
            if (fit === "invalid") return { items: 42 } as never;
            if (fit === "too-big") return answer;
            // An item costs under 20 units by the registry's estimate, the wrapper under 60.
            const keep = Math.max(0, Math.floor((budget.units - 60) / 20));
            return { items: answer.items.slice(0, keep), truncated: true as const };
          },
        }),
  });
}

async function call(tool: ToolDefinition, size: number, tokens?: number) {
  const registry = new ToolRegistry([tool], new Set(), tokens);
  return registry.call(registry.get("items") as ToolDefinition, { size }, ctx, signal);
}

describe("the reply budget in the registry", () => {
  test("a reply within the budget is byte for byte the unbudgeted one", async () => {
    const within = await call(listTool("keep"), 50, 1000);
    const unlimited = await call(listTool("keep"), 50, 0);
    expect(within).toEqual(unlimited);
    expect(within.content[0]?.text).toBe(
      okResult(unlimited.structuredContent as Record<string, unknown>).content[0]?.text,
    );
  });

  test("over the budget, the tool's fit cuts the answer to at most the budget, validated", async () => {
    const reply = await call(listTool("keep"), 1000, 100);
    expect(reply.isError).toBe(false);
    expect(Buffer.byteLength(reply.content[0]?.text ?? "")).toBeLessThanOrEqual(300);
    const data = reply.structuredContent as v.InferOutput<typeof Output>;
    expect(data.truncated).toBe(true);
    expect(data.items.length).toBeGreaterThan(0);
    expect(data.items.length).toBeLessThan(1000);
  });

  test("a tool without fit that is over gets reply_too_large naming the budget and how to raise it", async () => {
    const reply = await call(listTool(), 1000, 100);
    expect(reply.isError).toBe(true);
    const { error } = JSON.parse(reply.content[0]?.text ?? "{}");
    expect(error.code).toBe("reply_too_large");
    expect(error.message).toContain("over the reply budget of 100 tokens");
    expect(error.hint).toContain("--max-reply-tokens");
    expect(error.hint).toContain(MAX_REPLY_TOKENS_ENV);
  });

  test("reply_too_large states the whole answer's size, however far over the budget it is", async () => {
    const reply = await call(listTool(), 10_000, 100);
    const items = Array.from({ length: 10_000 }, (_, i) => `item-${String(i).padStart(3, "0")}`);
    const tokens = Math.ceil(textUnits(JSON.stringify({ items })) / UNITS_PER_TOKEN);
    const stillOver = await call(listTool("too-big"), 10_000, 100);
    for (const refused of [reply, stillOver]) {
      const { error } = JSON.parse(refused.content[0]?.text ?? "{}");
      expect(error.message).toContain(`answer is about ${tokens.toLocaleString("en-US")} tokens`);
    }
  });

  test("a fit that is still over, or invalid, is never sent", async () => {
    const over = await call(listTool("too-big"), 1000, 100);
    expect(JSON.parse(over.content[0]?.text ?? "{}").error.code).toBe("reply_too_large");
    const invalid = await call(listTool("invalid"), 1000, 100);
    expect(JSON.parse(invalid.content[0]?.text ?? "{}").error.code).toBe("internal");
  });

  test("a declared list is cut at its end to the largest prefix that fits, counting what an earlier page left out", async () => {
    const Paged = v.object({
      items: v.array(v.string()),
      next: v.optional(v.string()),
      ...cutFields(["items"]),
    });
    const paged = defineTool({
      name: "items",
      title: "Items",
      description: "Items",
      group: "local",
      input: v.object({ size: v.number() }),
      output: Paged,
      async handler({ size }) {
        const items = Array.from({ length: size }, (_, i) => `item-${String(i).padStart(4, "0")}`);
        return ok({ items, omitted: { items: 7 } });
      },
      cut: {
        list: "items",
        min: 1,
        rest: (answer, kept, left) => ({ next: answer.items[kept - 1], hint: `${left} more` }),
      },
    });
    const registry = new ToolRegistry([paged], new Set(), 100);
    const budget = replyBudget(100) as ReplyBudget;
    const reply = await registry.call(paged, { size: 1000 }, ctx, signal);
    expect(reply.isError).toBe(false);
    const data = reply.structuredContent as v.InferOutput<typeof Paged>;
    const kept = data.items.length;
    expect(kept).toBeGreaterThan(0);
    expect(data).toEqual({
      items: data.items,
      truncated: true,
      omitted: { items: 7 + 1000 - kept },
      next: `item-${String(kept - 1).padStart(4, "0")}`,
      hint: `${7 + 1000 - kept} more`,
    });
    expect(budget.size(data)).toBeLessThanOrEqual(budget.units);
    // The largest prefix: one more item would not fit.
    const more = { ...data, items: [...data.items, "item-9999"], omitted: { items: 1006 - kept } };
    expect(budget.size(more)).toBeGreaterThan(budget.units);
    // A tool that cuts its list can fill the budget: it is published with Claude Code's size hint.
    expect(new ToolRegistry([paged], new Set(), 20_000).list()[0]?._meta).toHaveProperty(
      "anthropic/maxResultSizeChars",
    );
  });

  test("0 means unlimited; the default is 20,000 tokens", async () => {
    const whole = await call(listTool(), 10_000, 0);
    expect(whole.isError).toBe(false);
    expect((whole.structuredContent as { items: unknown[] }).items).toHaveLength(10_000);
    // 10,000 items are about 110 KB: over the default.
    const refused = await call(listTool(), 10_000);
    expect(JSON.parse(refused.content[0]?.text ?? "{}").error.message).toContain("20,000 tokens");
  });
});

describe("choosing the budget", () => {
  test("the environment's budget, else the default; a bad value is reported (the flag wins: test/e2e/reply-budget)", () => {
    const warnings: string[] = [];
    const warn = (message: string) => warnings.push(message);
    expect(readSettings({ [MAX_REPLY_TOKENS_ENV]: "5000" }, warn).maxReplyTokens).toBe(5000);
    expect(readSettings({}, warn).maxReplyTokens).toBe(DEFAULT_MAX_REPLY_TOKENS);
    expect(warnings).toEqual([]);
    expect(readSettings({ [MAX_REPLY_TOKENS_ENV]: "lots" }, warn).maxReplyTokens).toBe(DEFAULT_MAX_REPLY_TOKENS);
    expect(warnings[0]).toContain(MAX_REPLY_TOKENS_ENV);
  });

  test("a token count is a whole number", () => {
    expect(parseSetting("maxReplyTokens", "40000")).toBe(40000);
    expect(parseSetting("maxReplyTokens", "0")).toBe(0);
    for (const bad of ["-1", "1.5", "1e6", "", "twenty", "9999999999"])
      expect(parseSetting("maxReplyTokens", bad)).toBeNull();
  });

  test("--max-reply-tokens on the command line", () => {
    const given = parseArgs(["--max-reply-tokens", "5000"]);
    expect(given.ok && given.value.command === "serve" && given.value.maxReplyTokens).toBe(5000);
    const inline = parseArgs(["call", "list_branches", "--max-reply-tokens=0"]);
    expect(inline.ok && inline.value.command === "call" && inline.value.maxReplyTokens).toBe(0);
    const bad = parseArgs(["--max-reply-tokens", "many"]);
    expect(!bad.ok && bad.error.message).toContain("--max-reply-tokens takes a whole number");
  });
});

describe("unitsUpTo", () => {
  // Pieces that cost the most per character: single characters of each class, known runs, and
  // characters outside ASCII of every UTF-8 length (box-drawing and surrogate pairs included).
  const piece = fc.oneof(
    fc.constantFrom(...KNOWN_WORDS.keys(), ...KNOWN_PUNCTUATION.keys(), "│", "├", "─", "é", "語", "😀", "A", "7", " "),
    fc.string({ unit: "binary", maxLength: 4 }),
    fc.string({ unit: "grapheme-ascii", maxLength: 4 }),
  );
  const text = fc.array(piece, { maxLength: 80 }).map((parts) => parts.join(""));

  test("no text costs more than MOST_PER_CHARACTER a UTF-16 code unit", () => {
    fc.assert(
      fc.property(text, (s) => textUnits(s) <= MOST_PER_CHARACTER * s.length),
      { numRuns: 2000 },
    );
  });

  test("falls on the same side of the limit as the estimate itself", () => {
    fc.assert(
      fc.property(text, fc.nat(1500), (s, limit) => unitsUpTo(s, limit) <= limit === textUnits(s) <= limit),
      { numRuns: 2000 },
    );
  });
});
