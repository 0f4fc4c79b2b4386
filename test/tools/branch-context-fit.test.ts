import { afterAll, describe, expect, test } from "bun:test";
import { ok } from "../../src/core/result.ts";
import { ToolRegistry } from "../../src/mcp/tool-registry.ts";
import { allTools } from "../../src/tools/all.ts";
import type { ToolDefinition } from "../../src/tools/shared/define.ts";
import { twigDirs } from "../../src/twig/dirs.ts";
import { createTestContext } from "../support/context.ts";
import { unlinkedState } from "../support/fixtures.ts";
import { makeRepo } from "../support/git-repo.ts";

const repo = makeRepo({ commit: true });
afterAll(() => repo.cleanup());
const registry = new ToolRegistry(allTools, new Set(), 20_000);
const ctx = createTestContext({ home: repo.sandbox, dirs: twigDirs({}, "linux", repo.sandbox), repo: ok(repo.root) });

async function context(branch: string) {
  const tool = registry.get("get_branch_context") as ToolDefinition;
  const result = await registry.call(tool, { branch }, ctx, new AbortController().signal);
  expect(result.isError).toBe(false);
  // The envelope adds 40 units; a token is three.
  expect(result.content[0]?.text.length).toBeLessThan(20_000 * 4);
  return result.structuredContent as {
    branch: { children: Array<{ branch: string }> };
    stack: Array<{ branch: string }>;
    omitted?: { children?: number; stack?: number };
    hint?: string;
  };
}

describe("get_branch_context cuts what grows, never refuses", () => {
  test("2,100 branches under main: the first children kept, the rest counted", async () => {
    const names = ["main", ...Array.from({ length: 2100 }, (_, i) => `feature/child-${String(i).padStart(4, "0")}`)];
    repo.write(".twig/state.json", JSON.stringify(unlinkedState(names, (i) => (i === 0 ? undefined : "main"))));
    // git knows them: children are the branches that exist.
    const head = repo.git("rev-parse", "HEAD").trim();
    const refs = names.slice(1).map((name) => `${head} refs/heads/${name}\n`);
    repo.write(".git/packed-refs", `# pack-refs with: peeled fully-peeled sorted \n${refs.join("")}`);
    const answer = await context("main");
    const kept = answer.branch.children.length;
    expect(kept).toBeGreaterThan(0);
    expect(kept + (answer.omitted?.children ?? 0)).toBe(2100);
    expect(answer.omitted?.children).toBeGreaterThan(0);
    expect(answer.hint).toContain(`${(2100 - kept).toLocaleString("en-US")} more children`);
  });

  test("a 5,000-long chain: the nearest ancestors kept, the rest counted", async () => {
    const names = Array.from({ length: 5000 }, (_, i) => `twig-${i}`);
    repo.write(
      ".twig/state.json",
      JSON.stringify(unlinkedState(names, (i) => (i === 0 ? undefined : `twig-${i - 1}`))),
    );
    const answer = await context("twig-4999");
    const kept = answer.stack.length;
    expect(answer.stack[0]?.branch).toBe("twig-4999");
    expect(kept + (answer.omitted?.stack ?? 0)).toBe(5000);
    expect(answer.omitted?.stack).toBeGreaterThan(0);
    expect(answer.hint).toContain("more ancestors");
  });
});
