import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import * as v from "valibot";
import { ok } from "../../src/core/result.ts";
import { ToolRegistry } from "../../src/mcp/tool-registry.ts";
import { getStackStatusTool } from "../../src/tools/get-stack-status.ts";
import type { ServiceContext } from "../../src/tools/shared/context.ts";
import type { ToolDefinition, ToolGroup } from "../../src/tools/shared/define.ts";
import { cleanupTemp, git, makeContext, makeRepo, TOKEN } from "../github/helpers.ts";
import { API_TOKEN, BASIC_AUTH, EMAIL } from "../jira/helpers.ts";
import { checkRunPayload, FakeGitHub } from "../support/fake-github.ts";
import { warmGitHubSchema } from "../support/fake-github-graphql.ts";
import { FakeJira, USERS } from "../support/fake-jira.ts";
import { unlinkedState } from "../support/fixtures.ts";
import {
  OWNER,
  REPO,
  REVIEW_BODY,
  STACK_BRANCHES,
  seedGitHub,
  seedJira,
  stackState,
  writeStack,
} from "../support/stack-fixture.ts";
import { countTokens } from "../support/tokens.ts";

type Output = v.InferOutput<typeof getStackStatusTool.output>;
type Entry = Output["branches"][number];

let github: FakeGitHub;
let cloud: FakeJira;
let server: FakeJira;
let repo: string;

beforeAll(async () => {
  await warmGitHubSchema();
  github = await FakeGitHub.start({ token: TOKEN });
  cloud = FakeJira.start({ deployment: "cloud", expectedAuthorization: BASIC_AUTH, me: USERS.alice });
  server = FakeJira.start({ deployment: "server", expectedAuthorization: BASIC_AUTH, me: USERS.alice });
  seedJira(cloud);
  seedJira(server);
  repo = makeRepo({ branch: "main", remotes: [["origin", `git@github.com:${OWNER}/${REPO}.git`]] });
  writeStack(repo, (...args) => git(repo, ...args));
  git(repo, "checkout", "-q", "feature/auth-ui");
});
afterEach(async () => {
  await github.settled();
  github.reset();
  github.repos.clear();
  github.latencyMs = 0;
  cloud.requests.length = 0;
  server.requests.length = 0;
});
afterAll(async () => {
  await github.stop();
  await cloud.stop();
  await server.stop();
  cleanupTemp();
});

function context(options: { github?: boolean; jira?: FakeJira | null; repoPath?: string } = {}): ServiceContext {
  const jira = options.jira === undefined ? cloud : options.jira;
  return makeContext({
    env: {
      ...(options.github === false ? { GITHUB_API_URL: github.url } : github.env(TOKEN)),
      ...(jira === null ? {} : { JIRA_HOST: jira.url, JIRA_EMAIL: EMAIL, JIRA_API_TOKEN: API_TOKEN }),
    },
    repo: ok(options.repoPath ?? repo),
  }).ctx;
}

async function stackStatus(
  args: Record<string, unknown>,
  ctx: ServiceContext,
  disabled: ToolGroup[] = [],
): Promise<Output> {
  const result = await getStackStatusTool.handler(args, ctx, {
    signal: new AbortController().signal,
    enabled: (group) => !disabled.includes(group),
  });
  if (!result.ok) throw new Error(`expected ok, got ${JSON.stringify(result.error)}`);
  // What the registry checks before sending: the answer validates against the published schema.
  const checked = v.safeParse(getStackStatusTool.output, result.value);
  expect(checked.success).toBe(true);
  return result.value;
}

/** Each entry without its commit, push and action fields, which the tests below check on repositories made for them. */
const byBranch = (answer: Output) =>
  new Map(
    answer.branches.map(
      ({ head: _h, base: _b, ahead: _a, behind: _d, needs_restack: _n, push: _p, action: _x, ...entry }) => [
        entry.branch,
        entry,
      ],
    ),
  );

describe("get_stack_status with GitHub and Jira Cloud", () => {
  test("the current branch's stack, root down in drawing order, with each PR's reasons and drift", async () => {
    seedGitHub(github);
    const answer = await stackStatus({}, context());
    expect(answer.scope).toBe("stack");
    expect(answer.branches.map(({ branch, parent, depth }) => [branch, parent, depth])).toEqual([
      ["feature/auth", "main", 0],
      ["feature/auth-oauth", "feature/auth", 1],
      ["feature/auth-docs", "feature/auth-oauth", 2],
      ["feature/auth-ui", "feature/auth-oauth", 2],
      ["feature/auth-tests", "feature/auth-ui", 3],
      ["feature/auth-session", "feature/auth", 1],
    ]);
    const entries = byBranch(answer);
    expect(entries.get("feature/auth")).toEqual({
      branch: "feature/auth",
      parent: "main",
      depth: 0,
      pr: { number: 101, state: "merged", base: "main", review: "approved", ci: "passing" },
      jira: { key: "SHOP-1", status: "Done" },
    });
    expect(entries.get("feature/auth-oauth")).toEqual({
      branch: "feature/auth-oauth",
      parent: "feature/auth",
      depth: 1,
      pr: {
        number: 102,
        state: "open",
        base: "feature/auth",
        review: "changes_requested",
        ci: "failing",
        stack: { number: 7, position: 2, size: 4 },
        changes_requested: [{ author: "carol", excerpt: REVIEW_BODY }],
        failing: [
          {
            name: "pytest",
            excerpt:
              "2 failed, 148 passed: FAILED tests/test_oauth.py::test_refresh_expired - AssertionError: 401 != 200",
            // Its base is the merged #101's branch, whose head passes pytest.
            triage: {
              verdict: "new",
              why: "pytest passes on feature/auth (head 111111111111)",
              hint: "Caused by this PR: fix it (feature/auth does not fail it).",
              base: { ref: "feature/auth" },
            },
          },
        ],
      },
      drift: ["retarget"],
      jira: { key: "SHOP-2", status: "In Progress" },
    });
    expect(entries.get("feature/auth-docs")).toMatchObject({
      pr: {
        number: 104,
        state: "open",
        base: "main",
        review: "review_required",
        ci: "failing",
        requested: ["dave"],
        failing: [{ name: "docs", excerpt: "mkdocs build failed: Broken link: guides/oauth.md -> setup.md#tokens" }],
      },
      drift: ["base_differs", "native_order"],
    });
    expect(entries.get("feature/auth-ui")).toMatchObject({
      pr: { number: 103, state: "draft", ci: "pending", stack: { number: 7, position: 3, size: 4 } },
      jira: { key: "SHOP-3", status: "In Review" },
    });
    expect(entries.get("feature/auth-ui")?.drift).toBeUndefined();
    expect(entries.get("feature/auth-tests")?.pr).toEqual({
      number: 105,
      state: "open",
      base: "feature/auth-ui",
      review: "approved",
      ci: "passing",
      found_by: "head_ref",
    });
    // Its parent merged, and it already targets the parent's base: nothing to fix.
    expect(entries.get("feature/auth-session")).toMatchObject({ pr: { number: 108, base: "main", state: "open" } });
    expect(entries.get("feature/auth-session")?.drift).toBeUndefined();

    expect(answer.summary).toBe("6 branches, 6 PRs: 2 ready, 2 blocked, 1 draft, 1 merged");
    expect(answer.lines[1]).toBe(
      "  feature/auth-oauth  #102 open · changes requested by carol · CI failing: pytest (2 failed, 148 passed: FAILED tests/test_oauth.py::test_refr…), new · SHOP-2 In Progress · move onto main, retarget #102: clean · no remote branch",
    );
    expect(answer.lines[4]).toBe(
      "      feature/auth-tests  #105 open (found by branch) · approved · CI passing · restack after feature/auth-ui: clean · no remote branch",
    );
    // The merged PR's branch is cleaned up, never restacked; its children move onto main, theirs follow.
    expect(answer.branches.map(({ branch, action }) => [branch, action?.kind, action?.onto, action?.retarget])).toEqual(
      [
        ["feature/auth", "clean_up", undefined, undefined],
        ["feature/auth-oauth", "move", "main", 102],
        ["feature/auth-docs", "follow", "feature/auth-oauth", undefined],
        ["feature/auth-ui", "follow", "feature/auth-oauth", undefined],
        ["feature/auth-tests", "follow", "feature/auth-ui", undefined],
        ["feature/auth-session", "move", "main", undefined],
      ],
    );
    // #101's head is not in the clone: the merged branch is not deleted on unverified evidence.
    expect(answer.branches[0]?.action?.why).toBe(
      "its PR #101 is merged; not deleted: the merged PR's head is not here (git fetch)",
    );
    const [first] = answer.next_steps;
    expect(first).toMatchObject({
      branch: "feature/auth-oauth",
      what: "move onto main, retarget #102",
      why: "its parent feature/auth is merged",
    });
    // Never pushed from here: the lease is the PR's head on GitHub.
    expect(first?.command).toMatch(
      /^git rebase --onto main [0-9a-f]{40} feature\/auth-oauth && twig branch depend feature\/auth-oauth main && twig branch remove-dep feature\/auth-oauth feature\/auth && git push --force-with-lease=feature\/auth-oauth:2{40} origin -- feature\/auth-oauth && gh pr edit 102 --base main$/,
    );
    expect(answer.github).toBeUndefined();
    expect(answer.jira).toBeUndefined();
    expect(answer.next_cursor).toBeUndefined();
    // Two open PRs with failing CI: their logs are one get_ci_log away.
    expect(answer.hint).toBe("CI failing on #102, #104: get_ci_log with pr_number has the logs.");
    // Never a PR body.
    expect(JSON.stringify(answer)).not.toContain("never repeats");
  });

  test("two round trips to GitHub and one Jira request, whatever the stack's size", async () => {
    seedGitHub(github);
    // Every answer is held: what arrives before a release was sent without waiting for an answer.
    github.holdEveryAnswer = true;
    const answer = stackStatus({}, context());
    // Round one: 5 linked PRs and 1 head-ref lookup, all sent before any answer.
    await github.awaitRequestCount(6);
    const first = github.requests.map((r) => r.path);
    github.release();
    // Round two: 3 lists for each of the 6 PRs, one GraphQL request for all their threads, and main's head checks
    // (runs and statuses, once for the three PRs on it: the other bases are PRs' heads already listed), all sent
    // before any of them is answered.
    await github.awaitRequestCount(27);
    github.holdEveryAnswer = false;
    github.release();
    await answer;
    expect(first.filter((path) => path.startsWith("/repos/acme/shop/pulls"))).toHaveLength(6);
    expect(github.requests).toHaveLength(6 + 18 + 1 + 2);
    expect(github.requestsTo(/\/commits\/main\//)).toHaveLength(2);
    expect(first).not.toContain("/graphql");
    expect(github.requestsTo("/graphql")).toHaveLength(1);
    expect(github.requestsTo(/\/pulls$/).map((r) => r.query.head)).toEqual(["acme:feature/auth-tests"]);
    // Cloud: one bulk fetch of the page's keys, never a request per issue.
    const asked = cloud.requests.filter((r) => r.path !== "/rest/api/2/serverInfo").map((r) => r.path);
    expect(asked).toEqual(["/rest/api/3/issue/bulkfetch"]);
    const fetch = cloud.requests.find((r) => r.path === "/rest/api/3/issue/bulkfetch");
    expect(fetch?.body).toMatchObject({ issueIdsOrKeys: ["SHOP-1", "SHOP-2", "SHOP-3"] });
  });

  test("each PR's unresolved threads in its entry and line; a GraphQL failure leaves the rest answering", async () => {
    seedGitHub(github);
    const thread = (isResolved: boolean) => ({
      path: "a.ts",
      line: 1,
      isResolved,
      comments: [{ author: "eve", body: "?" }],
    });
    github.repo(OWNER, REPO).reviewThreads.set(102, [thread(false), thread(false), thread(true), thread(false)]);
    const answer = await stackStatus({}, context());
    expect(byBranch(answer).get("feature/auth-oauth")?.pr?.unresolved_threads).toBe(3);
    expect(answer.lines.find((line) => line.includes("#102"))).toContain(
      " · CI failing: pytest (2 failed, 148 passed: FAILED tests/test_oauth.py::test_refr…), new · 3 unresolved threads · ",
    );
    expect(byBranch(answer).get("feature/auth-ui")?.pr).not.toHaveProperty("unresolved_threads");

    github.inject("POST", "/graphql", { body: { errors: [{ type: "FORBIDDEN", message: "SAML enforcement" }] } });
    const degraded = await stackStatus({}, context());
    expect(degraded.unavailable?.join(" ")).toContain("GraphQL API");
    expect(byBranch(degraded).get("feature/auth-oauth")?.pr).toMatchObject({ number: 102, state: "open" });
    expect(degraded.lines.join("\n")).not.toContain("unresolved");
  });

  // With each branch's action and the next steps (commands with old bases and leases by commit id, pushes included)
  // it is still a small part of the reply budget.
  test("a six-branch stack with two failing PRs stays under 2,000 tokens", async () => {
    seedGitHub(github);
    const answer = await stackStatus({}, context());
    const tokens = countTokens(JSON.stringify({ status: "ok", data: answer }));
    expect(tokens).toBeLessThan(2000);
  });

  test("each failing check says whose it is: inherited from the parent PR, also failing on main", async () => {
    seedGitHub(github);
    const data = github.repo(OWNER, REPO);
    // #103 (on #102's branch) fails the pytest #102 fails; main's head fails #104's docs too.
    const failing = (id: number, name: string) => checkRunPayload({ id, name, conclusion: "failure" });
    data.checkRuns.set("3".repeat(40), [failing(30, "pytest")]);
    data.branches.set("main", "e".repeat(40));
    data.checkRuns.set("e".repeat(40), [{ ...failing(31, "docs"), head_sha: "e".repeat(40) }]);
    const answer = await stackStatus({}, context());
    const entries = byBranch(answer);
    expect(entries.get("feature/auth-ui")?.pr?.failing?.[0]?.triage).toEqual({
      verdict: "inherited",
      why: "pytest fails on feature/auth-oauth (head 222222222222, #102) too",
      hint: "Not caused by this PR: fix or wait on feature/auth-oauth (#102).",
      base: { ref: "feature/auth-oauth", pr: 102 },
    });
    expect(entries.get("feature/auth-docs")?.pr?.failing?.[0]?.triage).toMatchObject({ verdict: "also_on_base" });
    expect(answer.lines.find((line) => line.includes("#104"))).toContain(
      "CI failing: docs (mkdocs build failed: Broken link: guides/oauth.md -> setup.…), also failing on main · ",
    );
    expect(answer.lines.find((line) => line.includes("#103"))).toContain(
      "…), inherited from #102 (feature/auth-oauth) · ",
    );
    // main's head was read once for the three PRs on it; #102's listing served #103 as its base.
    expect(github.requestsTo(/\/commits\/main\/check-runs$/)).toHaveLength(1);
    expect(github.requestsTo(/\/commits\/feature/)).toHaveLength(0);
  });

  test("scope all: every stack, the other stack's PR too", async () => {
    seedGitHub(github);
    const answer = await stackStatus({ scope: "all" }, context());
    expect(answer.branches.map((entry) => entry.branch)).toEqual([...STACK_BRANCHES, "feature/billing"]);
    expect(byBranch(answer).get("feature/billing")).toMatchObject({
      depth: 0,
      pr: { number: 106, review: "approved", ci: "passing" },
      jira: { key: "SHOP-4", status: "To Do" },
    });
  });

  test("branch names another stack; a trunk's stack is every stack on it", async () => {
    seedGitHub(github);
    const billing = await stackStatus({ branch: "feature/billing" }, context());
    expect(billing.branches.map((entry) => entry.branch)).toEqual(["feature/billing"]);
    expect(billing.hint).toBeUndefined();
    const trunk = await stackStatus({ branch: "main" }, context({ jira: null }), ["github"]);
    expect(trunk.branches).toHaveLength(7);
  });
});

describe("get_stack_status degrades part by part", () => {
  test("Jira Data Center: one search, and an issue it cannot find does not fail the others", async () => {
    seedGitHub(github);
    server.issues.delete("SHOP-3");
    try {
      const answer = await stackStatus({}, context({ jira: server }));
      const entries = byBranch(answer);
      expect(entries.get("feature/auth-oauth")?.jira).toEqual({ key: "SHOP-2", status: "In Progress" });
      expect(entries.get("feature/auth-ui")?.jira).toEqual({ key: "SHOP-3" });
      const searches = server.requests.filter((r) => r.path === "/rest/api/2/search");
      expect(searches).toHaveLength(1);
      expect(searches[0]?.body).toMatchObject({ validateQuery: false, fields: ["status"] });
      expect(answer.jira).toBeUndefined();
    } finally {
      seedJira(server);
    }
  });

  test("Jira Cloud: one bulk fetch, and an issue it cannot find does not fail the others", async () => {
    seedGitHub(github);
    cloud.issues.delete("SHOP-3");
    try {
      const answer = await stackStatus({}, context({ jira: cloud }));
      const entries = byBranch(answer);
      expect(entries.get("feature/auth-oauth")?.jira).toEqual({ key: "SHOP-2", status: "In Progress" });
      expect(entries.get("feature/auth-ui")?.jira).toEqual({ key: "SHOP-3" });
      const fetches = cloud.requests.filter((r) => r.path === "/rest/api/3/issue/bulkfetch");
      expect(fetches).toHaveLength(1);
      expect(fetches[0]?.body).toMatchObject({ fields: ["status"] });
      expect(answer.jira).toBeUndefined();
    } finally {
      seedJira(cloud);
    }
  });

  test("without GitHub credentials: the local stack and Jira answer, GitHub is not configured with the hint", async () => {
    seedGitHub(github);
    const answer = await stackStatus({}, context({ github: false }));
    expect(answer.github?.status).toBe("not_configured");
    expect(answer.github?.error?.code).toBe("credentials_missing");
    expect(answer.github?.error?.hint).toBeTruthy();
    expect(answer.summary).toContain("GitHub not configured");
    expect(byBranch(answer).get("feature/auth-oauth")).toEqual({
      branch: "feature/auth-oauth",
      parent: "feature/auth",
      depth: 1,
      pr: { number: 102 },
      jira: { key: "SHOP-2", status: "In Progress" },
    });
    expect(byBranch(answer).get("feature/auth-tests")?.pr).toBeUndefined();
    expect(github.requests).toHaveLength(0);
  });

  test("--disable github and --disable jira: those parts say disabled; nothing is asked", async () => {
    const answer = await stackStatus({}, context(), ["github", "jira"]);
    expect(answer.github).toEqual({ status: "disabled" });
    expect(answer.jira).toEqual({ status: "disabled" });
    expect(answer.branches).toHaveLength(6);
    expect(answer.hint).toBeUndefined();
    expect(github.requests).toHaveLength(0);
    expect(cloud.requests).toHaveLength(0);
  });

  test("a PR that cannot be read is named in its branch; the rest still answers", async () => {
    seedGitHub(github);
    github.inject("GET", `/repos/${OWNER}/${REPO}/pulls/104`, {
      status: 404,
      body: { message: "Not Found" },
    });
    const answer = await stackStatus({}, context());
    const docs = byBranch(answer).get("feature/auth-docs") as Entry;
    expect(docs.pr).toMatchObject({ number: 104, error: { code: "not_found" } });
    expect(docs.pr?.error?.message).toContain("#104");
    expect(answer.lines[2]).toContain("#104 could not be read (not_found)");
    expect(byBranch(answer).get("feature/auth-oauth")?.pr?.state).toBe("open");
    // Some PRs unread is a failure all the same: said in the summary and the part, never counted as "no PR".
    expect(answer.github).toMatchObject({ status: "error", error: { code: "not_found" } });
    expect(answer.summary).toStartWith("6 branches, 5 PRs");
    expect(answer.summary).toContain("GitHub did not answer for 1 branch");
  });

  test("a PR the token may not see (403) is named in its branch, not reported for the whole call", async () => {
    seedGitHub(github);
    github.inject("GET", `/repos/${OWNER}/${REPO}/pulls/103`, {
      status: 403,
      body: { message: "Resource not accessible by personal access token" },
    });
    const answer = await stackStatus({}, context());
    expect(byBranch(answer).get("feature/auth-ui")?.pr).toMatchObject({
      number: 103,
      error: { code: "credentials_invalid" },
    });
    expect(answer.github).toMatchObject({ status: "error", error: { code: "credentials_invalid" } });
    expect(byBranch(answer).get("feature/auth-docs")?.pr?.state).toBe("open");
  });

  test("a rate limit is said once, with its reset time", async () => {
    seedGitHub(github);
    const reset = Math.floor(Date.now() / 1000) + 1800;
    github.inject(
      "GET",
      /^\/repos\/acme\/shop\/pulls/,
      {
        status: 403,
        body: { message: "API rate limit exceeded for user ID 1." },
        headers: { "x-ratelimit-remaining": "0", "x-ratelimit-reset": String(reset) },
      },
      20,
    );
    const answer = await stackStatus({}, context());
    expect(answer.github?.status).toBe("error");
    expect(answer.github?.error?.code).toBe("rate_limited");
    expect(answer.github?.error?.message).toContain(new Date(reset * 1000).toISOString().slice(0, 16));
    expect(answer.branches.every((entry) => entry.pr === undefined || entry.pr.error === undefined)).toBe(true);
  });
});

describe("get_stack_status pages", () => {
  test("a page that would pass the reply budget holds fewer branches; the cursor goes on from there", async () => {
    seedGitHub(github);
    // A budget the six-branch answer (its reasons and commits) passes, while one branch fits easily.
    const registry = new ToolRegistry([getStackStatusTool], new Set(), 1100);
    const tool = registry.get("get_stack_status") as ToolDefinition;
    const ctx = context();
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    for (let page = 0; page < 6; page++) {
      const reply = await registry.call(
        tool,
        cursor === undefined ? {} : { cursor },
        ctx,
        new AbortController().signal,
      );
      expect(reply.isError).toBe(false);
      const data = reply.structuredContent as Output;
      pages++;
      seen.push(...data.branches.map((entry) => entry.branch));
      cursor = data.next_cursor;
      if (cursor === undefined) break;
    }
    expect(seen).toEqual([...STACK_BRANCHES]);
    expect(pages).toBeGreaterThan(1);
    expect(cursor).toBeUndefined();
  });

  test("branch names full of invisible characters: the page is sized as sent, with them escaped", async () => {
    const hidden = makeRepo({ branch: "main" });
    const names = Array.from({ length: 8 }, (_, i) => `zw/${i}${"\u200b".repeat(60)}`);
    for (const name of names) git(hidden, "branch", name);
    mkdirSync(join(hidden, ".twig"));
    writeFileSync(join(hidden, ".twig", "state.json"), JSON.stringify(unlinkedState(names, () => "main")));
    const ctx = context({ repoPath: hidden, jira: null });
    // Budgets from one branch's worth to all eight: each is answered with a page, never refused.
    for (let tokens = 1500; tokens <= 8000; tokens += 250) {
      const registry = new ToolRegistry([getStackStatusTool], new Set(), tokens);
      const tool = registry.get("get_stack_status") as ToolDefinition;
      const reply = await registry.call(tool, { scope: "all" }, ctx, new AbortController().signal);
      expect({ tokens, text: reply.isError ? reply.content[0]?.text : "" }).toEqual({ tokens, text: "" });
      expect((reply.structuredContent as Output).branches.length).toBeGreaterThan(0);
    }
  });

  test("at most 30 branches a page, with a cursor to the next; a changed cursor is refused", async () => {
    const big = makeRepo({ branch: "main", remotes: [["origin", `git@github.com:${OWNER}/${REPO}.git`]] });
    const names = Array.from({ length: 35 }, (_, i) => `topic/t${String(i).padStart(2, "0")}`);
    for (const name of names) git(big, "branch", name);
    // No dependencies: every branch is drawn under the default root.
    const state = { ...(stackState() as object), branches: {}, dependencies: [] };
    mkdirSync(join(big, ".twig"));
    writeFileSync(join(big, ".twig", "state.json"), JSON.stringify(state));
    const ctx = context({ repoPath: big, jira: null });
    const first = await stackStatus({ scope: "all" }, ctx, ["github"]);
    expect(first.branches).toHaveLength(30);
    expect(first.summary.startsWith("branches 1–30 of 35")).toBe(true);
    expect(first.next_cursor).toBeString();
    const second = await stackStatus({ scope: "all", cursor: first.next_cursor }, ctx, ["github"]);
    expect(second.branches.map((entry) => entry.branch)).toEqual(names.slice(30));
    expect(second.next_cursor).toBeUndefined();

    const refused = await getStackStatusTool.handler(
      { scope: "stack", branch: "topic/t01", cursor: first.next_cursor },
      ctx,
      { signal: new AbortController().signal },
    );
    expect(refused.ok).toBe(false);
    if (!refused.ok) expect(refused.error.code).toBe("invalid_params");
  });
});

describe("get_stack_status reads each branch's commits", () => {
  test("ahead and behind its twig parent, a restack flagged in the entry and in its line", async () => {
    const diverged = makeRepo({ branch: "main", remotes: [["origin", `git@github.com:${OWNER}/${REPO}.git`]] });
    writeStack(diverged, (...args) => git(diverged, ...args));
    // feature/auth-oauth gains a commit of its own, then its parent feature/auth moves on too.
    const commitOn = (branch: string, message: string) => {
      const tree = git(diverged, "rev-parse", `${branch}^{tree}`).trim();
      const commit = git(diverged, "commit-tree", tree, "-p", branch, "-m", message).trim();
      git(diverged, "update-ref", `refs/heads/${branch}`, commit);
    };
    commitOn("feature/auth-oauth", "Refresh tokens before they expire");
    commitOn("feature/auth", "Rename the session cookie");
    git(diverged, "checkout", "-q", "feature/auth-oauth");
    const answer = await stackStatus({}, context({ github: false, jira: null, repoPath: diverged }));
    const oauth = answer.branches.find((entry) => entry.branch === "feature/auth-oauth");
    // The base is the parent: said once.
    expect(oauth).toMatchObject({ parent: "feature/auth", ahead: 1, behind: 1, needs_restack: true });
    expect(oauth).not.toHaveProperty("base");
    expect(oauth?.head?.sha).toBe(git(diverged, "rev-parse", "feature/auth-oauth").trim());
    const docs = answer.branches.find((entry) => entry.branch === "feature/auth-docs");
    expect(docs).toMatchObject({ parent: "feature/auth-oauth", ahead: 0, behind: 1, needs_restack: true });
    const line = answer.lines[answer.branches.indexOf(oauth as (typeof answer.branches)[number])];
    expect(line).toContain("1 ahead, 1 behind feature/auth · restack onto feature/auth");
    expect(oauth?.action).toEqual({ kind: "restack", onto: "feature/auth", why: "1 commit behind feature/auth" });
    expect(docs?.action).toMatchObject({ kind: "follow", onto: "feature/auth-oauth" });
    // Parents first; children by their parent's old tip; the work tree back on its branch before the pushes.
    const oldOauth = git(diverged, "rev-parse", "feature/auth-oauth").trim();
    const oldUi = git(diverged, "rev-parse", "feature/auth-ui").trim();
    expect(answer.next_steps.map(({ branch, command }) => [branch, command])).toEqual([
      ["feature/auth-oauth", "git rebase feature/auth feature/auth-oauth"],
      ["feature/auth-docs", `git rebase --onto feature/auth-oauth ${oldOauth} feature/auth-docs`],
      ["feature/auth-ui", `git rebase --onto feature/auth-oauth ${oldOauth} feature/auth-ui`],
      ["feature/auth-tests", `git rebase --onto feature/auth-ui ${oldUi} feature/auth-tests`],
      ["feature/auth-session", "git rebase feature/auth feature/auth-session"],
      ["feature/auth", "git push -u origin -- feature/auth"],
      ["feature/auth-oauth", "git switch feature/auth-oauth"],
    ]);
  });
});
