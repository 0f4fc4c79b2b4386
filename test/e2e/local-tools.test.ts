import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { EXAMPLE_STATE, EXAMPLE_TREE_TEXT, twigJson } from "../support/fixtures.ts";
import { gitOrThrow, makeExampleRepo } from "../support/git-repo.ts";
import { type HermeticHome, makeHermeticHome } from "../support/hermetic-env.ts";
import { type RunningServer, startServer } from "../support/mcp-harness.ts";

// These tests start processes (the compiled binary, git, builds); on a busy machine that takes longer than bun's 5 s default.
setDefaultTimeout(60_000);

/** Runs git hermetically in `cwd` (the environment's HOME is the test's temp home). */
function git(cwd: string, env: Record<string, string>, ...args: string[]): string {
  return gitOrThrow(cwd, env.HOME as string, ...args);
}

/** A repository holding twig's worked example: five local branches and its state file. */
function exampleRepo(home: HermeticHome, root: string, name = "shop"): string {
  const repo = makeExampleRepo(join(root, name), home.home);
  writeFileSync(join(repo, ".twig", ".gitignore"), "*\n");
  return repo;
}

describe("local tools end to end (the worked example)", () => {
  let home: HermeticHome;
  let root: string;
  let repo: string;
  let server: RunningServer;

  beforeAll(async () => {
    home = makeHermeticHome();
    root = mkdtempSync(join(tmpdir(), "twig-mcp-e2e-"));
    repo = exampleRepo(home, root);
    git(repo, home.env, "checkout", "-q", "feature/auth-ui");
    server = await startServer({ cwd: join(repo, ".twig"), env: home.env });
  });

  afterAll(async () => {
    await server?.close();
    rmSync(root, { recursive: true, force: true });
    home.cleanup();
  });

  test("get_branch_tree matches upstream byte for byte", async () => {
    const result = await server.call("get_branch_tree");
    expect(result.isError).toBe(false);
    expect(result.text).toBe(
      '{"status":"ok","data":{"root":"main","tree_text":"main\\n├── feature/auth (SHOP-123, #42)\\n│   └── feature/auth-ui (#43)\\n├── feature/billing (SHOP-200)\\n└── hotfix/typo\\n","branches":[{"branch":"main","children":[{"branch":"feature/auth","children":[{"branch":"feature/auth-ui","children":[],"pr_number":43}],"jira_issue":"SHOP-123","pr_number":42},{"branch":"feature/billing","children":[],"jira_issue":"SHOP-200"},{"branch":"hotfix/typo","children":[]}]}]}}',
    );
    expect(result.structured).toEqual(result.envelope.data);
    expect((result.structured as { tree_text: string }).tree_text).toBe(EXAMPLE_TREE_TEXT);
  });

  test("get_branch_tree rooted at a branch, and an unknown branch", async () => {
    const sub = await server.call("get_branch_tree", { branch: "feature/auth" });
    expect((sub.structured as { tree_text: string }).tree_text).toBe(
      "feature/auth (SHOP-123, #42)\n└── feature/auth-ui (#43)\n",
    );
    const missing = await server.call("get_branch_tree", { branch: "nope" });
    expect(missing.isError).toBe(true);
    expect(missing.envelope.error?.code).toBe("not_found");
  });

  test("get_branch_stack matches upstream byte for byte", async () => {
    const result = await server.call("get_branch_stack");
    expect(result.text).toBe(
      '{"status":"ok","data":{"stack":[{"branch":"feature/auth-ui","pr_number":43,"parent_branch":"feature/auth","created_at":"2025-06-02T09:15:30.118264907+00:00"},{"branch":"feature/auth","jira_issue":"SHOP-123","pr_number":42,"parent_branch":"main","created_at":"2025-06-01T10:00:00+00:00"},{"branch":"main"}]}}',
    );
    const unknown = await server.call("get_branch_stack", { branch: "does-not-exist" });
    expect(unknown.envelope.error?.code).toBe("not_found");
    const untracked = await server.call("get_branch_stack", { branch: "hotfix/typo" });
    expect(untracked.envelope).toEqual({ status: "ok", data: { stack: [{ branch: "hotfix/typo" }] } });
  });

  test("get_branch_metadata matches upstream byte for byte, with its not_found error", async () => {
    const found = await server.call("get_branch_metadata", { branch: "feature/auth" });
    expect(found.text).toBe(
      '{"status":"ok","data":{"branch":"feature/auth","jira_issue":"SHOP-123","pr_number":42,"parent_branch":"main","created_at":"2025-06-01T10:00:00+00:00"}}',
    );
    const missing = await server.call("get_branch_metadata", { branch: "nope" });
    expect(missing.isError).toBe(true);
    expect(missing.text).toBe(
      '{"status":"error","error":{"code":"not_found","message":"Branch \'nope\' not found in twig state","hint":"Use `list_branches` to see tracked branches."}}',
    );
  });

  test("get_current_branch reports the checked-out branch with its metadata", async () => {
    const result = await server.call("get_current_branch");
    expect(result.text).toBe(
      '{"status":"ok","data":{"branch":"feature/auth-ui","pr_number":43,"parent_branch":"feature/auth","created_at":"2025-06-02T09:15:30.118264907+00:00"}}',
    );
  });

  test("list_branches is sorted byte-wise", async () => {
    const result = await server.call("list_branches");
    const names = (result.structured as { branches: Array<{ branch: string }> }).branches.map((b) => b.branch);
    expect(names).toEqual(["feature/auth", "feature/auth-ui", "feature/billing"]);
  });

  test("get_worktrees marks twig's stale record and git's live worktrees", async () => {
    const live = join(root, "shop-worktrees", "feature-billing");
    git(repo, home.env, "worktree", "add", "-q", live, "feature/billing");
    const result = await server.call("get_worktrees");
    expect(result.structured).toEqual({
      worktrees: [
        {
          name: "feature-auth-ui",
          path: "/home/alice/src/shop-worktrees/feature-auth-ui",
          branch: "feature/auth-ui",
          source: "twig",
        },
        { name: "feature-billing", path: realpathSync(live), branch: "feature/billing", source: "git" },
      ],
    });
  });

  test("invalid arguments are invalid_params naming the field; unknown tools are JSON-RPC errors", async () => {
    for (const branch of ["../../../etc/passwd", "-x", "a..b", "a.lock", "with space"]) {
      const result = await server.call("get_branch_metadata", { branch });
      expect(result.envelope.error?.code).toBe("invalid_params");
      expect(result.envelope.error?.message).toContain("branch");
    }
    const wrongType = await server.call("get_branch_metadata", { branch: 42 });
    expect(wrongType.envelope.error?.code).toBe("invalid_params");
    const missing = await server.call("get_branch_metadata", {});
    expect(missing.envelope.error?.code).toBe("invalid_params");
    const nullIsAbsent = await server.call("get_branch_stack", { branch: null });
    expect(nullIsAbsent.isError).toBe(false);
    await expect(server.client.callTool({ name: "no_such_tool", arguments: {} })).rejects.toThrow(/tool not found/);
  });

  test("the branch switch is seen on the next call", async () => {
    git(repo, home.env, "checkout", "-q", "feature/auth");
    const result = await server.call("get_current_branch");
    expect((result.structured as { branch: string }).branch).toBe("feature/auth");
    git(repo, home.env, "checkout", "-q", "feature/auth-ui");
  });

  test("nothing but log lines reach stderr, and only at warn level by default", () => {
    expect(server.stderr()).not.toContain("INFO");
  });
});

describe("a large answer asked for again", () => {
  let home: HermeticHome;
  let root: string;
  let server: RunningServer;

  beforeAll(async () => {
    home = makeHermeticHome();
    root = mkdtempSync(join(tmpdir(), "twig-mcp-e2e-"));
    const repo = exampleRepo(home, root);
    // 8,000 tracked branches: list_branches answers about 1.7 MB, non-ASCII names included.
    const branches = Object.fromEntries(
      Array.from({ length: 8000 }, (_, i) => {
        const name = `team/ü-${String(i).padStart(4, "0")}`;
        return [name, { branch: name, jira_issue: `SHOP-${i}`, github_pr: i + 1, created_at: "2025-06-01T10:00:00Z" }];
      }),
    );
    writeFileSync(join(repo, ".twig", "state.json"), twigJson({ ...EXAMPLE_STATE, branches }));
    // Unlimited: the whole 1.7 MB answer, as before there was a reply budget.
    server = await startServer({ cwd: repo, env: home.env, args: ["--max-reply-tokens", "0"] });
  });

  afterAll(async () => {
    await server?.close();
    rmSync(root, { recursive: true, force: true });
    home.cleanup();
  });

  test("is the same answer every time, byte for byte", async () => {
    const first = await server.call("list_branches");
    expect(first.isError).toBe(false);
    expect(first.text.length).toBeGreaterThan(800 * 1024);
    expect((first.structured as { branches: unknown[] }).branches).toHaveLength(8000);
    for (let i = 0; i < 3; i++) {
      const again = await server.call("list_branches");
      expect(again.text).toBe(first.text);
      expect(again.structured).toEqual(first.structured);
    }
    expect(first.structured).toEqual(first.envelope.data);
  });
});
