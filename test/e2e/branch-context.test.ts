import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SHOP_123, SHOP_200 } from "../jira/fixtures/issues.ts";
import { RICH_ADF_TEXT } from "../jira/fixtures/rich-adf.ts";
import { checkRunPayload, FakeGitHub, reviewPayload } from "../support/fake-github.ts";
import { FakeJira, USERS } from "../support/fake-jira.ts";
import { gitOrThrow, makeExampleRepo } from "../support/git-repo.ts";
import { type HermeticHome, makeHermeticHome } from "../support/hermetic-env.ts";
import { type RunningServer, startServer } from "../support/mcp-harness.ts";

/**
 * get_branch_context through the compiled binary, against a fake GitHub and a fake Jira Cloud on
 * 127.0.0.1, with every combination of what is configured.
 */

// Each server is a compiled process; on a busy two-core machine that takes longer than 5 s.
setDefaultTimeout(30_000);

const TOKEN = "ghp_branchcontexttoken00000000000000000";
const EMAIL = "alice@example.com";
const API_TOKEN = "atatt-branch-context-token-0c41";
const SHA_42 = "a".repeat(40);
const SHA_43 = "b".repeat(40);

interface Part {
  status: string;
  data?: Record<string, unknown>;
  error?: { code: string; message: string; hint?: string };
}
interface Doc {
  branch: Record<string, unknown>;
  stack: Array<{ branch: string }>;
  pull_request: Part;
  jira_issue: Part;
  next_steps: Array<{ branch: string; what: string; why: string; command: string; forecast?: { result: string } }>;
  detail: string;
}

let root: string;
let repo: string;
let bare: string;
let github: FakeGitHub;
let jira: FakeJira;
const homes: HermeticHome[] = [];
let full: RunningServer;
let githubOnly: RunningServer;
let neither: RunningServer;
let disabled: RunningServer;
let noRemote: RunningServer;

function git(cwd: string, ...args: string[]): string {
  return gitOrThrow(cwd, homes[0]?.home ?? tmpdir(), ...args);
}

function exampleRepo(dir: string, remote: boolean): string {
  const origin = remote ? { origin: "git@github.com:octo/shop.git" } : {};
  const path = makeExampleRepo(dir, homes[0]?.home ?? tmpdir(), { checkout: "feature/auth", ...origin });
  // main moves on, so feature/auth (whose twig parent is main) is one commit behind.
  const tree = git(path, "rev-parse", "main^{tree}").trim();
  git(
    path,
    "update-ref",
    "refs/heads/main",
    git(path, "commit-tree", tree, "-p", "main", "-m", "main moves on").trim(),
  );
  return path;
}

async function context(server: RunningServer, args: Record<string, unknown> = {}): Promise<Doc> {
  const result = await server.call("get_branch_context", args);
  expect(result.envelope.status).toBe("ok");
  return result.envelope.data as Doc;
}

beforeAll(async () => {
  github = await FakeGitHub.start({ token: TOKEN });
  github.addPull({ owner: "octo", repo: "shop", number: 42, head: "feature/auth", headSha: SHA_42, title: "Auth" });
  github.addPull({ owner: "octo", repo: "shop", number: 43, head: "feature/auth-ui", headSha: SHA_43, title: "UI" });
  const data = github.repo("octo", "shop");
  data.reviews.set(42, [reviewPayload({ login: "alice", state: "APPROVED" })]);
  data.checkRuns.set(SHA_42, [
    checkRunPayload({ id: 1, name: "build" }),
    checkRunPayload({ id: 2, name: "lint", conclusion: "failure" }),
    checkRunPayload({ id: 3, name: "e2e", status: "queued", startedAt: null }),
  ]);
  // A busy PR: 400 check runs (150 failing, 50 pending) and 60 reviewers.
  data.checkRuns.set(
    SHA_43,
    Array.from({ length: 400 }, (_, i) =>
      checkRunPayload({
        id: 100 + i,
        name: `matrix / job-${i} (ubuntu-latest, node-${i % 7})`,
        ...(i < 150 ? { conclusion: "failure" } : i < 200 ? { status: "in_progress", startedAt: null } : {}),
      }),
    ),
  );
  data.reviews.set(
    43,
    Array.from({ length: 60 }, (_, i) =>
      reviewPayload({ id: 1000 + i, login: `reviewer-${i}`, state: i % 2 ? "APPROVED" : "CHANGES_REQUESTED" }),
    ),
  );

  jira = FakeJira.start({ deployment: "cloud", me: USERS.alice });
  jira.addIssues(SHOP_123, SHOP_200);

  const home = (env: Record<string, string>) => {
    const made = makeHermeticHome({ TWIG_MCP_HTTP_TIMEOUT_MS: "1500", ...env });
    homes.push(made);
    return made;
  };
  const githubEnv = { GITHUB_API_URL: github.url, GH_TOKEN: TOKEN };
  const jiraEnv = { JIRA_HOST: jira.url, JIRA_EMAIL: EMAIL, JIRA_API_TOKEN: API_TOKEN };
  const fullHome = home({ ...githubEnv, ...jiraEnv });
  const githubHome = home(githubEnv);
  const neitherHome = home({});

  root = realpathSync(mkdtempSync(join(tmpdir(), "twig-mcp-branch-context-")));
  repo = exampleRepo(join(root, "shop"), true);
  bare = exampleRepo(join(root, "no-remote"), false);

  [full, githubOnly, neither, disabled, noRemote] = await Promise.all([
    startServer({ cwd: repo, env: fullHome.env }),
    startServer({ cwd: repo, env: githubHome.env }),
    startServer({ cwd: repo, env: neitherHome.env }),
    startServer({ cwd: repo, env: fullHome.env, args: ["--disable", "github", "--disable", "jira"] }),
    startServer({ cwd: bare, env: fullHome.env }),
  ]);
}, 60_000);

afterAll(async () => {
  await Promise.all([full, githubOnly, neither, disabled, noRemote].map((server) => server?.close()));
  await github?.stop();
  jira?.stop();
  for (const home of homes) home.cleanup();
  if (root) rmSync(root, { recursive: true, force: true });
});

describe("get_branch_context", () => {
  test("everything configured: the branch, its stack, the PR's and the issue's summaries in one reply", async () => {
    const doc = await context(full);
    expect(doc.branch).toEqual({
      branch: "feature/auth",
      jira_issue: "SHOP-123",
      pr_number: 42,
      parent_branch: "main",
      created_at: "2025-06-01T10:00:00+00:00",
      head: {
        sha: git(repo, "rev-parse", "feature/auth"),
        subject: "init",
        committed_at: git(repo, "log", "-1", "--format=%cI", "feature/auth"),
      },
      base: "main",
      ahead: 0,
      behind: 1,
      needs_restack: true,
      push: { remote_ref: "refs/remotes/origin/feature/auth", missing: true },
      // The fake PR's head is no commit here: said, not guessed.
      commit_warnings: [
        "The PR head aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa is not in the local repository: `git fetch` to compare 'feature/auth' with it",
      ],
      action: { kind: "restack", onto: "main", why: "1 commit behind main" },
      children: [{ branch: "feature/auth-ui", pr_number: 43 }],
    });
    expect(doc.next_steps).toEqual([
      {
        branch: "feature/auth",
        what: "restack onto main",
        why: "1 commit behind main",
        // Checked out here: rebased here. Never fetched: the lease is the PR's head on GitHub.
        command: `git rebase main feature/auth && git push --force-with-lease=feature/auth:${SHA_42} origin -- feature/auth`,
        forecast: { result: "clean" },
      },
    ]);
    expect(doc.stack.map((record) => record.branch)).toEqual(["feature/auth", "main"]);
    expect(doc.pull_request).toEqual({
      status: "ok",
      data: {
        number: 42,
        title: "Auth",
        url: "https://github.com/octo/shop/pull/42",
        state: "open",
        draft: false,
        mergeable: true,
        base: "main",
        review_decision: "approved",
        approved_by: ["alice"],
        changes_requested_by: [],
        reviewers: 1,
        verdict: "failing",
        checks: { total: 3, passing: 1, failing: 1, pending: 1 },
        failing_checks: ["lint"],
        pending_checks: ["e2e"],
        found_by: "twig_link",
      },
    });
    const issue = doc.jira_issue.data as Record<string, unknown>;
    expect(doc.jira_issue.status).toBe("ok");
    expect(issue).toMatchObject({
      key: "SHOP-123",
      summary: "Checkout fails for guests",
      status: "In Progress",
      assignee: "Alice Example",
      issue_type: "Bug",
    });
    const whole = Array.from(RICH_ADF_TEXT);
    expect(whole.length).toBeGreaterThan(300);
    expect(issue.description_length).toBe(whole.length);
    expect(issue.description).toBe(`${whole.slice(0, 299).join("")}…`);
    expect(doc.detail).toContain("get_pr_status");
    expect(doc.detail).toContain("get_jira_issue");
    // Its CI is failing: the logs are one call away.
    expect(doc.detail).toContain("CI is failing: get_ci_log");
  });

  test("the resource twig://branch/{name}/context is the same document", async () => {
    const tool = await context(full, { branch: "feature/auth" });
    const read = await full.client.readResource({ uri: "twig://branch/feature%2Fauth/context" });
    expect(JSON.parse((read.contents[0] as { text: string }).text)).toEqual(tool);
  });

  test("a PR with 400 checks and 60 reviewers stays within 6,000 bytes and counts what it does not name", async () => {
    const result = await full.call("get_branch_context", { branch: "feature/auth-ui" });
    expect(Buffer.byteLength(result.text)).toBeLessThanOrEqual(6000);
    const pr = (result.envelope.data as Doc).pull_request.data as Record<string, unknown>;
    expect(pr.checks).toEqual({ total: 400, passing: 200, failing: 150, pending: 50 });
    expect(pr.failing_checks).toHaveLength(10);
    expect(pr.pending_checks).toHaveLength(10);
    expect(pr.review_decision).toBe("changes_requested");
    expect(pr.reviewers).toBe(60);
    expect((pr.approved_by as string[]).length).toBe(10);
  });

  test("GitHub only: the issue part is not_configured with the hint doctor gives", async () => {
    const doc = await context(githubOnly);
    expect(doc.pull_request.status).toBe("ok");
    expect(doc.jira_issue.status).toBe("not_configured");
    expect(doc.jira_issue.error?.code).toBe("credentials_missing");
    expect(doc.jira_issue.error?.hint).toContain("Set JIRA_HOST");
  });

  test("neither configured: the local parts answer, each live part says not_configured", async () => {
    const doc = await context(neither);
    expect(doc.stack.map((record) => record.branch)).toEqual(["feature/auth", "main"]);
    expect(doc.pull_request.status).toBe("not_configured");
    expect(doc.pull_request.error?.code).toBe("credentials_missing");
    expect(doc.pull_request.error?.hint).toContain("GH_TOKEN");
    expect(doc.jira_issue.status).toBe("not_configured");
  });

  test("no GitHub remote: the PR part is not_configured with the remote's hint", async () => {
    const doc = await context(noRemote);
    expect(doc.pull_request.status).toBe("not_configured");
    expect(doc.pull_request.error?.message).toContain("no remotes");
    expect(doc.pull_request.error?.hint).toContain("git remote add origin");
    // get_branch_context takes no owner or repo, so its hint does not offer them.
    expect(doc.pull_request.error?.hint).not.toContain("`owner`");
    expect(doc.jira_issue.status).toBe("ok");
  });

  test("a Jira that times out is reported inline with its code; the PR still answers", async () => {
    jira.fail({ path: /\/issue\//, respond: "hang", times: 5 });
    try {
      const doc = await context(full);
      expect(doc.pull_request.status).toBe("ok");
      expect(doc.jira_issue.status).toBe("error");
      expect(doc.jira_issue.error?.code).toBe("network_error");
      expect(doc.jira_issue.error?.message).toContain("did not answer");
    } finally {
      jira.clearFaults();
    }
  });

  test("an issue without a description, a branch without a PR", async () => {
    const doc = await context(full, { branch: "feature/billing" });
    expect(doc.pull_request).toEqual({ status: "not_linked" });
    expect(doc.jira_issue).toEqual({
      status: "ok",
      data: {
        key: "SHOP-200",
        summary: "Billing page",
        status: "To Do",
        issue_type: "Story",
        url: `${jira.url}/browse/SHOP-200`,
      },
    });
  });

  test("a branch twig links to no PR gets the one GitHub has from it, found by head ref", async () => {
    github.addPull({
      owner: "octo",
      repo: "shop",
      number: 50,
      head: "hotfix/typo",
      headSha: "c".repeat(40),
      title: "Typo",
    });
    try {
      const doc = await context(full, { branch: "hotfix/typo" });
      expect(doc.pull_request.status).toBe("ok");
      expect(doc.pull_request.data).toMatchObject({ number: 50, title: "Typo", found_by: "head_ref" });
    } finally {
      github.repo("octo", "shop").pulls.delete(50);
    }
  });

  test("a branch with no PR and no issue", async () => {
    const doc = await context(full, { branch: "hotfix/typo" });
    // No declared parent: counted against the default root, as twig does.
    expect(doc.branch).toMatchObject({ branch: "hotfix/typo", base: "main", ahead: 0, behind: 1 });
    expect(doc.stack).toEqual([{ branch: "hotfix/typo" }]);
    expect(doc.pull_request).toEqual({ status: "not_linked" });
    expect(doc.detail).not.toContain("get_ci_log");
    expect(doc.jira_issue).toEqual({ status: "not_linked" });
  });

  test("with --disable github --disable jira it still answers, those parts disabled", async () => {
    const doc = await context(disabled);
    expect(doc.branch.branch).toBe("feature/auth");
    expect(doc.pull_request).toEqual({ status: "disabled" });
    expect(doc.jira_issue).toEqual({ status: "disabled" });
    expect(doc.detail).not.toContain("get_ci_log");
  });

  test("a detached HEAD without `branch` is the not_found get_current_branch gives", async () => {
    git(repo, "checkout", "-q", "--detach");
    try {
      const result = await neither.call("get_branch_context");
      const current = await neither.call("get_current_branch");
      expect(result.isError).toBe(true);
      expect(result.envelope.error?.code).toBe("not_found");
      expect(result.envelope.error).toEqual(current.envelope.error);
      const named = await context(neither, { branch: "feature/auth" });
      expect(named.branch.branch).toBe("feature/auth");
    } finally {
      git(repo, "checkout", "-q", "feature/auth");
    }
  });

  test("a PR that is gone (404) is reported inline with its code", async () => {
    github.repo("octo", "shop").pulls.delete(43);
    const doc = await context(full, { branch: "feature/auth-ui" });
    expect(doc.pull_request.status).toBe("error");
    expect(doc.pull_request.error?.code).toBe("not_found");
    expect(doc.stack.map((record) => record.branch)).toEqual(["feature/auth-ui", "feature/auth", "main"]);
  });

  test("bad input is invalid_params, never a crash", async () => {
    const result = await neither.call("get_branch_context", { branch: "../../etc/passwd" });
    expect(result.envelope.error?.code).toBe("invalid_params");
    const missing = await neither.call("get_branch_context", { branch: "no/such-branch" });
    expect(missing.envelope.error?.code).toBe("not_found");
  });
});

describe("prompts read the same document and validate their arguments by schema", () => {
  test("branch-context writes the summaries of get_branch_context as text", async () => {
    const result = await full.client.getPrompt({ name: "branch-context", arguments: { branch: "feature/auth" } });
    const text = (result.messages[0]?.content as { text: string } | undefined)?.text;
    expect(text).toContain(
      '\nJira issue: SHOP-123 "Checkout fails for guests" — status: In Progress, assignee: Alice Example, type: Bug\n',
    );
    expect(text).toContain(
      '\nPull request: PR #42 "Auth" — open, reviews: approved by alice, CI: failing (1/3 passing, 1 failing, 1 pending)\n',
    );
  });

  test("a bad argument is -32602 invalid params naming it", async () => {
    for (const [name, args, argument] of [
      ["review-pr", { pr_number: "0" }, "pr_number"],
      ["review-pr", { pr_number: "12345678901" }, "pr_number"],
      ["plan-issue", { issue_key: "not a key" }, "issue_key"],
      ["branch-context", { branch: "a..b" }, "branch"],
    ] as const) {
      const error = await neither.client.getPrompt({ name, arguments: args }).catch((e: unknown) => e);
      expect(error).toMatchObject({ code: -32602 });
      expect(String((error as Error).message)).toContain(`Failed to parse parameters: ${argument}: `);
    }
  });
});
