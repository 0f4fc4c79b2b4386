import { afterAll, expect, test } from "bun:test";
import * as v from "valibot";
import { ok } from "../../src/core/result.ts";
import { ToolRegistry } from "../../src/mcp/tool-registry.ts";
import { allTools, localTools } from "../../src/tools/all.ts";
import type { ToolDefinition } from "../../src/tools/shared/define.ts";
import { twigDirs } from "../../src/twig/dirs.ts";
import { createTestContext } from "../support/context.ts";
import { unlinkedState } from "../support/fixtures.ts";
import { makeRepo } from "../support/git-repo.ts";

const repo = makeRepo({ commit: true });
afterAll(() => repo.cleanup());

test("a stack deeper than the budget is cut near its start, and the hint's branch goes on from there", async () => {
  // A hostile state file: one chain 3,000 branches deep.
  const names = Array.from({ length: 3000 }, (_, i) => `chain/${String(i).padStart(4, "0")}`);
  repo.write(".twig/state.json", JSON.stringify(unlinkedState(names, (i) => names[i - 1])));
  const ctx = createTestContext({ home: repo.sandbox, dirs: twigDirs({}, "linux", repo.sandbox), repo: ok(repo.root) });
  const registry = new ToolRegistry(localTools, new Set(), 5000);
  const tool = registry.get("get_branch_stack") as ToolDefinition;
  const walked: string[] = [];
  let from: string | undefined = names.at(-1);
  for (let call = 0; from !== undefined && call < 100; call++) {
    const result = await registry.call(tool, { branch: from }, ctx, new AbortController().signal);
    const text = result.content[0]?.text ?? "";
    expect(result.isError).toBe(false);
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(15_000);
    expect(v.safeParse(tool.output, result.structuredContent).success).toBe(true);
    const data = result.structuredContent as {
      stack: Array<{ branch: string }>;
      truncated?: true;
      hint?: string;
      omitted?: { stack: number };
    };
    walked.push(...data.stack.map((record) => record.branch));
    from = data.truncated
      ? (JSON.parse(/branch=("[^"]*")/.exec(data.hint ?? "")?.[1] ?? "null") ?? undefined)
      : undefined;
    if (data.truncated) expect(data.omitted?.stack).toBe(3000 - walked.length);
  }
  expect(walked).toEqual([...names].reverse());
});

test("get_stack_status lists a stack past a tree's 48 levels, and past 1,000 says its total is a bound", async () => {
  const ctx = createTestContext({ home: repo.sandbox, dirs: twigDirs({}, "linux", repo.sandbox), repo: ok(repo.root) });
  // GitHub and Jira off: the branches' PRs are not asked for.
  const registry = new ToolRegistry(allTools, new Set(["github", "jira"]), 20_000);
  const tool = registry.get("get_stack_status") as ToolDefinition;
  const head = repo.git("rev-parse", "HEAD").trim();
  for (const [depth, total] of [
    [60, "60"],
    [1_100, "1,001+"],
  ] as const) {
    const names = Array.from({ length: depth }, (_, i) => `deep/${String(i).padStart(4, "0")}`);
    repo.write(".twig/state.json", JSON.stringify(unlinkedState(names, (i) => names[i - 1])));
    const refs = names.map((name) => `${head} refs/heads/${name}\n`);
    repo.write(".git/packed-refs", `# pack-refs with: peeled fully-peeled sorted \n${refs.join("")}`);
    const listed: string[] = [];
    let cursor: string | undefined;
    do {
      const args = { branch: names[0], ...(cursor !== undefined && { cursor }) };
      const result = await registry.call(tool, args, ctx, new AbortController().signal);
      const data = result.structuredContent as {
        summary: string;
        branches: Array<{ branch: string }>;
        next_cursor?: string;
      };
      expect(data.summary).toContain(` of ${total}. `);
      listed.push(...data.branches.map((entry) => entry.branch));
      cursor = data.next_cursor;
    } while (cursor !== undefined);
    expect(listed).toEqual(names.slice(0, Math.min(depth, 1_001)));
  }
});
