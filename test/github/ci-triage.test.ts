/**
 * Whose a failing check is, against the fake GitHub: re-runs on the same commit (`filter=all`), the base branch's head,
 * the parent PR of a stack; and what it costs in round trips.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import * as v from "valibot";
import { type LogHost, RUNNER_OUTPUTS, RUNNER_STEPS, runnerLog, startLogHost } from "../support/actions-log.ts";
import { checkRunPayload } from "../support/fake-github.ts";
import { warmGitHubSchema } from "../support/fake-github-graphql.ts";
import { useFakeGitHub } from "../support/use-fake-github.ts";
import { callTool, cleanupTemp, expectOk, makeContext, TOKEN, tool } from "./helpers.ts";

const fake = useFakeGitHub({ token: TOKEN });
let logHost: LogHost;
beforeAll(async () => {
  await warmGitHubSchema();
  logHost = await startLogHost();
}, 60_000);
afterAll(async () => {
  await logHost.stop();
  cleanupTemp();
});

type Json = Record<string, unknown>;
const SHA = "6dcb09b5b57875f334f61aebed695e2e4193db5e";
const MAIN = "a".repeat(40);
const PARENT = "b".repeat(40);
const ARGS = { pr_number: 12, owner: "octo", repo: "r" };
const context = () => makeContext({ env: fake.env() }).ctx;

/** An Actions job's check run: run 777's job `id` (a re-run is a new job of the same run and suite). */
function job(id: number, name: string, conclusion: string | null, options: { sha?: string; at?: string } = {}): Json {
  return {
    ...checkRunPayload({ id, name, conclusion, headSha: options.sha ?? SHA }),
    started_at: options.at ?? `2026-11-28T10:0${id % 10}:00Z`,
    completed_at: options.at ?? `2026-11-28T10:0${id % 10}:30Z`,
    app: { id: 15368, slug: "github-actions", name: "GitHub Actions" },
    details_url: `https://github.com/octo/r/actions/runs/777/job/${id}`,
    html_url: `https://github.com/octo/r/actions/runs/777/job/${id}`,
    output: { title: null, summary: null, text: null, annotations_count: 0 },
    pull_requests: [],
  };
}

/** PR #12 on `base`, its head's runs, and each job's log served from the log host. */
function seed(runs: Json[], options: { base?: string; baseRuns?: Json[]; logs?: Record<number, string> } = {}) {
  const base = options.base ?? "main";
  fake.addPull({ owner: "octo", repo: "r", number: 12, headSha: SHA, base });
  const data = fake.repo("octo", "r");
  data.checkRuns.set(SHA, runs);
  if (options.baseRuns) {
    const head = base === "main" ? MAIN : PARENT;
    data.branches.set(base, head);
    data.checkRuns.set(head, options.baseRuns);
  }
  const all = [...runs, ...(options.baseRuns ?? [])];
  fake.route("GET", "/repos/:owner/:repo/actions/jobs/:job", (req) => {
    const run = all.find((r) => r.id === Number(req.params.job));
    return run
      ? { body: { id: run.id, name: run.name, status: "completed", conclusion: run.conclusion, steps: RUNNER_STEPS } }
      : { status: 404, body: { message: "Not Found" } };
  });
  fake.route("GET", "/repos/:owner/:repo/actions/jobs/:job/logs", (req) => {
    const log = options.logs?.[Number(req.params.job)];
    if (log === undefined) return { status: 404, body: { message: "Not Found" } };
    return { status: 302, headers: { location: logHost.serve(`/logs/${req.params.job}`, log) } };
  });
}

const pytest = RUNNER_OUTPUTS.pytest;
const PYTEST_LOG = runnerLog(pytest.command, pytest.output);
/** The same job failing another test. */
const OTHER_LOG = runnerLog(
  pytest.command,
  pytest.output.map((line) =>
    line.replaceAll("test_refresh_token", "test_logout").replaceAll("test_oauth", "test_auth"),
  ),
);

/**
 * Holds every answer until the requests of each round have all arrived (`counts`: the running total after each round),
 * then lets that round go: a request sent only after an answer of its round would never arrive, and the test times out.
 */
async function heldRounds<T>(call: Promise<T>, counts: number[]): Promise<T> {
  fake.holdEveryAnswer = true;
  for (const [i, total] of counts.entries()) {
    await fake.awaitRequestCount(total);
    if (i === counts.length - 1) fake.holdEveryAnswer = false;
    fake.release();
  }
  return call;
}

type Failing = { name: string; triage?: Json };
const failingOf = (answer: Json) => (answer.reasons as { failing: Failing[] }).failing;

describe("flaky: attempts on the same commit", () => {
  test("failed then passed on re-run is passing; passed then failed is flaky, with its attempts and the re-run", async () => {
    seed(
      [
        job(1, "test", "failure"),
        job(2, "test", "success"),
        job(3, "lint", "success", { at: "2026-11-28T09:00:00Z" }),
        job(4, "lint", "failure", { at: "2026-11-28T09:30:00Z" }),
      ],
      { baseRuns: [job(9, "lint", "success", { sha: MAIN })] },
    );
    const answer = expectOk(await heldRounds(callTool("get_pr_status", ARGS, context()), [1, 7]));
    // The PR, then its three lists, its threads and its base's two lists: two round trips.
    expect(fake.requests).toHaveLength(7);
    expect(answer.summary).toMatchObject({ checks: { total: 2, passing: 1, failing: 1 }, verdict: "failing" });
    expect(answer.checks).toEqual([
      expect.objectContaining({ name: "test", conclusion: "success" }),
      expect.objectContaining({ name: "lint", conclusion: "failure" }),
    ]);
    // A check that passed on its re-run is not failing: only lint is judged, as flaky, though main passes it.
    expect(failingOf(answer)).toEqual([
      {
        name: "lint",
        triage: {
          verdict: "flaky",
          why: "lint passed on an earlier run on this commit (2026-11-28T09:00:00Z); the latest of its suite failed",
          hint: "Probably not caused by this PR: re-run its failed jobs with `gh run rerun 777 --failed -R octo/r`.",
          attempts: [
            { conclusion: "success", started_at: "2026-11-28T09:00:00Z", completed_at: "2026-11-28T09:00:00Z" },
            { conclusion: "failure", started_at: "2026-11-28T09:30:00Z", completed_at: "2026-11-28T09:30:00Z" },
          ],
        },
      },
    ]);
    expect(v.safeParse(tool("get_pr_status").output, answer).success).toBe(true);

    const log = expectOk(await callTool("get_ci_log", ARGS, context()));
    expect((log.summary as string[])[0]).toEndWith(", flaky: passed on another attempt");
    expect((log.checks as Json[])[0]?.triage).toMatchObject({ verdict: "flaky" });
  });

  test("a workflow triggered again runs in a suite of its own: both are listed, the failed one is flaky", async () => {
    seed([job(1, "e2e", "failure"), { ...job(2, "e2e", "success"), check_suite: { id: 6 } }], { baseRuns: [] });
    const answer = expectOk(await callTool("get_pr_status", ARGS, context()));
    // As GitHub lists them by default: the latest of each suite, so a job two workflows name alike is never hidden.
    expect(answer.summary).toMatchObject({ checks: { total: 2, passing: 1, failing: 1 } });
    expect(failingOf(answer)[0]?.triage).toMatchObject({
      verdict: "flaky",
      why: "e2e passed on a later run on this commit (2026-11-28T10:02:30Z); the latest of its suite failed",
    });
  });

  test("the filter=all listing past 100 runs costs its extra page, and finds the attempt that passed on page one", async () => {
    const runs = [
      job(1, "flaky-one", "success"),
      ...Array.from({ length: 120 }, (_, i) => ({ ...job(100 + i, `check-${i}`, "success"), check_suite: { id: 6 } })),
      job(300, "flaky-one", "failure"),
    ];
    seed(runs, { baseRuns: [] });
    const answer = expectOk(await heldRounds(callTool("get_pr_status", ARGS, context()), [1, 7, 8]));
    const pages = fake.requestsTo(`/repos/octo/r/commits/${SHA}/check-runs`);
    expect(pages.map((r) => [r.query.filter, r.query.page]).sort()).toEqual([
      ["all", "1"],
      ["all", "2"],
    ]);
    expect(answer.summary).toMatchObject({ checks: { total: 121, passing: 120, failing: 1 } });
    expect(failingOf(answer)[0]?.triage).toMatchObject({ verdict: "flaky" });
    expect(fake.requests).toHaveLength(8);
  });
});

describe("the base branch's head", () => {
  test("a base with no CI: unknown, and why", async () => {
    seed([job(1, "test", "failure")], { baseRuns: [] });
    const answer = expectOk(await callTool("get_pr_status", ARGS, context()));
    expect(failingOf(answer)[0]?.triage).toEqual({
      verdict: "unknown",
      why: "main has no checks to compare with",
      hint: "Not compared: read the failure and judge.",
    });
  });

  test("the base's checks unreadable: unknown, naming the failure; the PR's own answer stands", async () => {
    seed([job(1, "test", "failure")], { baseRuns: [] });
    fake.inject("GET", "/repos/octo/r/commits/main/check-runs", { status: 403, body: { message: "Forbidden" } });
    const answer = expectOk(await callTool("get_pr_status", ARGS, context()));
    expect(answer.summary).toMatchObject({ verdict: "failing" });
    expect(failingOf(answer)[0]?.triage).toMatchObject({ verdict: "unknown" });
    expect((failingOf(answer)[0]?.triage as { why?: string } | undefined)?.why).toStartWith(
      "the base branch's checks could not be read: GitHub refused access to check runs of main in octo/r (HTTP 403",
    );
  });

  test("a base name git would not take as a branch is never put in a path: unknown, and why", async () => {
    seed([job(1, "test", "failure")], { base: "../../orgs" });
    const answer = expectOk(await callTool("get_pr_status", ARGS, context()));
    expect(failingOf(answer)[0]?.triage).toMatchObject({
      verdict: "unknown",
      why: `the base branch's checks could not be read: the base "../../orgs" contains '..'`,
    });
    expect(fake.requests.map((r) => r.path).filter((path) => !path.startsWith("/repos/octo/r/"))).toEqual(["/graphql"]);
    expect(fake.requests.filter((r) => r.path.includes("orgs"))).toHaveLength(0);
  });

  test("the same check and test failing on main: also_on_base, main's job log read with the same parsers", async () => {
    seed([job(101, "pytest", "failure")], {
      baseRuns: [job(201, "pytest", "failure", { sha: MAIN })],
      logs: { 101: PYTEST_LOG, 201: PYTEST_LOG },
    });
    // The PR; its lists and main's; both jobs' steps; both logs: the PR's own log takes as many round trips.
    const answer = expectOk(await heldRounds(callTool("get_ci_log", ARGS, context()), [1, 5, 7, 9]));
    expect(answer.summary).toEqual([
      "pytest: 1 failed: tests/test_oauth.py::test_refresh_token: AssertionError: refreshed token was not persisted, also failing on main",
    ]);
    const [check] = answer.checks as Json[];
    expect(check?.triage).toEqual({
      verdict: "also_on_base",
      why: "pytest fails on main (head aaaaaaaaaaaa) too",
      hint: "Not caused by this PR: fix or wait on main.",
      base: { ref: "main", sha: MAIN, conclusion: "failure", tests: ["tests/test_oauth.py::test_refresh_token"] },
    });
    expect(fake.requestsTo(/\/actions\/jobs\/201(\/logs)?$/)).toHaveLength(2);
    expect(fake.requests).toHaveLength(9);
    expect(v.safeParse(tool("get_ci_log").output, answer).success).toBe(true);
  });

  test("main failing the same check with other tests: new, naming the tests that fail here only", async () => {
    seed([job(101, "pytest", "failure")], {
      baseRuns: [job(201, "pytest", "failure", { sha: MAIN })],
      logs: { 101: PYTEST_LOG, 201: OTHER_LOG },
    });
    const answer = expectOk(await callTool("get_ci_log", ARGS, context()));
    expect((answer.checks as Json[])[0]?.triage).toEqual({
      verdict: "new",
      why: "pytest fails on main (head aaaaaaaaaaaa) too, but 1 of its failing tests do not fail there: tests/test_oauth.py::test_refresh_token",
      hint: "Caused by this PR: fix that test (main fails others).",
      base: { ref: "main", sha: MAIN, conclusion: "failure", tests: [] },
    });
    expect((answer.summary as string[])[0]).toEndWith(", new");
  });

  test("the check still running on main: unknown until it finishes", async () => {
    seed([job(1, "test", "failure")], {
      baseRuns: [{ ...job(9, "test", null, { sha: MAIN }), status: "in_progress" }],
    });
    const answer = expectOk(await callTool("get_pr_status", ARGS, context()));
    expect(failingOf(answer)[0]?.triage).toEqual({
      verdict: "unknown",
      why: "test is still running on main (head aaaaaaaaaaaa)",
      hint: "Ask again once it finishes on main, or read the failure and judge.",
      base: { ref: "main", sha: MAIN, conclusion: null },
    });
  });

  test("a new failure: main passes the check, and its log is not read", async () => {
    seed([job(101, "pytest", "failure")], {
      baseRuns: [job(201, "pytest", "success", { sha: MAIN })],
      logs: { 101: PYTEST_LOG, 201: PYTEST_LOG },
    });
    const answer = expectOk(await callTool("get_ci_log", ARGS, context()));
    expect((answer.checks as Json[])[0]?.triage).toMatchObject({
      verdict: "new",
      why: "pytest passes on main (head aaaaaaaaaaaa)",
      hint: "Caused by this PR: fix it (main does not fail it).",
    });
    expect(fake.requestsTo(/\/actions\/jobs\/201/)).toHaveLength(0);
  });

  test("a stacked PR whose parent PR fails the same test: inherited, naming the parent", async () => {
    const parentRun = {
      ...job(201, "pytest", "failure", { sha: PARENT }),
      pull_requests: [{ url: "", id: 1, number: 11, head: { ref: "feature/a", sha: PARENT }, base: { ref: "main" } }],
    };
    seed([job(101, "pytest", "failure")], {
      base: "feature/a",
      baseRuns: [parentRun],
      logs: { 101: PYTEST_LOG, 201: PYTEST_LOG },
    });
    const answer = expectOk(await callTool("get_ci_log", ARGS, context()));
    expect((answer.checks as Json[])[0]?.triage).toEqual({
      verdict: "inherited",
      why: "pytest fails on feature/a (head bbbbbbbbbbbb, #11) too",
      hint: "Not caused by this PR: fix or wait on feature/a (#11).",
      base: {
        ref: "feature/a",
        sha: PARENT,
        conclusion: "failure",
        pr: 11,
        tests: ["tests/test_oauth.py::test_refresh_token"],
      },
    });
    expect((answer.summary as string[])[0]).toEndWith(", inherited from #11 (feature/a)");
  });
});

describe("tails without repeats", () => {
  test("the lines a parsed failure says are left out of the tail and counted", async () => {
    seed([job(101, "pytest", "failure")], { baseRuns: [], logs: { 101: PYTEST_LOG } });
    const answer = expectOk(await callTool("get_ci_log", { ...ARGS, lines: 500 }, context()));
    const [step] = (answer.checks as Array<{ log: Array<{ lines: string[]; failure_lines?: number }> }>)[0]?.log ?? [];
    // The section's header, its three `E` lines, the two blank lines inside it and the summary's FAILED line.
    expect(step?.failure_lines).toBe(7);
    const tail = step?.lines.join("\n") ?? "";
    expect(tail).not.toContain("E       ");
    expect(tail).not.toContain("FAILED tests/test_oauth.py");
    expect(tail).not.toContain("test_refresh_token ___");
    // What the parser does not hold stays: the code and where it failed.
    expect(tail).toContain(">       assert session.refreshed, 'refreshed token was not persisted'".slice(0, 30));
    expect(tail).toContain("tests/test_oauth.py:42: AssertionError");
  });
});
