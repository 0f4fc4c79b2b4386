import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  LoggingMessageNotificationSchema,
  ResourceUpdatedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { checkRunPayload, commitStatusPayload, reviewPayload } from "../support/fake-github.ts";
import { EXAMPLE_STATE, EXAMPLE_TREE_TEXT, twigJson } from "../support/fixtures.ts";
import { gitOrThrow, makeExampleRepo } from "../support/git-repo.ts";
import { type HermeticHome, makeHermeticHome } from "../support/hermetic-env.ts";
import { type RunningServer, startServer } from "../support/mcp-harness.ts";
import { useFakeGitHub } from "../support/use-fake-github.ts";

// These tests start processes (the compiled binary, git, builds); on a busy machine that takes longer than bun's 5 s default.
setDefaultTimeout(60_000);

const TOKEN = "ghp_contexttesttoken0000000000000000000";
let home: HermeticHome;
let root: string;
let repo: string;

function git(cwd: string, ...args: string[]): string {
  return gitOrThrow(cwd, home.home, ...args);
}

function promptText(result: { messages: Array<{ role: string; content: { type: string; text?: string } }> }) {
  expect(result.messages).toHaveLength(1);
  expect(result.messages[0]?.role).toBe("user");
  return result.messages[0]?.content.text ?? "";
}

const STACK_STATUS_LOCAL = `Current branch: feature/auth-ui

Branch dependency tree:
\`\`\`
${EXAMPLE_TREE_TEXT}\`\`\`

Branch details:
- feature/auth | Jira: SHOP-123 | PR: #42 | parent: main
- feature/auth-ui | PR: #43 | parent: feature/auth
- feature/billing | Jira: SHOP-200 | parent: main

Summarize the current state of this PR stack. For each branch, describe its review status and CI results.`;

const BRANCH_CONTEXT_LOCAL = `Branch: feature/auth
Parent branch: main
Linked Jira issue: SHOP-123
Linked PR: #42
Created: 2025-06-01T10:00:00+00:00

Describe what I'm working on based on this branch context, including the linked Jira issue and pull request status.`;

beforeAll(() => {
  home = makeHermeticHome();
  root = mkdtempSync(join(tmpdir(), "twig-mcp-context-"));
  repo = makeExampleRepo(join(root, "shop"), home.home, {
    checkout: "feature/auth-ui",
    origin: "git@github.com:octo/shop.git",
  });
});
afterAll(() => {
  rmSync(root, { recursive: true, force: true });
  home.cleanup();
});

describe("prompts without credentials (upstream's exact text)", () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startServer({ cwd: repo, env: home.env });
  });
  afterAll(() => server.close());

  test("prompts/list names both prompts with their arguments", async () => {
    const { prompts } = await server.client.listPrompts();
    expect(prompts.map((p) => p.name)).toEqual(["branch-context", "plan-issue", "review-pr", "stack-status"]);
    expect(prompts[0]?.description).toBe("What am I working on? Describe the current branch's Jira issue and PR.");
    expect(prompts[0]?.arguments?.map((a) => a.name)).toEqual(["branch", "repo"]);
  });

  test("stack-status keeps upstream's local sections byte for byte; without GitHub it says so instead of asking for CI", async () => {
    const text = promptText(await server.client.getPrompt({ name: "stack-status" }));
    const local = STACK_STATUS_LOCAL.slice(0, STACK_STATUS_LOCAL.lastIndexOf("\n\n"));
    expect(text.startsWith(`${local}\n\nStack status:\n`)).toBe(true);
    expect(text).toContain("\nGitHub: not configured. Export GH_TOKEN");
    // The missing-credentials message is said once (in the summary), not quoted again below it.
    expect(text.split("GitHub credentials not found").length).toBe(2);
    expect(text).toEndWith(
      "GitHub's review status and CI results are not available here: say so, and do not describe or guess them.",
    );
    expect(text).not.toContain("describe its review status and CI results");
  });

  test("branch-context is upstream's text byte for byte", async () => {
    const text = promptText(
      await server.client.getPrompt({ name: "branch-context", arguments: { branch: "feature/auth" } }),
    );
    expect(text).toBe(BRANCH_CONTEXT_LOCAL);
  });

  test("branch-context on an untracked branch and on the current branch", async () => {
    const untracked = promptText(
      await server.client.getPrompt({ name: "branch-context", arguments: { branch: "hotfix/typo" } }),
    );
    // Not "Parent branch: none": get_branch_metadata would answer not_found, so the prompt says so.
    expect(untracked).toStartWith(
      "Branch: hotfix/typo\nNot tracked by twig: no Jira issue or PR is recorded for 'hotfix/typo'. Use list_branches to see tracked branches.\n\n",
    );
    const current = promptText(await server.client.getPrompt({ name: "branch-context" }));
    expect(current).toStartWith("Branch: feature/auth-ui\nParent branch: feature/auth\n");
  });

  test("review-pr and plan-issue default to the current branch's links and say when a service is not configured", async () => {
    const review = promptText(await server.client.getPrompt({ name: "review-pr" }));
    expect(review).toStartWith("Pull request #43: GitHub is not configured here, so its live status is unavailable (");
    const plan = promptText(
      await server.client.getPrompt({ name: "plan-issue", arguments: { issue_key: "shop-123" } }),
    );
    expect(plan).toStartWith("Jira issue SHOP-123: Jira is not configured here, so its details are unavailable (");
    expect(plan).toContain("\n\nBranches linked to SHOP-123: feature/auth (PR #42)\n\nHelp me plan the work");
    const none = promptText(await server.client.getPrompt({ name: "plan-issue" }));
    expect(none).toBe("The current branch has no linked Jira issue. Which issue should I look at?");
    await expect(server.client.getPrompt({ name: "review-pr", arguments: { pr_number: "4x" } })).rejects.toThrow(
      /pr_number/,
    );
  });

  test("unknown prompts and bad arguments are JSON-RPC errors", async () => {
    await expect(server.client.getPrompt({ name: "nope" })).rejects.toThrow(/prompt 'nope' not found/);
    await expect(server.client.getPrompt({ name: "branch-context", arguments: { branch: "../etc" } })).rejects.toThrow(
      /branch/,
    );
    await expect(server.client.getPrompt({ name: "stack-status", arguments: { repo: "/etc" } })).rejects.toThrow(
      /not inside/,
    );
  });

  test("completions: branch names (local and tracked), the template's name, repository names", async () => {
    const branch = await server.client.complete({
      ref: { type: "ref/prompt", name: "branch-context" },
      argument: { name: "branch", value: "feature/a" },
    });
    expect(branch.completion.values).toEqual(["feature/auth", "feature/auth-ui"]);
    const all = await server.client.complete({
      ref: { type: "ref/resource", uri: "twig://branch/{name}/context" },
      argument: { name: "name", value: "" },
    });
    expect(all.completion.values).toEqual([
      "feature/auth",
      "feature/auth-ui",
      "feature/billing",
      "hotfix/typo",
      "main",
    ]);
    const prs = await server.client.complete({
      ref: { type: "ref/prompt", name: "review-pr" },
      argument: { name: "pr_number", value: "4" },
    });
    expect(prs.completion.values).toEqual(["42", "43"]);
    const keys = await server.client.complete({
      ref: { type: "ref/prompt", name: "plan-issue" },
      argument: { name: "issue_key", value: "SHOP-2" },
    });
    expect(keys.completion.values).toEqual(["SHOP-200"]);
    const repos = await server.client.complete({
      ref: { type: "ref/prompt", name: "stack-status" },
      argument: { name: "repo", value: "" },
    });
    expect(repos.completion.values).toEqual([]);
    const other = await server.client.complete({
      ref: { type: "ref/prompt", name: "stack-status" },
      argument: { name: "unknown", value: "x" },
    });
    expect(other.completion.values).toEqual([]);
  });
});

describe("prompts with GitHub configured", () => {
  const fake = useFakeGitHub({ token: TOKEN, resetAfterEach: false });
  let server: RunningServer;
  beforeAll(async () => {
    fake.addPull({
      owner: "octo",
      repo: "shop",
      number: 42,
      head: "feature/auth",
      headSha: "a".repeat(40),
      title: "Auth",
    });
    fake.addPull({
      owner: "octo",
      repo: "shop",
      number: 43,
      head: "feature/auth-ui",
      headSha: "b".repeat(40),
      title: "UI",
    });
    const data = fake.repo("octo", "shop");
    data.reviews.set(42, [reviewPayload({ login: "alice", state: "APPROVED" })]);
    data.checkRuns.set("a".repeat(40), [checkRunPayload({ name: "build" })]);
    data.reviews.set(43, [reviewPayload({ login: "bob", state: "CHANGES_REQUESTED" })]);
    data.checkRuns.set("b".repeat(40), [checkRunPayload({ name: "build", status: "queued", startedAt: null })]);
    server = await startServer({
      cwd: repo,
      env: { ...home.env, GITHUB_API_URL: fake.url, GH_TOKEN: TOKEN, TWIG_MCP_HTTP_TIMEOUT_MS: "3000" },
    });
  });
  afterAll(async () => {
    await server.close();
  });

  test("stack-status adds the stack's live state from get_stack_status after the local sections", async () => {
    const text = promptText(await server.client.getPrompt({ name: "stack-status" }));
    const [local, live] = text.split("\n\nStack status (live from GitHub):\n");
    expect(`${local}\n\n${STACK_STATUS_LOCAL.split("\n\n").at(-1)}`).toBe(STACK_STATUS_LOCAL);
    expect(live).toContain("\nfeature/auth  #42 open · approved · CI passing · SHOP-123 · no remote branch\n");
    expect(live).toContain(
      "\n  feature/auth-ui  #43 open · changes requested by bob · CI pending · base main ≠ twig parent feature/auth · no remote branch\n",
    );
    expect(text).toEndWith("For each branch, describe its review status and CI results.");
    expect(text).not.toContain(TOKEN);
  });

  test("branch-context adds the PR line; Jira stays out while it is not configured", async () => {
    const text = promptText(
      await server.client.getPrompt({ name: "branch-context", arguments: { branch: "feature/auth" } }),
    );
    expect(text).toContain('\nPull request: PR #42 "Auth" — open, reviews: approved by alice, CI: passing');
    expect(text).not.toContain("\nJira issue:");
  });

  test("review-pr shows reviews, pending checks and the links", async () => {
    const text = promptText(await server.client.getPrompt({ name: "review-pr", arguments: { pr_number: "#43" } }));
    expect(text).toStartWith('PR #43 "UI" — open, reviews: changes requested by bob, CI: pending');
    expect(text).toContain("\nBranches: feature/auth-ui → main\n");
    expect(text).toContain('\nChanges requested by: bob: "Here is the body for the review."\n');
    expect(text).toContain("\nPending checks (1): build");
    // Nothing fails, so the prompt does not send the model to the logs.
    expect(text).not.toContain("get_ci_log");
    expect(text).toEndWith("what I should do next.");
  });

  test("review-pr counts and lists failing check runs and commit statuses alike, with their output", async () => {
    fake.addPull({ owner: "octo", repo: "shop", number: 44, head: "feature/x", headSha: "c".repeat(40), title: "X" });
    const data = fake.repo("octo", "shop");
    data.checkRuns.set("c".repeat(40), [
      {
        ...checkRunPayload({ id: 7, name: "pytest", conclusion: "failure" }),
        output: { title: "2 failed, 148 passed", summary: "test_refresh FAILED" },
      },
      checkRunPayload({ id: 8, name: "lint" }),
    ]);
    data.statuses.set("c".repeat(40), [
      commitStatusPayload({ id: 9, context: "ci/jenkins", state: "failure", description: "Build broke" }),
    ]);
    const text = promptText(await server.client.getPrompt({ name: "review-pr", arguments: { pr_number: "44" } }));
    expect(text).toContain("CI: failing (1/3 passing, 2 failing)");
    expect(text).toContain(
      '\nFailing checks (2): pytest ("2 failed, 148 passed: test_refresh FAILED"), ci/jenkins ("Build broke")\n',
    );
    expect(text).toContain(
      "\nFor why they fail, call get_ci_log with pr_number 44: it reads the failing checks' logs.\n",
    );
  });

  test("a failing PR lookup is reported inline, never fatal", async () => {
    fake.repo("octo", "shop").pulls.delete(43);
    const text = promptText(await server.client.getPrompt({ name: "stack-status" }));
    expect(text).toContain("\n  feature/auth-ui  #43 could not be read (not_found) · no remote branch\n");
    // The rest is live: GitHub answered for the other PR.
    expect(text).toContain("Stack status (live from GitHub):");
    expect(text).toContain("Branch details:");
  });
});

describe("resources", () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startServer({ cwd: repo, env: home.env });
  });
  afterAll(() => server.close());

  test("lists the tree and branches resources and the branch-context template", async () => {
    const { resources } = await server.client.listResources();
    expect(resources.map((r) => [r.uri, r.mimeType])).toEqual([
      ["twig://repo/tree", "text/plain"],
      ["twig://repo/branches", "application/json"],
    ]);
    const { resourceTemplates } = await server.client.listResourceTemplates();
    expect(resourceTemplates.map((t) => t.uriTemplate)).toEqual(["twig://branch/{name}/context"]);
  });

  test("reads the tree as text and the branches as JSON", async () => {
    const tree = await server.client.readResource({ uri: "twig://repo/tree" });
    expect(tree.contents).toEqual([{ uri: "twig://repo/tree", mimeType: "text/plain", text: EXAMPLE_TREE_TEXT }]);
    const branches = await server.client.readResource({ uri: "twig://repo/branches" });
    const content = branches.contents[0] as { text: string; mimeType: string };
    expect(content.mimeType).toBe("application/json");
    expect(JSON.parse(content.text).branches.map((b: { branch: string }) => b.branch)).toEqual([
      "feature/auth",
      "feature/auth-ui",
      "feature/billing",
    ]);
  });

  test("reads a branch's context; unconfigured live parts say so instead of failing", async () => {
    for (const uri of ["twig://branch/feature%2Fauth/context", "twig://branch/feature/auth/context"]) {
      const read = await server.client.readResource({ uri });
      const doc = JSON.parse((read.contents[0] as { text: string }).text);
      expect(doc.branch).toMatchObject({
        branch: "feature/auth",
        jira_issue: "SHOP-123",
        pr_number: 42,
        parent_branch: "main",
        created_at: "2025-06-01T10:00:00+00:00",
        base: "main",
        ahead: 0,
        behind: 0,
        needs_restack: false,
      });
      expect(doc.branch.head.subject).toBe("init");
      expect(doc.stack.map((r: { branch: string }) => r.branch)).toEqual(["feature/auth", "main"]);
      expect(doc.jira_issue.status).toBe("not_configured");
      expect(doc.pull_request.status).toBe("not_configured");
    }
  });

  test("?repo= selects a registered repository; unknown URIs are resource-not-found", async () => {
    mkdirSync(home.twigDataDir, { recursive: true });
    writeFileSync(join(home.twigDataDir, "registry.json"), twigJson([{ path: repo, name: "shop", last_fetch: null }]));
    const tree = await server.client.readResource({ uri: "twig://repo/tree?repo=shop" });
    expect((tree.contents[0] as { text: string }).text).toBe(EXAMPLE_TREE_TEXT);
    await expect(server.client.readResource({ uri: "twig://repo/nope" })).rejects.toThrow(/Resource not found/);
    await expect(server.client.readResource({ uri: "twig://branch/nope/context" })).rejects.toThrow(/not found/);
    await expect(server.client.readResource({ uri: "twig://repo/tree?repo=elsewhere" })).rejects.toThrow(
      /No repository named/,
    );
    rmSync(join(home.twigDataDir, "registry.json"));
  });
});

describe("subscriptions", () => {
  test("updates after a checkout and after a state change; none after unsubscribing", async () => {
    const server = await startServer({ cwd: repo, env: home.env });
    const updates: string[] = [];
    let arrived = () => {};
    server.client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
      updates.push(n.params.uri);
      arrived();
    });
    /** Resolves once `predicate` holds, checked after every update notification. */
    const waitFor = async (predicate: () => boolean) => {
      while (!predicate()) await new Promise<void>((resolve) => (arrived = resolve));
      return true;
    };
    try {
      await server.client.subscribeResource({ uri: "twig://repo/tree" });
      await server.client.subscribeResource({ uri: "twig://repo/branches" });

      git(repo, "checkout", "-q", "main");
      expect(await waitFor(() => updates.includes("twig://repo/tree"))).toBe(true);
      // A second HEAD change, awaited, is the barrier: an update for branches caused by the first
      // would have come with or before the first tree update, long before this one.
      const treeUpdates = updates.filter((uri) => uri === "twig://repo/tree").length;
      git(repo, "checkout", "-q", "feature/auth-ui");
      await waitFor(() => updates.filter((uri) => uri === "twig://repo/tree").length > treeUpdates);
      expect(updates).not.toContain("twig://repo/branches");

      updates.length = 0;
      writeFileSync(join(repo, ".twig", "state.json"), twigJson({ ...EXAMPLE_STATE, worktrees: [] }));
      expect(
        await waitFor(() => updates.includes("twig://repo/branches") && updates.includes("twig://repo/tree")),
      ).toBe(true);

      await server.client.unsubscribeResource({ uri: "twig://repo/tree" });
      // Updates sent before the server took the unsubscription arrived before its answer (stdout is
      // ordered); none can follow it.
      await server.client.unsubscribeResource({ uri: "twig://repo/branches" });
      updates.length = 0;
      git(repo, "branch", "after-unsubscribe");
      writeFileSync(join(repo, ".twig", "state.json"), twigJson(EXAMPLE_STATE));
      // Barrier: subscribe to the tree again and wait for an update from a fresh change. Nothing
      // for branches may have arrived, and nothing at all before the new subscription.
      const before = [...updates];
      await server.client.subscribeResource({ uri: "twig://repo/tree" });
      git(repo, "checkout", "-q", "main");
      await waitFor(() => updates.includes("twig://repo/tree"));
      expect(before).toEqual([]);
      expect(updates).not.toContain("twig://repo/branches");
    } finally {
      git(repo, "checkout", "-q", "feature/auth-ui");
      await server.close();
    }
  });
});

describe("feature switches and logging", () => {
  test("--disable prompts and --disable resources remove those capabilities", async () => {
    const server = await startServer({
      cwd: repo,
      env: home.env,
      args: ["--disable", "prompts", "--disable", "resources"],
    });
    try {
      const capabilities = server.client.getServerCapabilities();
      expect(capabilities?.prompts).toBeUndefined();
      expect(capabilities?.resources).toBeUndefined();
      expect(capabilities?.completions).toBeUndefined();
      await expect(
        server.client.request({ method: "prompts/list" }, LoggingMessageNotificationSchema as never),
      ).rejects.toThrow(/Method not found/);
    } finally {
      await server.close();
    }
  });

  test("logging/setLevel is honoured and notable events arrive as notifications/message", async () => {
    const corrupt = join(root, "corrupt");
    mkdirSync(join(corrupt, ".twig"), { recursive: true });
    git(corrupt, "init", "-q", "-b", "main");
    writeFileSync(join(corrupt, ".twig", "state.json"), "{oops");
    const server = await startServer({ cwd: corrupt, env: home.env });
    const messages: Array<{ level: string; data: unknown }> = [];
    server.client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
      messages.push({ level: n.params.level, data: n.params.data });
    });
    try {
      await server.client.setLoggingLevel("error");
      // A log message is written before the answer of the call that caused it (stdout is ordered),
      // so once the answer is in, any message from this call is too.
      await server.call("get_current_branch");
      expect(messages).toEqual([]);
      await server.client.setLoggingLevel("warning");
      await server.call("get_current_branch");
      expect(messages[0]?.level).toBe("warning");
      expect(String(messages[0]?.data)).toContain("Failed to parse state file");
    } finally {
      await server.close();
    }
  });
});
