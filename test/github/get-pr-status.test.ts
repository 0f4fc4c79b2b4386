import { afterAll, describe, expect, test } from "bun:test";
import * as v from "valibot";
import { ok } from "../../src/core/result.ts";
import { checkRunPayload, commitStatusPayload, reviewPayload } from "../support/fake-github.ts";
import { useFakeGitHub } from "../support/use-fake-github.ts";
import {
  callTool,
  cleanupTemp,
  expectErr,
  expectOk,
  git,
  makeContext,
  makeRepo,
  stateWith,
  TOKEN,
  tool,
} from "./helpers.ts";

const fake = useFakeGitHub({ token: TOKEN });
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
    expect(Object.keys(data)).toEqual(["pull_request", "reviews", "checks", "statuses", "summary"]);
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
    });
    expect(v.safeParse(tool("get_pr_status").output, data).success).toBe(true);

    const paths = fake.requests.map((r) => r.path);
    expect(paths[0]).toBe("/repos/octo/r/pulls/12");
    expect(paths.slice(1).sort()).toEqual([
      `/repos/octo/r/commits/${SHA}/check-runs`,
      `/repos/octo/r/commits/${SHA}/status`,
      "/repos/octo/r/pulls/12/reviews",
    ]);
    for (const request of fake.requests.slice(1)) expect(request.query).toMatchObject({ per_page: "100", page: "1" });
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
    });
  });

  test("a first call asks for the PR, then for its three lists at once: two round trips", async () => {
    seed();
    const { ctx } = context();
    fake.latencyMs = 30;
    expectOk(await callTool("get_pr_status", ARGS, ctx));
    expect(fake.requests).toHaveLength(4);
    expect(fake.maxConcurrency).toBe(3);
    const [pr, ...rest] = fake.requests;
    expect(pr?.path).toBe("/repos/octo/r/pulls/12");
    for (const request of rest) expect(request.startedAt).toBeGreaterThanOrEqual((pr?.finishedAt ?? 0) - 1);
    expect(rest.filter((request) => request.path.includes(SHA))).toHaveLength(2);
  });

  test("asked again while the head is unchanged, all four go at once: one round trip", async () => {
    seed();
    const { ctx } = context();
    const first = expectOk(await callTool("get_pr_status", ARGS, ctx));
    fake.reset();
    fake.latencyMs = 30;
    const second = expectOk(await callTool("get_pr_status", ARGS, ctx));
    expect(second).toEqual(first);
    expect(fake.requests).toHaveLength(4);
    expect(fake.maxConcurrency).toBe(4);
    const firstDone = Math.min(...fake.requests.map((request) => request.finishedAt ?? Number.POSITIVE_INFINITY));
    for (const request of fake.requests) expect(request.startedAt).toBeLessThan(firstDone);
  });

  test("when the head moved on, the guessed commit's lists are dropped and the new commit's asked", async () => {
    seed();
    const { ctx } = context();
    expectOk(await callTool("get_pr_status", ARGS, ctx));
    const pushed = "f".repeat(40);
    fake.addPull({ owner: "octo", repo: "r", number: 12, headSha: pushed });
    fake.repo("octo", "r").checkRuns.set(pushed, [checkRunPayload({ id: 9, name: "rebuilt", conclusion: "failure" })]);
    // The old commit is gone from GitHub (a force push): its lists fail, which must not matter.
    fake.inject("GET", `/repos/octo/r/commits/${SHA}/check-runs`, {
      status: 422,
      body: { message: `No commit found for SHA: ${SHA}` },
    });
    fake.inject("GET", `/repos/octo/r/commits/${SHA}/status`, { status: 500, body: { message: "boom" } }, 5);
    fake.reset();
    const data = expectOk(await callTool("get_pr_status", ARGS, ctx));
    expect(data.checks).toEqual([
      { name: "rebuilt", status: "completed", conclusion: "failure", url: expect.any(String) },
    ]);
    expect(data.statuses).toEqual([]);
    expect(data.summary).toMatchObject({ verdict: "failing" });
    expect(data.unavailable).toBeUndefined();
    expect(fake.requestsTo(`/repos/octo/r/commits/${pushed}/check-runs`)).toHaveLength(1);
    expect(fake.requestsTo(`/repos/octo/r/commits/${pushed}/status`)).toHaveLength(1);
    // The next call guesses the new head.
    fake.reset();
    fake.latencyMs = 30;
    expect(expectOk(await callTool("get_pr_status", ARGS, ctx))).toEqual(data);
    expect(fake.maxConcurrency).toBe(4);
    expect(fake.requests.filter((request) => request.path.includes(SHA))).toHaveLength(0);
  });

  test("asked together with the PR, a fatal failure of its reviews is what the call reports", async () => {
    seed();
    const { ctx } = context();
    expectOk(await callTool("get_pr_status", ARGS, ctx));
    fake.inject("GET", "/repos/octo/r/pulls/12/reviews", { status: 401, body: { message: "Bad credentials" } });
    // The PR's answer is held: the call can only end on the reviews' failure.
    fake.inject("GET", "/repos/octo/r/pulls/12", { status: 200, body: {}, held: true });
    const error = expectErr(await callTool("get_pr_status", ARGS, ctx));
    expect(error.code).toBe("credentials_invalid");
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
    expect(fake.requests.map((r) => r.status)).toEqual([304, 304, 304, 304]);
    for (const request of fake.requests) expect(request.headers["if-none-match"]).toBeDefined();
  });
});

describe("get_pr_status: the head commit guessed from the clone", () => {
  /** A clone of octo/r whose `feature/x` is linked to PR 12; `pushed` is its commit, made the PR's head. */
  function clone(remoteUrl = "git@github.com:octo/r.git") {
    const repo = makeRepo({
      branch: "feature/x",
      remotes: [["origin", remoteUrl]],
      state: stateWith({ "feature/x": 12 }),
    });
    const pushed = git(repo, "rev-parse", "HEAD");
    git(repo, "update-ref", "refs/remotes/origin/feature/x", pushed);
    fake.addPull({ owner: "octo", repo: "r", number: 12, head: "feature/x", headSha: pushed });
    const { ctx } = makeContext({ env: fake.env(), repo: ok(repo) });
    return { repo, pushed, ctx };
  }

  /** A new commit on the clone's current branch; returns its id. */
  function commit(repo: string): string {
    git(repo, "commit", "-q", "--allow-empty", "-m", "more");
    return git(repo, "rev-parse", "HEAD");
  }

  /** Every commit whose check runs or statuses the last call asked for. */
  function askedCommits(): string[] {
    const shas = fake.requests
      .map((r) => /\/commits\/([0-9a-f]{40})\//.exec(r.path)?.[1])
      .filter((s) => s !== undefined);
    return [...new Set(shas)].sort();
  }

  /** Whether all four requests started before any of them finished: one round trip. */
  function oneRoundTrip(): boolean {
    const firstDone = Math.min(...fake.requests.map((r) => r.finishedAt || Number.POSITIVE_INFINITY));
    return fake.requests.length === 4 && fake.requests.every((r) => r.startedAt < firstDone);
  }

  test("a session's first call asks for the pushed commit's lists with the PR: one round trip", async () => {
    const { pushed, ctx } = clone();
    fake.latencyMs = 30;
    const data = expectOk(await callTool("get_pr_status", {}, ctx));
    expect((data.pull_request as { head_sha: string }).head_sha).toBe(pushed);
    expect(oneRoundTrip()).toBe(true);
    expect(askedCommits()).toEqual([pushed]);
  });

  test("without a remote-tracking ref the local branch is the guess", async () => {
    const { repo, pushed, ctx } = clone();
    git(repo, "update-ref", "-d", "refs/remotes/origin/feature/x");
    fake.latencyMs = 30;
    expectOk(await callTool("get_pr_status", { pr_number: 12 }, ctx));
    expect(oneRoundTrip()).toBe(true);
    expect(askedCommits()).toEqual([pushed]);
  });

  test("a wrong guess (commits not pushed yet) costs two requests and changes nothing in the answer", async () => {
    const { repo, pushed, ctx } = clone();
    git(repo, "update-ref", "-d", "refs/remotes/origin/feature/x");
    const unpushed = commit(repo);
    const data = expectOk(await callTool("get_pr_status", {}, ctx));
    expect((data.pull_request as { head_sha: string }).head_sha).toBe(pushed);
    expect(askedCommits()).toEqual([pushed, unpushed].sort());
    expect(fake.requests).toHaveLength(6);
    // The same question from a context that guesses nothing gets the same answer.
    const { ctx: plain } = context();
    expect(expectOk(await callTool("get_pr_status", ARGS, plain))).toEqual(data);
  });

  test("GitHub's last answer stands until the remote-tracking ref moves", async () => {
    const { repo, pushed, ctx } = clone();
    // Someone else pushed to the PR; this clone has not fetched.
    const elsewhere = commit(repo);
    git(repo, "reset", "-q", "--hard", pushed);
    fake.addPull({ owner: "octo", repo: "r", number: 12, head: "feature/x", headSha: elsewhere });
    fake.latencyMs = 30;
    expectOk(await callTool("get_pr_status", {}, ctx));
    expect(askedCommits()).toEqual([pushed, elsewhere].sort());
    fake.reset();
    expectOk(await callTool("get_pr_status", {}, ctx));
    expect(askedCommits()).toEqual([elsewhere]);
    expect(oneRoundTrip()).toBe(true);
    // A push (or fetch) moves the ref: it is the better guess now.
    const next = commit(repo);
    git(repo, "update-ref", "refs/remotes/origin/feature/x", next);
    fake.addPull({ owner: "octo", repo: "r", number: 12, head: "feature/x", headSha: next });
    fake.reset();
    expectOk(await callTool("get_pr_status", {}, ctx));
    expect(askedCommits()).toEqual([next]);
    expect(oneRoundTrip()).toBe(true);
  });

  test("no guess for a PR of another repository, or one twig links to no branch", async () => {
    const { ctx } = clone("https://github.com/octo/other.git");
    fake.addPull({ owner: "octo", repo: "other", number: 12, headSha: SHA });
    for (const args of [ARGS, { pr_number: 12 }]) {
      fake.reset();
      expectOk(await callTool("get_pr_status", args, ctx));
      const [pr, ...rest] = fake.requests;
      for (const request of rest) expect(request.startedAt).toBeGreaterThanOrEqual((pr?.finishedAt ?? 0) - 1);
    }
    const linked = clone();
    fake.addPull({ owner: "octo", repo: "r", number: 13, headSha: SHA });
    fake.reset();
    expectOk(await callTool("get_pr_status", { pr_number: 13 }, linked.ctx));
    expect(askedCommits()).toEqual([SHA]);
    expect(fake.requests).toHaveLength(4);
  });
});
