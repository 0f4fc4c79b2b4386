import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { twigJson } from "../support/fixtures.ts";
import { gitOrThrow } from "../support/git-repo.ts";
import { type HermeticHome, makeHermeticHome } from "../support/hermetic-env.ts";
import { startServer } from "../support/mcp-harness.ts";

// These tests start processes (the compiled binary, git, builds); on a busy machine that takes longer than bun's 5 s default.
setDefaultTimeout(60_000);

let home: HermeticHome;
let root: string;

function git(cwd: string, ...args: string[]): string {
  return gitOrThrow(cwd, home.home, ...args);
}

function repoWithCommit(name: string): string {
  const repo = join(root, name);
  mkdirSync(repo, { recursive: true });
  git(repo, "init", "-q", "-b", "main");
  git(repo, "commit", "-q", "--allow-empty", "-m", "init");
  return realpathSync(repo);
}

function writeState(repo: string, state: unknown): void {
  mkdirSync(join(repo, ".twig"), { recursive: true });
  writeFileSync(join(repo, ".twig", "state.json"), typeof state === "string" ? state : twigJson(state));
}

/** Starts the server in `cwd`, calls one tool, stops it. */
async function callIn(cwd: string, tool: string, args: Record<string, unknown> = {}, serverArgs: string[] = []) {
  const server = await startServer({ cwd, env: home.env, args: serverArgs });
  try {
    return await server.call(tool, args);
  } finally {
    await server.close();
  }
}

beforeAll(() => {
  home = makeHermeticHome();
  root = mkdtempSync(join(tmpdir(), "twig-mcp-repos-"));
});
afterAll(() => {
  rmSync(root, { recursive: true, force: true });
  home.cleanup();
});

describe("HEAD states", () => {
  test("detached HEAD is not_found with the commit in the hint, not a branch named HEAD", async () => {
    const repo = repoWithCommit("detached");
    git(repo, "checkout", "-q", "--detach");
    const oid = git(repo, "rev-parse", "HEAD");
    const result = await callIn(repo, "get_current_branch");
    expect(result.envelope.error?.code).toBe("not_found");
    expect(result.envelope.error?.message).toBe("Not on any branch (detached HEAD state)");
    expect(result.envelope.error?.hint).toContain(oid);
    const stack = await callIn(repo, "get_branch_stack");
    expect(stack.envelope.error?.code).toBe("not_found");
  });

  test("an unborn branch is reported with unborn: true; the tree has no branches yet", async () => {
    const repo = join(root, "unborn");
    mkdirSync(repo);
    git(repo, "init", "-q", "-b", "trunk");
    const current = await callIn(repo, "get_current_branch");
    expect(current.envelope).toEqual({ status: "ok", data: { branch: "trunk", unborn: true } });
    const tree = await callIn(repo, "get_branch_tree");
    expect(tree.envelope.error?.code).toBe("not_found");
    expect(tree.envelope.error?.message).toBe("No branches found in repository");
  });
});

describe("repository selection", () => {
  test("--repo accepts a subdirectory and is discovered upward", async () => {
    const repo = repoWithCommit("sub");
    mkdirSync(join(repo, "a", "b"), { recursive: true });
    git(repo, "checkout", "-q", "-b", "feature/x");
    const result = await callIn(root, "get_current_branch", {}, ["--repo", join(repo, "a", "b")]);
    expect(result.envelope).toEqual({ status: "ok", data: { branch: "feature/x" } });
  });

  test("a linked worktree serves its own HEAD and its own .twig state", async () => {
    const repo = repoWithCommit("main-checkout");
    git(repo, "branch", "wt-branch");
    const worktree = join(root, "main-checkout-wt");
    git(repo, "worktree", "add", "-q", worktree, "wt-branch");
    writeState(worktree, { branches: { "wt-branch": { github_pr: 9 } } });
    const result = await callIn(worktree, "get_current_branch");
    expect(result.envelope).toEqual({ status: "ok", data: { branch: "wt-branch", pr_number: 9 } });
  });

  test("packed refs only: branches still listed and the tree still drawn", async () => {
    const repo = repoWithCommit("packed");
    for (const b of ["feature/a", "feature/b", "zeta"]) git(repo, "branch", b);
    git(repo, "pack-refs", "--all");
    writeState(repo, {
      dependencies: [{ child: "feature/b", parent: "feature/a" }],
      root_branches: [{ branch: "main", is_default: true }],
    });
    const tree = await callIn(repo, "get_branch_tree");
    expect((tree.structured as { tree_text: string }).tree_text).toBe(
      "main\n├── feature/a\n│   └── feature/b\n└── zeta\n",
    );
  });

  test("a bare repository is no_repo with a hint", async () => {
    const bare = join(root, "bare.git");
    git(root, "init", "-q", "--bare", bare);
    const result = await callIn(root, "get_current_branch", {}, ["--repo", bare]);
    expect(result.envelope.error?.code).toBe("no_repo");
    expect(result.envelope.error?.message).toContain("bare");
    expect(result.envelope.error?.hint).toBeString();
  });

  test("a reftable repository is unsupported_repo, never a wrong answer", async () => {
    const repo = repoWithCommit("reftable");
    git(repo, "config", "core.repositoryformatversion", "1");
    git(repo, "config", "extensions.refStorage", "reftable");
    const result = await callIn(repo, "list_branches");
    expect(result.envelope.error?.code).toBe("unsupported_repo");
    expect(result.envelope.error?.hint).toBeString();
  });
});

describe("twig data", () => {
  test("every root candidate is drawn, default root first in file order, one blank line apart", async () => {
    const repo = repoWithCommit("roots");
    for (const b of ["develop", "feat", "orphan"]) git(repo, "branch", b);
    writeState(repo, {
      dependencies: [{ child: "feat", parent: "develop" }],
      root_branches: [
        { branch: "main", is_default: true },
        { branch: "develop", is_default: false },
      ],
    });
    const result = await callIn(repo, "get_branch_tree");
    const data = result.structured as { root: string; tree_text: string; branches: Array<{ branch: string }> };
    expect(data.root).toBe("main");
    expect(data.tree_text).toBe("main\n└── orphan\n\ndevelop\n└── feat\n");
    expect(data.branches.map((b) => b.branch)).toEqual(["main", "develop"]);
  });

  test("a dependency cycle is drawn once and marked instead of crashing", async () => {
    const repo = repoWithCommit("cycle");
    git(repo, "branch", "x");
    writeState(repo, {
      dependencies: [{ child: "main", parent: "x" }],
      root_branches: [{ branch: "main", is_default: true }],
    });
    const tree = await callIn(repo, "get_branch_tree");
    expect((tree.structured as { tree_text: string }).tree_text).toBe("main\n└── x\n    └── main [cycle]\n");
    const stack = await callIn(repo, "get_branch_stack", { branch: "main" });
    expect(stack.structured).toEqual({ stack: [{ branch: "main", parent_branch: "x" }, { branch: "x" }] });
  });

  test("a corrupt state file is no_twig_state naming the file; get_current_branch answers with a warning", async () => {
    const repo = repoWithCommit("corrupt");
    writeState(repo, '{"branches": {"main": {"github_pr": "seven"}}}');
    const branches = await callIn(repo, "list_branches");
    expect(branches.envelope.error?.code).toBe("no_twig_state");
    expect(branches.envelope.error?.message).toContain(join(repo, ".twig", "state.json"));
    expect(branches.envelope.error?.message).toContain("at line 1, column 37 (branches.*.github_pr)");
    const tree = await callIn(repo, "get_branch_tree");
    expect(tree.envelope.error?.code).toBe("no_twig_state");
    const current = await callIn(repo, "get_current_branch");
    // The branch is still the answer, but the model is told why its Jira issue and PR are missing.
    expect(current.isError).toBe(false);
    const data = current.structured as { branch: string; warnings: string[] };
    expect(Object.keys(data)).toEqual(["branch", "warnings"]);
    expect(data.branch).toBe("main");
    expect(data.warnings).toHaveLength(1);
    const state = join(repo, ".twig", "state.json");
    expect(data.warnings[0]).toStartWith(`Failed to parse state file ${state}`);
    expect(data.warnings[0]).toContain("at line 1, column 37 (branches.*.github_pr)");
    expect(data.warnings[0]).toContain("jira_issue, pr_number and parent_branch are unknown");
    expect(current.envelope.data).toEqual(data);
  });

  test("a missing state file is empty state", async () => {
    const repo = repoWithCommit("no-state");
    const result = await callIn(repo, "list_branches");
    expect(result.envelope).toEqual({ status: "ok", data: { branches: [] } });
  });

  test("list_repositories reads twig's registry from the XDG data dir, marking the default and gone paths", async () => {
    const shop = repoWithCommit("registered-shop");
    mkdirSync(home.twigDataDir, { recursive: true });
    const registry = [
      { path: shop, name: "registered-shop", last_fetch: "2025-06-03T08:00:12+00:00" },
      { path: "/home/alice/src/tools", name: "tools", last_fetch: null },
    ];
    writeFileSync(join(home.twigDataDir, "registry.json"), twigJson(registry));
    try {
      const result = await callIn(shop, "list_repositories");
      expect(result.text).toBe(
        `{"status":"ok","data":{"repositories":[{"name":"registered-shop","path":"${shop}","exists":true,"is_default":true},{"name":"tools","path":"/home/alice/src/tools","exists":false}],"default_repository":"${shop}"}}`,
      );
      writeFileSync(join(home.twigDataDir, "registry.json"), '{"not":"an array"}');
      const broken = await callIn(root, "list_repositories");
      // The registry is twig's list of repositories, not this repository's state: its own code and fix.
      expect(broken.envelope.error?.code).toBe("invalid_registry");
      expect(broken.envelope.error?.message).toContain(join(home.twigDataDir, "registry.json"));
      expect(broken.envelope.error?.hint).toStartWith(`Fix the JSON in ${join(home.twigDataDir, "registry.json")}`);
    } finally {
      rmSync(join(home.twigDataDir, "registry.json"));
    }
  });
});
