import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { createToolRegistry } from "../../src/cli/runtime.ts";
import { ok } from "../../src/core/result.ts";
import { twigDirs } from "../../src/twig/dirs.ts";
import { createTestContext } from "../support/context.ts";
import { makeRepo } from "../support/git-repo.ts";

const repo = makeRepo({ commit: true });
afterAll(() => repo.cleanup());
const ctx = createTestContext({ home: repo.sandbox, dirs: twigDirs({}, "linux", repo.sandbox), repo: ok(repo.root) });
const registry = createToolRegistry(new Set());

async function call(name: string, args: Record<string, unknown> = {}) {
  const tool = registry.get(name);
  if (tool === undefined) throw new Error(`no tool ${name}`);
  const result = await registry.invoker(ctx, new AbortController().signal)(tool, args);
  if (!result?.ok) throw new Error(JSON.stringify(result));
  return result.value as Record<string, unknown>;
}

function writeState(branches: Record<string, object>, dependencies: Array<[string, string]>) {
  mkdirSync(repo.path(".twig"), { recursive: true });
  writeFileSync(
    repo.path(".twig", "state.json"),
    JSON.stringify({
      version: 1,
      branches: Object.fromEntries(Object.entries(branches).map(([name, meta]) => [name, { branch: name, ...meta }])),
      dependencies: dependencies.map(([child, parent], i) => ({ id: String(i), child, parent })),
      root_branches: [{ id: "r", branch: "main", is_default: true }],
    }),
  );
}

const names = (tree: Record<string, unknown>) => tree.tree_text as string;

describe("every answer is built from the repository and its state as they are now", () => {
  test("list_branches: a changed state file changes the answer", async () => {
    writeState({ "feature/a": { jira_issue: "A-1" } }, [["feature/a", "main"]]);
    const first = await call("list_branches");
    const again = await call("list_branches");
    expect(again).toEqual(first);
    expect(again).toEqual({ branches: [{ branch: "feature/a", jira_issue: "A-1", parent_branch: "main" }] });
    writeState({ "feature/a": { jira_issue: "A-2" } }, [["feature/a", "main"]]);
    const changed = await call("list_branches");
    expect(changed).toEqual({ branches: [{ branch: "feature/a", jira_issue: "A-2", parent_branch: "main" }] });
  });

  test("get_branch_tree: follows new and packed branches, the roots and the checked-out branch", async () => {
    repo.git("branch", "feature/a");
    writeState({ "feature/a": {} }, [["feature/a", "main"]]);
    const first = await call("get_branch_tree");
    expect(await call("get_branch_tree")).toEqual(first);
    expect(names(first)).toBe("main\n└── feature/a\n");

    repo.git("branch", "feature/b"); // a new loose ref, an orphan under the default root
    const withB = await call("get_branch_tree");
    expect(names(withB)).toBe("main\n├── feature/a\n└── feature/b\n");

    repo.git("pack-refs", "--all"); // the same branches, now packed: the same answer
    expect(await call("get_branch_tree")).toEqual(withB);

    const rooted = await call("get_branch_tree", { branch: "feature/a" });
    expect(names(rooted)).toBe("feature/a\n");
    const redrawn = await call("get_branch_tree");
    expect(redrawn).toEqual(withB);

    // With configured roots the checked-out branch does not change the tree.
    repo.git("checkout", "-q", "feature/b");
    expect(await call("get_branch_tree")).toEqual(redrawn);
    repo.git("checkout", "-q", "main");

    // Without configured roots the checked-out branch is the root: a checkout redraws the tree.
    writeFileSync(repo.path(".twig", "state.json"), JSON.stringify({ version: 1, branches: {}, dependencies: [] }));
    repo.git("checkout", "-q", "feature/b");
    expect(names(await call("get_branch_tree"))).toBe("feature/b\n");
    repo.git("checkout", "-q", "feature/a");
    expect(names(await call("get_branch_tree"))).toBe("feature/a\n");
  });

  test("get_current_branch, get_branch_metadata, get_branch_stack: follow checkouts and the state", async () => {
    repo.git("checkout", "-q", "main");
    writeState({ "feature/a": { jira_issue: "A-1" }, main: {} }, [["feature/a", "main"]]);
    const current = await call("get_current_branch");
    expect(current).toEqual({ branch: "main" });

    const metadata = await call("get_branch_metadata", { branch: "feature/a" });
    expect(metadata).toEqual({ branch: "feature/a", jira_issue: "A-1", parent_branch: "main" });
    expect(await call("get_branch_metadata", { branch: "main" })).toEqual({ branch: "main" });

    const stack = await call("get_branch_stack", { branch: "feature/a" });
    expect(stack).toEqual({
      stack: [{ branch: "feature/a", jira_issue: "A-1", parent_branch: "main" }, { branch: "main" }],
    });
    expect(await call("get_branch_stack")).toEqual({ stack: [{ branch: "main" }] });

    // A checkout changes the current branch's answer without any change to the state.
    repo.git("checkout", "-q", "feature/a");
    expect(await call("get_current_branch")).toEqual({ branch: "feature/a", jira_issue: "A-1", parent_branch: "main" });
    expect(await call("get_branch_stack")).toEqual(stack);

    // A branch with no commits yet is answered with `unborn`.
    repo.git("checkout", "-q", "--orphan", "main-next");
    writeState({ "feature/a": { jira_issue: "A-2" }, "main-next": {} }, [["feature/a", "main"]]);
    expect(await call("get_current_branch")).toEqual({ branch: "main-next", unborn: true });
    repo.git("checkout", "-q", "-f", "feature/a");

    // A new state file gives new answers.
    expect(await call("get_branch_metadata", { branch: "feature/a" })).toEqual({
      branch: "feature/a",
      jira_issue: "A-2",
      parent_branch: "main",
    });
    expect(await call("get_branch_stack", { branch: "feature/a" })).toEqual({
      stack: [{ branch: "feature/a", jira_issue: "A-2", parent_branch: "main" }, { branch: "main" }],
    });
  });
});
