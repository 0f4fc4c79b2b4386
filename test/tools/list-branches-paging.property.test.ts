import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import * as v from "valibot";
import { ok } from "../../src/core/result.ts";
import { compareBytewise } from "../../src/git/bytewise.ts";
import { textUnits } from "../../src/mcp/reply-budget.ts";
import { ToolRegistry } from "../../src/mcp/tool-registry.ts";
import { localTools } from "../../src/tools/all.ts";
import type { ToolDefinition } from "../../src/tools/shared/define.ts";
import { twigDirs } from "../../src/twig/dirs.ts";
import { createTestContext } from "../support/context.ts";
import { makeRepo } from "../support/git-repo.ts";

const repo = makeRepo({ commit: true });
const commit = repo.git("rev-parse", "HEAD");
afterAll(() => repo.cleanup());

interface Branch {
  name: string;
  jira: string | null;
}

function writeState(branches: readonly Branch[]): void {
  const records = Object.fromEntries(
    branches.map(({ name, jira }) => [
      name,
      { branch: name, jira_issue: jira, github_pr: null, created_at: "2025-06-01T10:00:00Z" },
    ]),
  );
  repo.write(
    ".twig/state.json",
    JSON.stringify({
      version: 1,
      updated_at: "2025-06-01T10:00:00Z",
      worktrees: [],
      branches: records,
      dependencies: [],
      root_branches: [],
    }),
  );
}

// A fresh context per call: every page reads the state file as it is now.
function context() {
  return createTestContext({
    home: repo.sandbox,
    dirs: twigDirs({}, "linux", repo.sandbox),
    repo: ok(repo.root),
  });
}

const signal = new AbortController().signal;

interface Page {
  branches: Array<{ branch: string }>;
  next_cursor?: string;
}

/** Calls list_branches through the registry; checks the reply's size and schema on the way. */
async function page(registry: ToolRegistry, budgetUnits: number, args: Record<string, unknown>): Promise<Page> {
  const tool = registry.get("list_branches") as ToolDefinition;
  const result = await registry.call(tool, args, context(), signal);
  const text = result.content[0]?.text ?? "";
  if (result.isError) throw new Error(`list_branches failed: ${text}`);
  expect(textUnits(text)).toBeLessThanOrEqual(budgetUnits);
  expect(v.safeParse(tool.output, result.structuredContent).success).toBe(true);
  return result.structuredContent as unknown as Page;
}

// Names mixing ASCII, a two-byte letter and an astral emoji: UTF-16 and byte order disagree on them.
const nameArb = fc
  .array(fc.constantFrom("a", "b", "z", "/", "-", "0", "é", "😀", "ｚ"), { minLength: 1, maxLength: 10 })
  .map((parts) => parts.join(""));
const branchesArb = fc.uniqueArray(
  fc.record({ name: nameArb, jira: fc.option(fc.constantFrom("AB-1", "AB-12", "ZED-7"), { nil: null }) }),
  { selector: (branch) => branch.name, maxLength: 80 },
);
const queryArb = fc.option(fc.constantFrom("a", "é", "😀", "ab-1", "Z", "/"), { nil: undefined });

function matches(branch: Branch, query: string | undefined): boolean {
  if (query === undefined) return true;
  const needle = query.toLowerCase();
  return branch.name.toLowerCase().includes(needle) || (branch.jira?.toLowerCase().includes(needle) ?? false);
}

describe("list_branches paging (property)", () => {
  test("for random state, budgets and limits the pages partition the matching tracked branches, in byte order", async () => {
    await fc.assert(
      fc.asyncProperty(
        branchesArb,
        fc.integer({ min: 250, max: 3000 }),
        fc.option(fc.integer({ min: 1, max: 30 }), { nil: undefined }),
        queryArb,
        async (branches, tokens, limit, query) => {
          writeState(branches);
          const registry = new ToolRegistry(localTools, new Set(), tokens);
          const seen: string[] = [];
          let cursor: string | undefined;
          for (let n = 0; n <= branches.length + 1; n++) {
            const args: Record<string, unknown> = {};
            if (limit !== undefined) args.limit = limit;
            if (query !== undefined) args.query = query;
            if (cursor !== undefined) args.cursor = cursor;
            const reply = await page(registry, tokens * 3, args);
            seen.push(...reply.branches.map((record) => record.branch));
            cursor = reply.next_cursor;
            if (cursor === undefined) break;
          }
          const expected = branches
            .filter((branch) => matches(branch, query))
            .map((branch) => branch.name)
            .sort(compareBytewise);
          expect(seen).toEqual(expected);
        },
      ),
      { numRuns: 60 },
    );
  });

  test("when branches come and go between pages, every branch there throughout is visited exactly once", async () => {
    await fc.assert(
      fc.asyncProperty(
        branchesArb,
        branchesArb,
        fc.integer({ min: 250, max: 1500 }),
        fc.integer({ min: 1, max: 10 }),
        async (stable, churn, tokens, limit) => {
          const stableNames = new Set(stable.map((branch) => branch.name));
          const extra = churn.filter((branch) => !stableNames.has(branch.name));
          const registry = new ToolRegistry(localTools, new Set(), tokens);
          const seen: string[] = [];
          let cursor: string | undefined;
          for (let n = 0; n <= stable.length + extra.length + 1; n++) {
            // Each page sees another state: the churn branches appear and disappear in turn.
            writeState([...stable, ...extra.filter((_, i) => (i + n) % 2 === 0)]);
            const reply = await page(registry, tokens * 3, cursor === undefined ? { limit } : { limit, cursor });
            seen.push(...reply.branches.map((record) => record.branch));
            cursor = reply.next_cursor;
            if (cursor === undefined) break;
          }
          expect(new Set(seen).size).toBe(seen.length);
          for (let i = 1; i < seen.length; i++) {
            expect(compareBytewise(seen[i - 1] as string, seen[i] as string)).toBeLessThan(0);
          }
          for (const name of stableNames) expect(seen).toContain(name);
        },
      ),
      { numRuns: 25 },
    );
  }, 60_000);
});

describe("get_branch_tree under random budgets (property)", () => {
  test("every reply fits and validates, and keeps the checked-out branch with the path to it", async () => {
    const outcomes = { cut: 0, whole: 0, refused: 0 };
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 150 }),
        fc.func(fc.nat()),
        fc.nat(),
        fc.integer({ min: 300, max: 4000 }),
        fc.option(fc.integer({ min: 0, max: 4 }), { nil: undefined }),
        async (count, parentPick, headPick, tokens, depth) => {
          // A forest: branch i hangs under an earlier branch or is parentless (then under main).
          const names = Array.from({ length: count }, (_, i) => `b${String(i).padStart(3, "0")}`);
          const dependencies = names.slice(1).flatMap((child, i) => {
            const pick = parentPick(i) % (i + 2);
            return pick === i + 1 ? [] : [{ child, parent: names[pick] as string }];
          });
          const heads = join(repo.root, ".git", "refs", "heads");
          rmSync(heads, { recursive: true, force: true });
          mkdirSync(heads, { recursive: true });
          for (const name of ["main", ...names]) writeFileSync(join(heads, name), `${commit}\n`);
          const head = names[headPick % count] as string;
          writeFileSync(join(repo.root, ".git", "HEAD"), `ref: refs/heads/${head}\n`);
          repo.write(
            ".twig/state.json",
            JSON.stringify({
              version: 1,
              updated_at: "2025-06-01T10:00:00Z",
              worktrees: [],
              branches: {},
              dependencies: dependencies.map((dep, i) => ({
                id: String(i),
                ...dep,
                created_at: "2025-06-01T10:00:00Z",
              })),
              root_branches: [{ id: "r", branch: "main", is_default: true, created_at: "2025-06-01T10:00:00Z" }],
            }),
          );
          const registry = new ToolRegistry(localTools, new Set(), tokens);
          const tool = registry.get("get_branch_tree") as ToolDefinition;
          const result = await registry.call(tool, depth === undefined ? {} : { depth }, context(), signal);
          const text = result.content[0]?.text ?? "";
          if (result.isError) {
            // Only a budget too small for the kept path itself may be refused, and then as such.
            expect(JSON.parse(text).error.code).toBe("reply_too_large");
            outcomes.refused++;
            return;
          }
          expect(textUnits(text)).toBeLessThanOrEqual(tokens * 3);
          expect(v.safeParse(tool.output, result.structuredContent).success).toBe(true);
          const data = result.structuredContent as { tree_text: string; truncated?: true };
          const drawn = data.tree_text.split("\n").map((line) => line.replace(/^[│├└─\s]+/u, "").split(" ")[0]);
          if (data.truncated && depth === undefined) {
            // The path from main to HEAD, by first parents.
            const parentOf = new Map(dependencies.map((dep) => [dep.child, dep.parent]));
            for (let at: string | undefined = head; at !== undefined; at = parentOf.get(at))
              expect(drawn).toContain(at);
          }
          if (!data.truncated) expect(data.tree_text).not.toContain("more branch");
          outcomes[data.truncated ? "cut" : "whole"]++;
        },
      ),
      { numRuns: 25, seed: 1616 },
    );
    // The runs did reach the cutting: most replies were cut, and few were refused.
    expect(outcomes.cut).toBeGreaterThan(outcomes.refused);
  }, 60_000);
});
