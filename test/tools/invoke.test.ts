import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { createToolRegistry } from "../../src/cli/runtime.ts";
import { ok } from "../../src/core/result.ts";
import { getBranchContextTool } from "../../src/tools/get-branch-context.ts";
import { getBranchStackTool } from "../../src/tools/get-branch-stack.ts";
import { getPrStatusTool } from "../../src/tools/get-pr-status.ts";
import { twigDirs } from "../../src/twig/dirs.ts";
import { createTestContext } from "../support/context.ts";
import { makeRepo } from "../support/git-repo.ts";

const repo = makeRepo({ commit: true });
afterAll(() => repo.cleanup());
repo.git("branch", "feature/a");
mkdirSync(repo.path(".twig"), { recursive: true });
writeFileSync(
  repo.path(".twig", "state.json"),
  JSON.stringify({
    version: 1,
    branches: { "feature/a": { branch: "feature/a", jira_issue: "SHOP-1", github_pr: 7 } },
    dependencies: [{ id: "0", child: "feature/a", parent: "main" }],
    root_branches: [{ id: "r", branch: "main", is_default: true }],
  }),
);
const ctx = createTestContext({ home: repo.sandbox, dirs: twigDirs({}, "linux", repo.sandbox), repo: ok(repo.root) });
const signal = new AbortController().signal;

describe("the typed tool invoker", () => {
  test("a result is the tool's output type: read without casts", async () => {
    const registry = createToolRegistry(new Set());
    const stack = await registry.invoker(ctx, signal)(getBranchStackTool, { branch: "feature/a" });
    if (!stack?.ok) throw new Error(JSON.stringify(stack));
    // `stack.value.stack[0].pr_number` type-checks as number | undefined: no cast in between.
    const pr: number | undefined = stack.value.stack[0]?.pr_number;
    expect(pr).toBe(7);
    expect(stack.value.stack.map((record) => record.branch)).toEqual(["feature/a", "main"]);
  });

  test("arguments are checked against the tool's input type at compile time and its schema at run time", async () => {
    const registry = createToolRegistry(new Set());
    // @ts-expect-error `branch` is a string
    const bad = await registry.invoker(ctx, signal)(getBranchStackTool, { branch: 42 });
    expect(bad?.ok).toBe(false);
    if (bad && !bad.ok) expect(bad.error.code).toBe("invalid_params");
  });

  test("a disabled tool is null; a composing tool reports it as disabled", async () => {
    const registry = createToolRegistry(new Set(["github", "jira"]));
    expect(await registry.invoker(ctx, signal)(getPrStatusTool, { pr_number: 7 })).toBeNull();
    const context = await registry.invoker(ctx, signal)(getBranchContextTool, { branch: "feature/a" });
    if (!context?.ok) throw new Error(JSON.stringify(context));
    expect(context.value.pull_request).toEqual({ status: "disabled" });
    expect(context.value.jira_issue).toEqual({ status: "disabled" });
  });

  test("a part that throws is that part's error: the stack and the other parts still answer", async () => {
    repo.git("remote", "add", "origin", "https://github.com/octo/shop.git");
    const throwing = {
      ...ctx,
      github: () => {
        throw new Error("client exploded");
      },
    };
    const registry = createToolRegistry(new Set(["jira"]));
    const context = await registry.invoker(throwing, signal)(getBranchContextTool, { branch: "feature/a" });
    if (!context?.ok) throw new Error(JSON.stringify(context));
    expect(context.value.stack.map((record) => record.branch)).toEqual(["feature/a", "main"]);
    expect(context.value.pull_request.status).toBe("error");
    expect(context.value.pull_request.error?.code).toBe("internal");
    expect(context.value.pull_request.error?.message).toContain("client exploded");
    expect(context.value.jira_issue).toEqual({ status: "disabled" });
  });
});
