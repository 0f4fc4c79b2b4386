import { afterAll, expect, test } from "bun:test";
import { ok } from "../../src/core/result.ts";
import { ToolRegistry } from "../../src/mcp/tool-registry.ts";
import { localTools } from "../../src/tools/all.ts";
import type { ToolDefinition } from "../../src/tools/shared/define.ts";
import { twigDirs } from "../../src/twig/dirs.ts";
import { createTestContext } from "../support/context.ts";
import { unlinkedState } from "../support/fixtures.ts";
import { makeRepo } from "../support/git-repo.ts";

const repo = makeRepo({ commit: true });
afterAll(() => repo.cleanup());

test("one branch left over is '1 more branch'", async () => {
  repo.write(".twig/state.json", JSON.stringify(unlinkedState(["a", "b"], () => undefined)));
  const registry = new ToolRegistry(localTools, new Set(), 20_000);
  const ctx = createTestContext({ home: repo.sandbox, dirs: twigDirs({}, "linux", repo.sandbox), repo: ok(repo.root) });
  const tool = registry.get("list_branches") as ToolDefinition;
  const result = await registry.call(tool, { limit: 1 }, ctx, new AbortController().signal);
  expect(result.structuredContent?.hint).toStartWith("1 more branch: pass next_cursor as cursor");
});
