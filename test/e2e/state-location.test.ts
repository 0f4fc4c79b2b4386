import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ResourceUpdatedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { EXAMPLE_STATE, twigJson } from "../support/fixtures.ts";
import { gitOrThrow, makeExampleRepo } from "../support/git-repo.ts";
import { type HermeticHome, makeHermeticHome } from "../support/hermetic-env.ts";
import { startServer } from "../support/mcp-harness.ts";

let home: HermeticHome;
let root: string;

function git(cwd: string, ...args: string[]): string {
  return gitOrThrow(cwd, home.home, ...args);
}

/** twig's worked example as a real repository: five branches and the state file. */
function exampleRepo(name: string, state: unknown = EXAMPLE_STATE): string {
  return makeExampleRepo(join(root, name), home.home, { state });
}

function writeState(dir: string, state: unknown): void {
  mkdirSync(join(dir, ".twig"), { recursive: true });
  writeFileSync(join(dir, ".twig", "state.json"), typeof state === "string" ? state : twigJson(state));
}

async function callIn(cwd: string, tool: string, args: Record<string, unknown> = {}) {
  const server = await startServer({ cwd, env: home.env });
  try {
    return await server.call(tool, args);
  } finally {
    await server.close();
  }
}

beforeAll(() => {
  home = makeHermeticHome();
  root = mkdtempSync(join(tmpdir(), "twig-mcp-state-location-"));
});
afterAll(() => {
  rmSync(root, { recursive: true, force: true });
  home.cleanup();
});

describe("linked worktrees", () => {
  test("a worktree without state of its own sees the main checkout's stack", async () => {
    const repo = exampleRepo("shop");
    const worktree = join(root, "shop-worktrees", "feature-auth-ui");
    git(repo, "worktree", "add", "-q", worktree, "feature/auth-ui");
    const stack = await callIn(worktree, "get_branch_stack");
    expect(stack.envelope.status).toBe("ok");
    expect((stack.structured as { stack: { branch: string }[] }).stack.map((entry) => entry.branch)).toEqual([
      "feature/auth-ui",
      "feature/auth",
      "main",
    ]);
    const current = await callIn(worktree, "get_current_branch");
    expect(current.structured).toMatchObject({
      branch: "feature/auth-ui",
      pr_number: 43,
      parent_branch: "feature/auth",
    });
  });

  test("a worktree with its own state keeps using it", async () => {
    const repo = exampleRepo("own");
    const worktree = join(root, "own-worktrees", "feature-billing");
    git(repo, "worktree", "add", "-q", worktree, "feature/billing");
    writeState(worktree, { branches: { "feature/billing": { github_pr: 77 } } });
    const current = await callIn(worktree, "get_current_branch");
    expect(current.envelope).toEqual({ status: "ok", data: { branch: "feature/billing", pr_number: 77 } });
  });

  test("a subscription in a worktree hears about a change to the main checkout's state", async () => {
    const repo = exampleRepo("watched");
    const worktree = join(root, "watched-worktrees", "feature-auth");
    git(repo, "worktree", "add", "-q", worktree, "feature/auth");
    const server = await startServer({ cwd: worktree, env: home.env });
    try {
      const updated = new Promise<string>((resolve) => {
        server.client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => resolve(n.params.uri));
      });
      await server.client.subscribeResource({ uri: "twig://repo/branches" });
      writeState(repo, { ...EXAMPLE_STATE, branches: { "feature/auth": { github_pr: 99 } } });
      expect(await updated).toBe("twig://repo/branches");
      const branches = await server.client.readResource({ uri: "twig://repo/branches" });
      expect(JSON.parse((branches.contents[0] as { text: string }).text)).toEqual({
        branches: [{ branch: "feature/auth", pr_number: 99, parent_branch: "main" }],
      });
    } finally {
      await server.close();
    }
  });

  test("a broken main state is reported from the worktree, naming the main checkout's file", async () => {
    const repo = exampleRepo("broken", "{not json");
    const worktree = join(root, "broken-worktrees", "hotfix-typo");
    git(repo, "worktree", "add", "-q", worktree, "hotfix/typo");
    const result = await callIn(worktree, "list_branches");
    expect(result.envelope.error?.code).toBe("no_twig_state");
    expect(result.envelope.error?.message).toContain(join(repo, ".twig", "state.json"));
  });
});

describe("state written by twig before 0.1.5", () => {
  test("a branch_issues file (twig 0.1.0–0.1.3) still links branches to Jira and PRs", async () => {
    const repo = exampleRepo("old", {
      version: 1,
      worktrees: [],
      branch_issues: [
        { branch: "feature/auth", jira_issue: "SHOP-123", github_pr: 42, created_at: "2025-01-01T10:00:00+00:00" },
        { branch: "feature/billing", jira_issue: "SHOP-200", github_pr: null, created_at: "2025-01-02T10:00:00+00:00" },
      ],
      config_overrides: {},
    });
    const meta = await callIn(repo, "get_branch_metadata", { branch: "feature/auth" });
    expect(meta.envelope).toEqual({
      status: "ok",
      data: { branch: "feature/auth", jira_issue: "SHOP-123", pr_number: 42, created_at: "2025-01-01T10:00:00+00:00" },
    });
    const list = await callIn(repo, "list_branches");
    expect((list.structured as { branches: { branch: string }[] }).branches.map((entry) => entry.branch)).toEqual([
      "feature/auth",
      "feature/billing",
    ]);
  });

  test("an old file that does not parse names the old format and how to upgrade", async () => {
    const repo = exampleRepo("old-broken", { version: 1, branch_issues: [{ jira_issue: "SHOP-1" }] });
    const result = await callIn(repo, "get_branch_metadata", { branch: "feature/auth" });
    expect(result.envelope.error?.code).toBe("no_twig_state");
    expect(result.envelope.error?.message).toContain("twig 0.1.0–0.1.3 (`branch_issues`)");
    expect(result.envelope.error?.message).toContain("branch_issues[0].branch");
    expect(result.envelope.error?.message).toContain("twig sync");
  });
});
