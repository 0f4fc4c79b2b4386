import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readJobLog } from "../../src/github/job-log.ts";
import { replyBudget } from "../../src/mcp/reply-budget.ts";
import { connect } from "../../src/tools/shared/github-params.ts";
import {
  FAILING_TEST_STEPS,
  failingTestLog,
  type LogHost,
  POST_JOB_LINES,
  RUNNER_OUTPUTS,
  runnerLog,
  startLogHost,
  streamingLog,
  timestamped,
} from "../support/actions-log.ts";
import { checkRunPayload, commitStatusPayload, type FakeGitHub } from "../support/fake-github.ts";
import { useFakeGitHub } from "../support/use-fake-github.ts";
import {
  callInfo,
  callTool,
  cleanupTemp,
  expectErr,
  expectOk,
  git,
  makeContext,
  makeRepo,
  okRepo,
  stateWith,
  TOKEN,
  tool,
} from "./helpers.ts";

const fake = useFakeGitHub({ token: TOKEN });
let logHost: LogHost;
beforeAll(async () => {
  logHost = await startLogHost();
});
afterAll(async () => {
  await logHost.stop();
  cleanupTemp();
});

const SHA = "6dcb09b5b57875f334f61aebed695e2e4193db5e";
const ARGS = { pr_number: 12, owner: "octo", repo: "r" };

type Json = Record<string, unknown>;

function context() {
  return makeContext({ env: fake.env() }).ctx;
}

/** A check run as GitHub Actions reports a job: its id is the job's. */
function actionsRun(id: number, name: string, conclusion: string | null, status = "completed"): Json {
  return {
    ...checkRunPayload({ id, name, status, conclusion }),
    app: { id: 15368, slug: "github-actions", name: "GitHub Actions" },
    details_url: `https://github.com/octo/r/actions/runs/777/job/${id}`,
    html_url: `https://github.com/octo/r/actions/runs/777/job/${id}`,
    output: { title: null, summary: null, text: null, annotations_count: 0 },
  };
}

/** Seeds the PR, its checks and statuses, and the Actions routes the fake API lacks. */
function seed(options: { runs: Json[]; statuses?: Json[]; logs?: Record<number, string | (() => Response)> }) {
  fake.addPull({ owner: "octo", repo: "r", number: 12, headSha: SHA });
  const data = fake.repo("octo", "r");
  data.checkRuns.set(SHA, options.runs);
  data.statuses.set(SHA, options.statuses ?? []);
  routeActions(fake, options.logs ?? {});
}

const annotationsByRun = new Map<number, Json[]>();

/** What a failing check's triage says when main's head has no checks at all. */
const NOT_COMPARED = {
  verdict: "unknown",
  why: "main has no checks to compare with",
  hint: "Not compared: read the failure and judge.",
};

function routeActions(api: FakeGitHub, logs: Record<number, string | (() => Response)>) {
  api.route("GET", "/repos/:owner/:repo/actions/jobs/:job", (req) => {
    const run = api
      .repo("octo", "r")
      .checkRuns.get(SHA)
      ?.find((r) => r.id === Number(req.params.job));
    if (!run) return { status: 404, body: { message: "Not Found" } };
    return {
      body: {
        id: run.id,
        run_id: 777,
        name: run.name,
        status: run.status,
        conclusion: run.conclusion,
        steps: run.status === "completed" ? FAILING_TEST_STEPS : FAILING_TEST_STEPS.slice(0, 3),
      },
    };
  });
  api.route("GET", "/repos/:owner/:repo/actions/jobs/:job/logs", (req) => {
    const log = logs[Number(req.params.job)];
    if (log === undefined) return { status: 404, body: { message: "Not Found" } };
    // The signed URL: another origin, as pipelines.actions.githubusercontent.com is.
    return { status: 302, headers: { location: logHost.serve(`/logs/${req.params.job}`, log) } };
  });
  api.route("GET", "/repos/:owner/:repo/check-runs/:id/annotations", (req) => ({
    body: annotationsByRun.get(Number(req.params.id)) ?? [],
  }));
}

function logRequests() {
  return logHost.requests.splice(0);
}

describe("get_ci_log: GitHub Actions jobs", () => {
  test("the failing job's failed step, from a log fetched on another origin without any credential", async () => {
    seed({
      runs: [actionsRun(101, "test", "failure"), actionsRun(102, "build", "success")],
      logs: { 101: failingTestLog(3) },
    });
    logRequests();
    const data = expectOk(await callTool("get_ci_log", ARGS, context()));
    expect(data.pull_request).toBe(12);
    expect(data.head_sha).toBe(SHA);
    expect(data.notes).toBeUndefined();
    const [check] = data.checks as Json[];
    expect(check).toMatchObject({
      name: "test",
      id: 101,
      source: "job_log",
      status: "completed",
      conclusion: "failure",
      url: "https://github.com/octo/r/actions/runs/777/job/101",
      failed_steps: ["Unit tests"],
      errors: [{ step: "Unit tests", message: "Process completed with exit code 1." }],
    });
    expect((data.checks as Json[]).length).toBe(1);
    const log = check?.log as Array<{ step: string; lines: string[]; earlier_lines: number }>;
    expect(log.map((s) => s.step)).toEqual(["Unit tests"]);
    expect(log[0]?.lines.slice(-4)).toEqual([
      "  Received: 4",
      " 41 pass",
      " 1 fail",
      "##[error]Process completed with exit code 1.",
    ]);
    expect(JSON.stringify(data)).not.toMatch(/\\u001b|\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+Z/);
    expect(check?.log_bytes).toBe(Buffer.byteLength(failingTestLog(3)));

    // The API got the token; the log host got no credential of any kind.
    const apiLog = fake.requestsTo("/repos/octo/r/actions/jobs/101/logs");
    expect(apiLog).toHaveLength(1);
    expect(apiLog[0]?.headers.authorization).toBe(`token ${TOKEN}`);
    const hosted = logRequests();
    expect(hosted.map((r) => r.path)).toEqual(["/logs/101"]);
    for (const request of hosted) {
      expect(Object.keys(request.headers)).not.toContain("authorization");
      expect(Object.keys(request.headers)).not.toContain("cookie");
      expect(JSON.stringify(request.headers)).not.toContain(TOKEN);
    }
  });

  test("lines is the tail kept per failed step; over the maximum it is clamped with a note", async () => {
    seed({ runs: [actionsRun(101, "test", "failure")], logs: { 101: failingTestLog(900) } });
    const few = expectOk(await callTool("get_ci_log", { ...ARGS, lines: 2 }, context()));
    const fewLog = (few.checks as Json[])[0]?.log as Array<{ lines: string[]; earlier_lines: number }>;
    expect(fewLog[0]?.lines).toEqual([" 1 fail", "##[error]Process completed with exit code 1."]);
    expect(fewLog[0]?.earlier_lines).toBe(909);

    const many = expectOk(await callTool("get_ci_log", { ...ARGS, lines: 5000 }, context()));
    expect(many.notes).toEqual(["lines 5000 is over the maximum; used 500."]);
    const manyLog = (many.checks as Json[])[0]?.log as Array<{ lines: string[]; earlier_lines: number }>;
    expect(manyLog[0]?.lines).toHaveLength(500);
    expect(manyLog[0]?.earlier_lines).toBe(411);
  });

  test("a pytest job: its failing test leads, then the error lines, then the tail; one summary line per check", async () => {
    const pytest = RUNNER_OUTPUTS.pytest;
    seed({
      runs: [actionsRun(101, "test (ubuntu-latest, py3.12)", "failure")],
      logs: { 101: runnerLog(pytest.command, pytest.output) },
    });
    const data = expectOk(await callTool("get_ci_log", { ...ARGS, lines: 500 }, context()));
    expect(data.summary).toEqual([
      "test (ubuntu-latest, py3.12): 1 failed: tests/test_oauth.py::test_refresh_token: AssertionError: refreshed token was not persisted",
    ]);
    const [check] = data.checks as Json[];
    expect(check).toMatchObject({
      source: "job_log",
      failures: pytest.failures,
      totals: pytest.totals,
      errors: [{ step: "Unit tests", message: "Process completed with exit code 1." }],
    });
    const keys = Object.keys(check ?? {});
    expect(keys.indexOf("failures")).toBeLessThan(keys.indexOf("errors"));
    expect(keys.indexOf("errors")).toBeLessThan(keys.indexOf("log"));
    for (const line of POST_JOB_LINES) expect(JSON.stringify(check?.log)).not.toContain(line);
  });

  test("a job whose log is gone answers from its check run's report, and says so", async () => {
    const run = {
      ...actionsRun(101, "old", "failure"),
      output: { title: "1 error", summary: "Process completed with exit code 1.", text: null, annotations_count: 1 },
    };
    annotationsByRun.set(101, [
      { path: ".github", start_line: null, annotation_level: "failure", title: null, message: "pytest failed" },
    ]);
    seed({ runs: [run] });
    fake.inject("GET", "/repos/octo/r/actions/jobs/101/logs", { status: 410, body: { message: "Gone" } });
    const data = expectOk(await callTool("get_ci_log", { ...ARGS, check: "old" }, context()));
    const [check] = data.checks as Json[];
    expect(check).toMatchObject({
      source: "check_run_report",
      title: "1 error",
      summary: "Process completed with exit code 1.",
      annotations: [{ path: ".github", line: null, title: null, message: "pytest failed" }],
    });
    expect(check?.note).toMatch(/no longer keeps this job's log \(HTTP 410\)/);
    expect(data.summary).toEqual(["old: failure: 1 error"]);
    annotationsByRun.delete(101);
  });

  test("an expired log (410) and one not written yet (404 while the job runs) say so", async () => {
    seed({
      runs: [actionsRun(101, "old", "failure"), actionsRun(102, "running", null, "in_progress")],
      logs: { 102: "never served" },
    });
    fake.inject("GET", "/repos/octo/r/actions/jobs/101/logs", { status: 410, body: { message: "Gone" } });
    const expired = expectOk(await callTool("get_ci_log", { ...ARGS, check: "old" }, context()));
    expect((expired.checks as Json[])[0]?.note).toMatch(/no longer keeps this job's log \(HTTP 410\)/);
    expect((expired.checks as Json[])[0]?.log).toBeUndefined();

    fake.inject("GET", "/repos/octo/r/actions/jobs/102/logs", { status: 404, body: { message: "Not Found" } });
    const running = expectOk(await callTool("get_ci_log", { ...ARGS, check: "running" }, context()));
    expect((running.checks as Json[])[0]).toMatchObject({
      name: "running",
      status: "in_progress",
      note: "The log is not available yet: the job is in_progress. GitHub serves it once the job finishes.",
    });
  });

  test("a 50 MB log is read whole: the failed step's tail and its error come from its end", async () => {
    seed({ runs: [actionsRun(101, "huge", "failure")], logs: { 101: streamingLog(50) } });
    const data = expectOk(await callTool("get_ci_log", { ...ARGS, check: "huge", lines: 500 }, context()));
    const [check] = data.checks as Json[];
    expect(check?.log_bytes as number).toBeGreaterThan(50 * 1024 * 1024);
    expect(check?.errors).toEqual([{ step: "Unit tests", message: "Process completed with exit code 2." }]);
    expect(check?.failures).toEqual([
      { test: "tests/test_big.py::test_last", message: "AssertionError: the end was reached" },
    ]);
    const log = check?.log as Array<{ step: string; lines: string[]; earlier_lines: number }>;
    expect(log[0]?.lines).toHaveLength(500);
    expect(log[0]?.lines.at(-2)).toBe("make: *** [all] Error 2");
    expect(JSON.stringify(log)).not.toContain("post-job-marker");
    expect(log[0]?.earlier_lines).toBeGreaterThan(500_000);
  }, 60_000);

  test("an API that answers with the log itself (no redirect) is read the same way", async () => {
    seed({ runs: [actionsRun(101, "test", "failure")] });
    fake.inject("GET", "/repos/octo/r/actions/jobs/101/logs", {
      status: 200,
      body: failingTestLog(0),
      headers: { "content-type": "text/plain" },
    });
    logRequests();
    const data = expectOk(await callTool("get_ci_log", ARGS, context()));
    expect((data.checks as Json[])[0]).toMatchObject({
      failed_steps: ["Unit tests"],
      errors: [{ step: "Unit tests", message: "Process completed with exit code 1." }],
      log_bytes: Buffer.byteLength(failingTestLog(0)),
    });
    expect(logRequests()).toEqual([]);
  });

  test("a compressed log is fetched raw and inflated as it streams, under the byte cap", async () => {
    const log = failingTestLog(3);
    const gzipped = Bun.gzipSync(new TextEncoder().encode(log));
    seed({
      runs: [actionsRun(101, "test", "failure")],
      logs: {
        101: () => new Response(gzipped, { headers: { "content-type": "text/plain", "content-encoding": "gzip" } }),
      },
    });
    // Left to the runtime, a small compressed body may be inflated whole before the cap is counted.
    const { ctx } = makeContext({ env: fake.env() });
    const decompress: unknown[] = [];
    const recording = (async (input: string | URL | Request, init?: RequestInit) => {
      if (String(input).startsWith(logHost.url)) decompress.push((init as { decompress?: unknown })?.decompress);
      return fetch(input, init);
    }) as typeof fetch;
    const data = expectOk(await callTool("get_ci_log", ARGS, { ...ctx, fetch: recording }));
    expect(decompress).toEqual([false]);
    expect((data.checks as Json[])[0]).toMatchObject({
      errors: [{ step: "Unit tests", message: "Process completed with exit code 1." }],
      log_bytes: Buffer.byteLength(log),
    });
  });

  test("a log in an encoding not known here is reported, not read as an empty log", async () => {
    seed({
      runs: [actionsRun(101, "test", "failure")],
      logs: { 101: () => new Response("compressed?", { headers: { "content-encoding": "compress" } }) },
    });
    const data = expectOk(await callTool("get_ci_log", ARGS, context()));
    const [check] = data.checks as Json[];
    expect(check?.note).toMatch(/^The log host 127\.0\.0\.1:\d+ sent the log as compress, an encoding not known here/);
    expect(check?.log).toBeUndefined();

    // The same from an API that answers with the log itself.
    fake.inject("GET", "/repos/octo/r/actions/jobs/101/logs", {
      status: 200,
      body: "compressed?",
      headers: { "content-type": "text/plain", "content-encoding": "compress" },
    });
    const direct = expectOk(await callTool("get_ci_log", ARGS, context()));
    expect((direct.checks as Json[])[0]?.note).toBe("GitHub sent the log as compress, an encoding not known here");
  });

  test("a log address that is not http(s) is not fetched", async () => {
    seed({ runs: [actionsRun(101, "test", "failure")] });
    fake.inject("GET", "/repos/octo/r/actions/jobs/101/logs", {
      status: 302,
      headers: { location: "file:///etc/passwd" },
    });
    const data = expectOk(await callTool("get_ci_log", ARGS, context()));
    expect((data.checks as Json[])[0]?.note).toBe(
      "GitHub answered the request for the log of Actions job 101 in octo/r without a usable log address",
    );
  });

  test("a log host that answers with an error is reported, the token still not sent there", async () => {
    seed({ runs: [actionsRun(101, "test", "failure")] });
    fake.inject("GET", "/repos/octo/r/actions/jobs/101/logs", {
      status: 302,
      headers: { location: `${logHost.url}/expired-signature?sig=1` },
    });
    logRequests();
    const data = expectOk(await callTool("get_ci_log", ARGS, context()));
    expect((data.checks as Json[])[0]?.note).toMatch(/^The log host 127\.0\.0\.1:\d+ answered HTTP 403/);
    const hosted = logRequests();
    expect(hosted).toHaveLength(1);
    expect(Object.keys(hosted[0]?.headers ?? {})).not.toContain("authorization");
  });
});

describe("get_ci_log: a log host that stalls", () => {
  /** Sends the first lines of a log, then nothing more until the reader goes away. */
  function stalling(sent: () => void): () => Response {
    return () =>
      new Response(
        new ReadableStream<Uint8Array>({
          start(controller) {
            controller.enqueue(new TextEncoder().encode(failingTestLog(0).slice(0, 400)));
            sent();
          },
        }),
      );
  }

  test("no byte within the timeout: the download is abandoned and the check says so", async () => {
    seed({ runs: [actionsRun(101, "test", "failure")], logs: { 101: stalling(() => {}) } });
    const { ctx } = makeContext({ env: { ...fake.env(), TWIG_MCP_HTTP_TIMEOUT_MS: "1500" } });
    const data = expectOk(await callTool("get_ci_log", ARGS, ctx));
    // Named by the log host's own address, not the API's.
    expect((data.checks as Json[])[0]?.note).toStartWith(
      `${new URL(logHost.url).host} sent nothing for 1500 ms while sending the log of Actions job 101 in octo/r`,
    );
  });

  test("cancelling the call stops the download at once", async () => {
    const { promise: started, resolve } = Promise.withResolvers<void>();
    seed({ runs: [actionsRun(101, "test", "failure")], logs: { 101: stalling(resolve) } });
    const { ctx } = makeContext({ env: { ...fake.env(), TWIG_MCP_HTTP_TIMEOUT_MS: "600000" } });
    const controller = new AbortController();
    const call = callTool("get_ci_log", ARGS, ctx, callInfo(controller.signal));
    await started;
    controller.abort();
    const data = expectOk(await call);
    expect((data.checks as Json[])[0]?.note).toBe("Request for the log of Actions job 101 in octo/r was cancelled");
  });
});

describe("get_ci_log: an API that fails the log request", () => {
  test("cancelling during a retry back-off ends the call at once", async () => {
    seed({ runs: [actionsRun(101, "test", "failure")] });
    fake.route("GET", "/repos/:owner/:repo/actions/jobs/:job/logs", () => ({
      status: 502,
      body: { message: "Bad Gateway" },
    }));
    // A back-off of a minute: only the cancellation can end this call within the test's limit.
    const { ctx } = makeContext({ env: { ...fake.env(), TWIG_MCP_GITHUB_RETRY_DELAY_MS: "60000" } });
    const { promise: backingOff, resolve } = Promise.withResolvers<void>();
    const original = globalThis.setTimeout;
    globalThis.setTimeout = ((handler: () => void, ms?: number, ...rest: unknown[]) => {
      if (ms === 60_000) resolve();
      return original(handler, ms, ...rest);
    }) as typeof setTimeout;
    const controller = new AbortController();
    let data: Json;
    try {
      const call = callTool("get_ci_log", ARGS, ctx, callInfo(controller.signal));
      await backingOff;
      controller.abort();
      data = expectOk(await call);
    } finally {
      globalThis.setTimeout = original;
    }
    expect((data.checks as Json[])[0]?.note).toBe("Request for the log of Actions job 101 in octo/r was cancelled");
    expect(fake.requestsTo("/repos/octo/r/actions/jobs/101/logs")).toHaveLength(1);
  });
});

describe("get_ci_log: other checks", () => {
  test("an external check's report with its failure annotations, and a failing commit status", async () => {
    const external = {
      ...checkRunPayload({ id: 201, name: "codecheck", conclusion: "failure" }),
      details_url: "https://ci.example.com/build/201",
      output: {
        title: "2 problems",
        summary: "\u001b[31mType errors\u001b[0m in 2 files",
        text: `Details\nline two with ${TOKEN}`,
        annotations_count: 3,
        annotations_url: "https://api.github.com/repos/octo/r/check-runs/201/annotations",
      },
    };
    annotationsByRun.set(201, [
      {
        path: "src/a.ts",
        start_line: 4,
        end_line: 4,
        annotation_level: "failure",
        title: "TS2322",
        message: "Type 'string' is not assignable to type 'number'.",
        raw_details: null,
        blob_href: "https://github.com/octo/r/blob/abc/src/a.ts",
      },
      {
        path: "README.md",
        start_line: 2,
        end_line: 2,
        annotation_level: "warning",
        title: "Spell Checker",
        message: "Check your spelling for 'banaas'.",
        raw_details: "Do you mean 'bananas' or 'banana'?",
        blob_href: "https://github.com/octo/r/blob/abc/README.md",
      },
      {
        path: "src/b.ts",
        start_line: 9,
        end_line: 12,
        annotation_level: "failure",
        title: null,
        message: "Unused variable",
        raw_details: null,
        blob_href: "https://github.com/octo/r/blob/abc/src/b.ts",
      },
    ]);
    seed({
      runs: [external, checkRunPayload({ id: 202, name: "ok", conclusion: "success" })],
      statuses: [
        commitStatusPayload({ id: 1, context: "ci/jenkins", state: "failure", description: "Build #88 failed" }),
        commitStatusPayload({ id: 2, context: "ci/lint", state: "success" }),
      ],
    });
    const data = expectOk(await callTool("get_ci_log", ARGS, context()));
    expect(data.checks).toEqual([
      {
        name: "codecheck",
        id: 201,
        source: "check_run_report",
        status: "completed",
        conclusion: "failure",
        url: "https://github.com/github/hello-world/runs/4",
        title: "2 problems",
        summary: "Type errors in 2 files",
        text: "Details\nline two with [REDACTED]",
        annotations: [
          { path: "src/a.ts", line: 4, title: "TS2322", message: "Type 'string' is not assignable to type 'number'." },
          { path: "src/b.ts", line: 9, title: null, message: "Unused variable" },
        ],
        triage: NOT_COMPARED,
      },
      {
        name: "ci/jenkins",
        id: null,
        source: "commit_status",
        status: "failure",
        conclusion: null,
        url: "https://ci.example.com/1000/output",
        description: "Build #88 failed",
        triage: NOT_COMPARED,
      },
    ]);
    expect(fake.requestsTo(/\/actions\//)).toHaveLength(0);
  });

  test("another app's check whose details page looks like an Actions job is read as its report", async () => {
    const external = {
      ...checkRunPayload({ id: 202, name: "lookalike", conclusion: "failure" }),
      app: { id: 9, slug: "some-ci", name: "Some CI" },
      details_url: "https://ci.example.com/octo/r/actions/runs/5/job/101",
      output: { title: "1 problem", summary: "its own report", text: null, annotations_count: 0 },
    };
    seed({ runs: [external, actionsRun(101, "test", "success")], logs: { 101: failingTestLog(0) } });
    const data = expectOk(await callTool("get_ci_log", { ...ARGS, check: "lookalike" }, context()));
    expect((data.checks as Json[])[0]).toMatchObject({ source: "check_run_report", summary: "its own report" });
    expect(fake.requestsTo(/\/actions\/jobs\//)).toEqual([]);
  });

  test("no failing check: nothing read, and the reply says so", async () => {
    seed({ runs: [actionsRun(101, "test", "success"), actionsRun(102, "e2e", null, "queued")] });
    const data = expectOk(await callTool("get_ci_log", ARGS, context()));
    expect(data.checks).toEqual([]);
    expect(data.notes).toEqual(["No failing checks on PR #12 (2 checks, 1 pending). Pass check to read one anyway."]);
  });

  test("at most three failing checks are read; the others are named", async () => {
    const runs = Array.from({ length: 5 }, (_, i) =>
      checkRunPayload({ id: 300 + i, name: `job-${i}`, conclusion: "failure" }),
    );
    seed({ runs });
    const data = expectOk(await callTool("get_ci_log", ARGS, context()));
    expect((data.checks as Json[]).map((c) => c.name)).toEqual(["job-0", "job-1", "job-2"]);
    expect(data.notes).toEqual(['2 more not read: "job-3", "job-4". Pass check to read one.']);
  });
});

describe("get_ci_log: choosing a check", () => {
  test("by name (any case) or by id, passing ones too", async () => {
    seed({ runs: [actionsRun(101, "Unit Tests", "success")], logs: { 101: failingTestLog(0) } });
    const byName = expectOk(await callTool("get_ci_log", { ...ARGS, check: "unit tests" }, context()));
    expect((byName.checks as Json[]).map((c) => c.id)).toEqual([101]);
    const byId = expectOk(await callTool("get_ci_log", { ...ARGS, check: "101" }, context()));
    expect((byId.checks as Json[]).map((c) => c.name)).toEqual(["Unit Tests"]);
  });

  test("an unknown check gets a did-you-mean and the PR's checks", async () => {
    seed({
      runs: [actionsRun(101, "unit-tests", "failure"), actionsRun(102, "lint", "success")],
      statuses: [commitStatusPayload({ context: "ci/jenkins", state: "success" })],
    });
    const error = expectErr(await callTool("get_ci_log", { ...ARGS, check: "unit-test" }, context()));
    expect(error.code).toBe("not_found");
    expect(error.message).toBe("No check named 'unit-test' on PR #12");
    expect(error.hint).toBe('Did you mean "unit-tests"? Its checks: "unit-tests", "lint", "ci/jenkins".');
  });

  test("the current branch's PR when no pr_number is given", async () => {
    seed({ runs: [actionsRun(101, "test", "failure")], logs: { 101: failingTestLog(0) } });
    const repo = makeRepo({
      branch: "feature-12",
      remotes: [["origin", "https://github.com/octo/r.git"]],
      state: stateWith({ "feature-12": 12 }),
    });
    git(repo, "status");
    const { ctx } = makeContext({ env: fake.env(), repo: okRepo(repo) });
    const data = expectOk(await callTool("get_ci_log", {}, ctx));
    expect(data.pull_request).toBe(12);
    expect((data.checks as Json[])[0]?.failed_steps).toEqual(["Unit tests"]);
  });
});

describe("get_ci_log: reply budget", () => {
  test("over the budget, every step keeps fewer of its last lines, marked as cut", async () => {
    const long = timestamped([
      "##[group]Run make",
      ...Array.from({ length: 400 }, (_, i) => `compiling unit ${i} ${"·".repeat(60)}`),
      "##[error]Process completed with exit code 2.",
    ]);
    seed({ runs: [actionsRun(101, "build", "failure")], logs: { 101: long } });
    const data = expectOk(await callTool("get_ci_log", { ...ARGS, lines: 500 }, context()));
    const budget = replyBudget(2000);
    if (budget === null) throw new Error("no budget");
    expect(budget.size(data)).toBeGreaterThan(budget.units);
    const definition = tool("get_ci_log");
    const cut = (await definition.fit?.(data, budget, ARGS, context())) as Json;
    expect(budget.size(cut)).toBeLessThanOrEqual(budget.units);
    expect(cut.truncated).toBe(true);
    const log = (cut.checks as Json[])[0]?.log as Array<{ lines: string[]; earlier_lines: number }>;
    const kept = log[0]?.lines ?? [];
    expect(kept.length).toBeGreaterThan(10);
    expect(kept.at(-1)).toBe("##[error]Process completed with exit code 2.");
    expect((log[0]?.earlier_lines ?? 0) + kept.length).toBe(402);
    expect((cut.omitted as Json).lines).toBe(402 - kept.length);
    expect(cut.hint).toContain(`keeps its last ${kept.length} lines`);
  });

  test("over the budget, the failures are kept longest: the tail is cut first", async () => {
    const failed = Array.from(
      { length: 12 },
      (_, i) => `FAILED tests/test_t.py::test_${i} - AssertionError: case ${i}`,
    );
    const long = timestamped([
      "##[group]Run pytest",
      ...Array.from({ length: 400 }, (_, i) => `tests/test_${i}.py ${".".repeat(60)} [ ${i}%]`),
      ...failed,
      "##[error]Process completed with exit code 1.",
    ]);
    seed({ runs: [actionsRun(101, "test", "failure")], logs: { 101: long } });
    const data = expectOk(await callTool("get_ci_log", { ...ARGS, lines: 500 }, context()));
    const budget = replyBudget(2000);
    if (budget === null) throw new Error("no budget");
    expect(budget.size(data)).toBeGreaterThan(budget.units);
    const cut = (await tool("get_ci_log").fit?.(data, budget, ARGS, context())) as Json;
    expect(budget.size(cut)).toBeLessThanOrEqual(budget.units);
    const [check] = cut.checks as Json[];
    expect(check?.failures).toHaveLength(12);
    const log = check?.log as Array<{ lines: string[] }>;
    expect(log[0]?.lines.length).toBeLessThan(400);
  });
});

describe("get_ci_log: a log that trickles in", () => {
  test("the read ends at its overall deadline: what came is kept, and the note says the rest was not read", async () => {
    const { ctx } = makeContext({ env: fake.env() });
    const target = { host: "github.com", owner: "octo", repo: "r" } as const;
    const call = await connect(ctx, target, new AbortController().signal);
    if (!call.ok) throw new Error(call.error.message);
    // A step's failure, then a byte every 50 ms, forever: well within the idle timeout, never done.
    const head = new TextEncoder().encode(failingTestLog(0));
    let timer: ReturnType<typeof setInterval> | undefined;
    const trickle = () =>
      new Response(
        new ReadableStream<Uint8Array>({
          start(controller) {
            controller.enqueue(head);
            timer = setInterval(() => controller.enqueue(new TextEncoder().encode(" ")), 50);
          },
          cancel: () => clearInterval(timer),
        }),
      );
    fake.route("GET", "/repos/:owner/:repo/actions/jobs/:job/logs", () => ({
      status: 302,
      headers: { location: logHost.serve("/trickle", trickle) },
    }));
    const read = await readJobLog(call.value, {
      jobId: 101,
      steps: FAILING_TEST_STEPS,
      lines: 50,
      fetch: ctx.fetch,
      env: ctx.env,
      deadlineMs: 1000,
    });
    clearInterval(timer);
    if (!read.ok || read.value.kind !== "read") throw new Error(JSON.stringify(read));
    expect(read.value.cut).toBe("Only what came within 1 s was read; the rest was not.");
    expect(read.value.bytes).toBeGreaterThanOrEqual(head.byteLength);
    expect(JSON.stringify(read.value.log.errors)).toContain("exit code 1");
  });
});
