import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import * as v from "valibot";
import { ok } from "../../src/core/result.ts";
import { checkRunPayload, commitStatusPayload, reviewPayload } from "../support/fake-github.ts";
import { warmGitHubSchema } from "../support/fake-github-graphql.ts";
import { useFakeGitHub } from "../support/use-fake-github.ts";
import {
  callTool,
  cleanupTemp,
  expectErr,
  expectOk,
  makeContext,
  makeRepo,
  stateWith,
  TOKEN,
  tool,
} from "./helpers.ts";

const fake = useFakeGitHub({ token: TOKEN });
beforeAll(() => warmGitHubSchema(), 60_000);
afterAll(cleanupTemp);

const SHA = "6dcb09b5b57875f334f61aebed695e2e4193db5e";
const ARGS = { pr_number: 12, owner: "octo", repo: "r" };

function context(extra: Record<string, string> = {}) {
  return makeContext({ env: { ...fake.env(), ...extra } });
}

function seed() {
  fake.addPull({ owner: "octo", repo: "r", number: 12, headSha: SHA });
  const data = fake.repo("octo", "r");
  data.reviews.set(12, [
    reviewPayload({ id: 1, login: "alice", state: "APPROVED", submittedAt: "2024-01-01T00:00:00Z" }),
    reviewPayload({ id: 2, login: "bob", state: "CHANGES_REQUESTED", submittedAt: "2024-01-02T00:00:00Z" }),
    reviewPayload({ id: 3, login: "alice", state: "COMMENTED", submittedAt: "2024-01-03T00:00:00Z" }),
    reviewPayload({ id: 4, login: "carol", state: "PENDING", submittedAt: null }),
    reviewPayload({ id: 5, login: "bob", state: "APPROVED", submittedAt: "2024-01-04T00:00:00Z" }),
    reviewPayload({ id: 6, login: null, state: "COMMENTED", submittedAt: "2024-01-05T00:00:00Z" }),
  ]);
  data.checkRuns.set(SHA, [
    checkRunPayload({ id: 1, name: "build", conclusion: "success" }),
    checkRunPayload({ id: 2, name: "lint", conclusion: "neutral" }),
    checkRunPayload({ id: 3, name: "e2e", status: "queued", startedAt: null }),
    checkRunPayload({ id: 4, name: "docs", conclusion: "skipped" }),
  ]);
  data.statuses.set(SHA, [
    commitStatusPayload({ id: 1, context: "ci/jenkins", state: "success" }),
    commitStatusPayload({ id: 2, context: "security/scan", state: "pending", description: null }),
  ]);
}

describe("get_pr_status", () => {
  test("PR, reviews, check runs and commit statuses with a summary", async () => {
    seed();
    const { ctx } = context();
    const data = expectOk(await callTool("get_pr_status", ARGS, ctx));
    expect(Object.keys(data)).toEqual([
      "pull_request",
      "reviews",
      "checks",
      "statuses",
      "summary",
      "reasons",
      "reviewers",
    ]);
    expect((data.pull_request as Record<string, unknown>).number).toBe(12);
    expect(data.reviews).toEqual([
      { author: "alice", state: "APPROVED", submitted_at: "2024-01-01T00:00:00Z" },
      { author: "bob", state: "CHANGES_REQUESTED", submitted_at: "2024-01-02T00:00:00Z" },
      { author: "alice", state: "COMMENTED", submitted_at: "2024-01-03T00:00:00Z" },
      { author: "carol", state: "PENDING", submitted_at: null },
      { author: "bob", state: "APPROVED", submitted_at: "2024-01-04T00:00:00Z" },
      { author: "ghost", state: "COMMENTED", submitted_at: "2024-01-05T00:00:00Z" },
    ]);
    expect(data.checks).toEqual([
      {
        name: "build",
        status: "completed",
        conclusion: "success",
        url: "https://github.com/github/hello-world/runs/4",
      },
      { name: "lint", status: "completed", conclusion: "neutral", url: "https://github.com/github/hello-world/runs/4" },
      { name: "e2e", status: "queued", conclusion: null, url: "https://github.com/github/hello-world/runs/4" },
      { name: "docs", status: "completed", conclusion: "skipped", url: "https://github.com/github/hello-world/runs/4" },
    ]);
    expect(data.statuses).toEqual([
      {
        context: "ci/jenkins",
        state: "success",
        description: "ci/jenkins is success",
        url: "https://ci.example.com/1000/output",
      },
      { context: "security/scan", state: "pending", description: null, url: "https://ci.example.com/1000/output" },
    ]);
    expect(data.summary).toEqual({
      latest_reviews: [
        { author: "alice", state: "APPROVED" },
        { author: "bob", state: "APPROVED" },
        { author: "ghost", state: "COMMENTED" },
      ],
      checks: { total: 6, passing: 4, failing: 0, pending: 2 },
      verdict: "pending",
      review: "approved",
      unresolved_threads: 0,
    });
    expect(data.reasons).toEqual({ changes_requested: [], failing: [] });
    expect(v.safeParse(tool("get_pr_status").output, data).success).toBe(true);

    const paths = fake.requests.map((r) => r.path);
    expect(paths[0]).toBe("/repos/octo/r/pulls/12");
    // The base branch's head lists too, in the same round: whose a failure would be.
    expect(paths.slice(1).sort()).toEqual([
      "/graphql",
      `/repos/octo/r/commits/${SHA}/check-runs`,
      `/repos/octo/r/commits/${SHA}/status`,
      "/repos/octo/r/commits/main/check-runs",
      "/repos/octo/r/commits/main/status",
      "/repos/octo/r/pulls/12/reviews",
    ]);
    // Every attempt of the head's checks (re-runs too), the base's latest only.
    expect(fake.requestsTo(`/repos/octo/r/commits/${SHA}/check-runs`)[0]?.query.filter).toBe("all");
    expect(fake.requestsTo("/repos/octo/r/commits/main/check-runs")[0]?.query.filter).toBe("latest");
    for (const request of fake.requests.slice(1).filter((r) => r.method === "GET"))
      expect(request.query).toMatchObject({ per_page: "100", page: "1" });
  });

  test("a failing check makes the verdict failing; nothing at all is no_checks", async () => {
    fake.addPull({ owner: "octo", repo: "r", number: 12, headSha: SHA });
    fake
      .repo("octo", "r")
      .checkRuns.set(SHA, [
        checkRunPayload({ id: 1, name: "build", conclusion: "failure" }),
        checkRunPayload({ id: 2, name: "test", status: "in_progress", conclusion: null }),
      ]);
    const { ctx } = context();
    const failing = expectOk(await callTool("get_pr_status", ARGS, ctx));
    expect(failing.summary).toMatchObject({
      checks: { total: 2, passing: 0, failing: 1, pending: 1 },
      verdict: "failing",
    });

    fake.repo("octo", "r").checkRuns.set(SHA, []);
    const none = expectOk(await callTool("get_pr_status", ARGS, ctx));
    expect(none.summary).toEqual({
      latest_reviews: [],
      checks: { total: 0, passing: 0, failing: 0, pending: 0 },
      verdict: "no_checks",
      review: "review_required",
      unresolved_threads: 0,
    });
  });

  test("a first call asks for the PR, then for its three lists and its threads at once: two round trips", async () => {
    seed();
    const { ctx } = context();
    // Each round's answers are held until the whole round has arrived: four requests wait on no answer.
    fake.holdEveryAnswer = true;
    const answer = callTool("get_pr_status", ARGS, ctx);
    await fake.awaitRequestCount(1);
    fake.release();
    await fake.awaitRequestCount(7);
    fake.holdEveryAnswer = false;
    fake.release();
    expectOk(await answer);
    expect(fake.requests).toHaveLength(7);
    const [pr, ...rest] = fake.requests;
    expect(pr?.path).toBe("/repos/octo/r/pulls/12");
    for (const request of rest) expect(request.startedAt).toBeGreaterThanOrEqual((pr?.finishedAt ?? 0) - 1);
    expect(rest.filter((request) => request.path.includes(SHA))).toHaveLength(2);
    expect(rest.filter((request) => request.path.includes("/commits/main/"))).toHaveLength(2);
  });

  test("every page of every list, later pages in parallel", async () => {
    fake.addPull({ owner: "octo", repo: "r", number: 12, headSha: SHA });
    const data = fake.repo("octo", "r");
    data.reviews.set(
      12,
      Array.from({ length: 150 }, (_, i) =>
        reviewPayload({ id: i, login: `user${i % 7}`, state: i % 2 ? "APPROVED" : "COMMENTED" }),
      ),
    );
    data.checkRuns.set(
      SHA,
      Array.from({ length: 250 }, (_, i) => checkRunPayload({ id: i, name: `check-${i}` })),
    );
    data.statuses.set(
      SHA,
      Array.from({ length: 101 }, (_, i) => commitStatusPayload({ id: i, context: `ctx-${i}`, state: "success" })),
    );
    const { ctx } = context();
    fake.latencyMs = 30;
    const result = expectOk(await callTool("get_pr_status", ARGS, ctx));
    expect((result.reviews as unknown[]).length).toBe(150);
    expect((result.checks as unknown[]).length).toBe(250);
    expect((result.statuses as unknown[]).length).toBe(101);
    expect((result.checks as Array<{ name: string }>).map((c) => c.name)).toEqual(
      Array.from({ length: 250 }, (_, i) => `check-${i}`),
    );
    expect(result.summary).toMatchObject({ checks: { total: 351, passing: 351 }, verdict: "passing" });
    const checkPages = fake.requestsTo(`/repos/octo/r/commits/${SHA}/check-runs`).map((r) => r.query.page);
    expect(checkPages.sort()).toEqual(["1", "2", "3"]);
    expect(fake.requestsTo("/repos/octo/r/pulls/12/reviews")).toHaveLength(2);
    expect(fake.requestsTo(`/repos/octo/r/commits/${SHA}/status`)).toHaveLength(2);
    // Pages 2 and 3 are requested together once page 1 says there are three.
    const [, page2, page3] = fake
      .requestsTo(`/repos/octo/r/commits/${SHA}/check-runs`)
      .sort((a, b) => Number(a.query.page) - Number(b.query.page));
    expect(page3?.startedAt).toBeLessThan(page2?.finishedAt ?? 0);
  });

  test("a list the token may not read is reported in `unavailable`, the rest still returned", async () => {
    seed();
    fake.inject("GET", `/repos/octo/r/commits/${SHA}/check-runs`, {
      status: 403,
      body: { message: "Resource not accessible by personal access token" },
    });
    const { ctx } = context();
    const data = expectOk(await callTool("get_pr_status", ARGS, ctx));
    expect(data.checks).toEqual([]);
    expect((data.reviews as unknown[]).length).toBe(6);
    expect(data.unavailable).toEqual([
      `GitHub refused access to check runs of commit ${SHA.slice(0, 12)} in octo/r (HTTP 403: Resource not accessible by personal access token)`,
    ]);
    expect(v.safeParse(tool("get_pr_status").output, data).success).toBe(true);
  });

  test("a fatal failure of one list fails the call and cancels the others", async () => {
    seed();
    fake.inject("GET", "/repos/octo/r/pulls/12/reviews", { status: 401, body: { message: "Bad credentials" } });
    fake.inject("GET", `/repos/octo/r/commits/${SHA}/check-runs`, {
      status: 200,
      body: { check_runs: [] },
      held: true,
    });
    const { ctx } = context();
    // The check runs' answer is held: the call can only end on the reviews' failure.
    const error = expectErr(await callTool("get_pr_status", ARGS, ctx));
    expect(error.code).toBe("credentials_invalid");
  });

  test("the PR's 404 is reported before anything else is asked", async () => {
    // A repository of its own: requests the previous test cancelled may still reach the fake late.
    fake.repo("octo", "gone");
    const { ctx } = context();
    const error = expectErr(await callTool("get_pr_status", { ...ARGS, repo: "gone" }, ctx));
    expect(error.code).toBe("not_found");
    expect(error.message).toBe("Pull request #12 in octo/gone not found (HTTP 404)");
    expect(fake.requests.filter((request) => request.path.startsWith("/repos/octo/gone/"))).toHaveLength(1);
  });

  test("reviews and checks are revalidated with ETags on the next call", async () => {
    seed();
    const { ctx } = context();
    const first = expectOk(await callTool("get_pr_status", ARGS, ctx));
    fake.reset();
    const second = expectOk(await callTool("get_pr_status", ARGS, ctx));
    expect(second).toEqual(first);
    // GraphQL is a POST: never cached, asked again.
    const gets = fake.requests.filter((r) => r.method === "GET");
    expect(gets.map((r) => r.status)).toEqual([304, 304, 304, 304, 304, 304]);
    for (const request of gets) expect(request.headers["if-none-match"]).toBeDefined();
  });
});

describe("get_pr_status: reasons and the review decision", () => {
  test("change requests quoted per reviewer, failing checks with their output, failing statuses", async () => {
    fake.addPull({ owner: "octo", repo: "r", number: 12, headSha: SHA, requestedReviewers: ["dave"] });
    const data = fake.repo("octo", "r");
    const long = `Token refresh isn't handled.\n\n${"x".repeat(400)}`;
    data.reviews.set(12, [
      { ...reviewPayload({ id: 1, login: "carol", state: "CHANGES_REQUESTED" }), body: long },
      { ...reviewPayload({ id: 2, login: "erin", state: "CHANGES_REQUESTED" }), body: "nit" },
      { ...reviewPayload({ id: 3, login: "erin", state: "APPROVED" }), body: "fixed, thanks" },
      { ...reviewPayload({ id: 4, login: "bob", state: "COMMENTED" }), body: "\u001b]52;c;payload\u0007hm" },
    ]);
    data.checkRuns.set(SHA, [
      {
        ...checkRunPayload({ id: 1, name: "pytest", conclusion: "failure" }),
        output: { title: "2 failed, 148 passed", summary: "test_refresh_token FAILED\nAssertionError", text: "..." },
      },
      checkRunPayload({ id: 2, name: "lint", conclusion: "success" }),
      { ...checkRunPayload({ id: 3, name: "build", conclusion: "timed_out" }), output: { title: null, summary: null } },
      // A summary that opens with its title (as a heading) is quoted once.
      {
        ...checkRunPayload({ id: 4, name: "sonar", conclusion: "failure" }),
        output: { title: "Quality Gate failed", summary: "## Quality Gate failed\n2 conditions failed" },
      },
    ]);
    data.statuses.set(SHA, [
      commitStatusPayload({ id: 1, context: "ci/jenkins", state: "error", description: "Build broke" }),
    ]);
    // main's head: pytest and ci/jenkins fail there too, build passes, sonar does not run.
    data.branches.set("main", "a".repeat(40));
    data.checkRuns.set("a".repeat(40), [
      checkRunPayload({ id: 7, name: "pytest", conclusion: "failure", headSha: "a".repeat(40) }),
      checkRunPayload({ id: 8, name: "build", conclusion: "success", headSha: "a".repeat(40) }),
    ]);
    data.statuses.set("a".repeat(40), [commitStatusPayload({ id: 2, context: "ci/jenkins", state: "failure" })]);
    const { ctx } = context();
    const answer = expectOk(await callTool("get_pr_status", ARGS, ctx));
    const reasons = answer.reasons as {
      changes_requested: Array<{ author: string; excerpt?: string }>;
      failing: unknown[];
    };
    expect(reasons.changes_requested).toHaveLength(1);
    expect(reasons.changes_requested[0]?.author).toBe("carol");
    expect(reasons.changes_requested[0]?.excerpt?.startsWith("Token refresh isn't handled. xxx")).toBe(true);
    expect(reasons.changes_requested[0]?.excerpt?.length).toBe(300);
    const onMain = { ref: "main", sha: "a".repeat(40) };
    expect(reasons.failing).toEqual([
      {
        name: "pytest",
        excerpt: "2 failed, 148 passed: test_refresh_token FAILED AssertionError",
        triage: {
          verdict: "also_on_base",
          why: "pytest fails on main (head aaaaaaaaaaaa) too",
          hint: "Not caused by this PR: fix or wait on main.",
          base: { ...onMain, conclusion: "failure" },
        },
      },
      {
        name: "build",
        triage: {
          verdict: "new",
          why: "build passes on main (head aaaaaaaaaaaa)",
          hint: "Caused by this PR: fix it (main does not fail it).",
          base: { ...onMain, conclusion: "success" },
        },
      },
      {
        name: "sonar",
        excerpt: "## Quality Gate failed 2 conditions failed",
        triage: {
          verdict: "new",
          why: "main (head aaaaaaaaaaaa) has no check named sonar",
          hint: "Caused by this PR: fix it (main does not fail it).",
          base: { ...onMain, conclusion: null },
        },
      },
      {
        name: "ci/jenkins",
        excerpt: "Build broke",
        triage: {
          verdict: "also_on_base",
          why: "ci/jenkins fails on main (head aaaaaaaaaaaa) too",
          hint: "Not caused by this PR: fix or wait on main.",
          base: { ...onMain, conclusion: "failure" },
        },
      },
    ]);
    expect(answer.summary).toMatchObject({ verdict: "failing", review: "changes_requested" });
    // Bodies and outputs stay out of the lists themselves.
    expect(JSON.stringify(answer.reviews)).not.toContain("Token refresh");
    expect(JSON.stringify(answer.checks)).not.toContain("148 passed");
    expect(v.safeParse(tool("get_pr_status").output, answer).success).toBe(true);
  });
});

describe("get_pr_status: the current branch's PR", () => {
  function clone(state: Record<string, number | null>) {
    const repo = makeRepo({
      branch: "feature/x",
      remotes: [["origin", "git@github.com:octo/r.git"]],
      state: stateWith(state),
    });
    return makeContext({ env: fake.env(), repo: ok(repo) }).ctx;
  }

  test("twig's link is used without asking GitHub which PR it is", async () => {
    seed();
    const answer = expectOk(await callTool("get_pr_status", {}, clone({ "feature/x": 12 })));
    expect(answer.found_by).toBe("twig_link");
    expect(fake.requestsTo("/repos/octo/r/pulls")).toHaveLength(0);
  });

  test("a branch twig does not link gets the PR GitHub has from it: the open one before closed ones", async () => {
    fake.addPull({
      owner: "octo",
      repo: "r",
      number: 7,
      head: "feature/x",
      state: "closed",
      updatedAt: "2024-03-01T00:00:00Z",
    });
    fake.addPull({ owner: "octo", repo: "r", number: 9, head: "feature/x" });
    fake.addPull({ owner: "octo", repo: "r", number: 12, head: "feature/y" });
    const ctx = clone({ "feature/x": null });
    const answer = expectOk(await callTool("get_pr_status", {}, ctx));
    expect(answer.found_by).toBe("head_ref");
    expect((answer.pull_request as { number: number }).number).toBe(9);
    expect(fake.requestsTo("/repos/octo/r/pulls")[0]?.query).toMatchObject({ head: "octo:feature/x", state: "all" });
  });

  test("with only closed and merged PRs, the most recently closed one", async () => {
    const older = fake.addPull({ owner: "octo", repo: "r", number: 7, head: "feature/x", merged: true });
    older.merged_at = "2024-01-01T00:00:00Z";
    const newer = fake.addPull({ owner: "octo", repo: "r", number: 5, head: "feature/x", state: "closed" });
    newer.closed_at = "2024-02-01T00:00:00Z";
    const answer = expectOk(await callTool("get_pull_request", {}, clone({})));
    expect(answer).toMatchObject({ number: 5, found_by: "head_ref" });
  });

  test("no link and no PR from the branch: not_found, saying both", async () => {
    fake.repo("octo", "r");
    const error = expectErr(await callTool("get_pr_status", {}, clone({})));
    expect(error.code).toBe("not_found");
    expect(error.message).toContain("has no linked GitHub PR, and octo/r has no PR from it");
  });
});

describe("get_pr_status: every reviewer's latest review, unresolved threads", () => {
  test("each reviewer's latest submitted review, a comment too, with an excerpt; threads counted", async () => {
    fake.addPull({ owner: "octo", repo: "r", number: 12, headSha: SHA });
    const data = fake.repo("octo", "r");
    data.reviews.set(12, [
      { ...reviewPayload({ id: 1, login: "erin", state: "APPROVED" }), body: "ok" },
      {
        ...reviewPayload({ id: 2, login: "erin", state: "COMMENTED" }),
        body: "Why a second cache?\n\nIt duplicates X.",
      },
      { ...reviewPayload({ id: 3, login: "carol", state: "PENDING" }), body: "draft" },
    ]);
    data.reviewThreads.set(12, [
      { path: "a.ts", line: 1, comments: [{ author: "erin", body: "x" }] },
      { path: "b.ts", line: 2, isResolved: true, comments: [{ author: "erin", body: "y" }] },
    ]);
    const status = expectOk(await callTool("get_pr_status", ARGS, context().ctx));
    expect(status.reviewers).toEqual([
      {
        author: "erin",
        state: "COMMENTED",
        submitted_at: "2019-11-17T17:43:43Z",
        excerpt: "Why a second cache? It duplicates X.",
      },
    ]);
    expect((status.summary as { unresolved_threads?: number }).unresolved_threads).toBe(1);
  });

  test("more than the 100 threads read: the count says it is a lower bound", async () => {
    fake.addPull({ owner: "octo", repo: "r", number: 12, headSha: SHA });
    const open = { path: "a.ts", line: 1, comments: [{ author: "erin", body: "x" }] };
    fake.repo("octo", "r").reviewThreads.set(
      12,
      Array.from({ length: 250 }, () => open),
    );
    const status = expectOk(await callTool("get_pr_status", ARGS, context().ctx));
    expect(status.summary).toMatchObject({ unresolved_threads: 100, unresolved_threads_at_least: true });
  });

  test("a GraphQL failure is named in `unavailable`; the REST status still answers", async () => {
    fake.addPull({ owner: "octo", repo: "r", number: 12, headSha: SHA });
    fake.inject("POST", "/graphql", {
      body: {
        data: null,
        errors: [{ type: "FORBIDDEN", message: "Resource protected by organization SAML enforcement." }],
      },
    });
    const status = expectOk(await callTool("get_pr_status", ARGS, context().ctx));
    expect(status.summary).not.toHaveProperty("unresolved_threads");
    expect((status.unavailable as string[]).join(" ")).toContain("GraphQL API refused access");
  });
});
