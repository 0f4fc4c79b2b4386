import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { readFileSync, realpathSync } from "node:fs";
import { cleanupTemp, makeRepo, stateWith, TOKEN } from "../github/helpers.ts";
import {
  FAILING_TEST_STEPS,
  failingTestLog,
  type LogHost,
  RUNNER_OUTPUTS,
  runnerLog,
  startLogHost,
  streamingLog,
} from "../support/actions-log.ts";
import { checkRunPayload } from "../support/fake-github.ts";
import { type HermeticHome, makeHermeticHome } from "../support/hermetic-env.ts";
import { type RunningServer, startServer } from "../support/mcp-harness.ts";
import { useFakeGitHub } from "../support/use-fake-github.ts";

// These tests start the compiled binary; on a busy machine that takes longer than bun's 5 s default.
setDefaultTimeout(60_000);

/** get_ci_log through the compiled binary: the fake API redirects the log to a host on another port. */
describe("get_ci_log end to end", () => {
  const fake = useFakeGitHub({ token: TOKEN, resetAfterEach: false });
  let logHost: LogHost;
  let home: HermeticHome;
  let server: RunningServer;
  let budgeted: RunningServer;
  const sha = "d".repeat(40);

  beforeAll(async () => {
    logHost = await startLogHost();
    fake.addPull({ owner: "octo", repo: "shop", number: 43, head: "feature/auth-ui", headSha: sha });
    fake.repo("octo", "shop").checkRuns.set(sha, [
      {
        ...checkRunPayload({ id: 9001, name: "test (ubuntu-latest)", conclusion: "failure" }),
        app: { id: 15368, slug: "github-actions", name: "GitHub Actions" },
        details_url: "https://github.com/octo/shop/actions/runs/5/job/9001",
      },
      checkRunPayload({ id: 9002, name: "build", conclusion: "success" }),
    ]);
    fake.route("GET", "/repos/:owner/:repo/actions/jobs/:job", () => ({
      body: {
        id: 9001,
        name: "test (ubuntu-latest)",
        status: "completed",
        conclusion: "failure",
        steps: FAILING_TEST_STEPS,
      },
    }));
    fake.route("GET", "/repos/:owner/:repo/actions/jobs/:job/logs", () => ({
      status: 302,
      headers: { location: logHost.serve("/job/9001", failingTestLog(2000)) },
    }));

    const repo = realpathSync(
      makeRepo({
        branch: "feature/auth-ui",
        remotes: [["origin", "git@github.com:octo/shop.git"]],
        state: stateWith({ "feature/auth-ui": 43 }),
      }),
    );
    home = makeHermeticHome({ GITHUB_API_URL: fake.url, GH_TOKEN: TOKEN, TWIG_MCP_GITHUB_RETRY_DELAY_MS: "1" });
    [server, budgeted] = await Promise.all([
      startServer({ cwd: repo, env: home.env }),
      startServer({ cwd: repo, env: home.env, args: ["--max-reply-tokens", "1500"] }),
    ]);
  }, 120_000);

  afterAll(async () => {
    await Promise.all([server?.close(), budgeted?.close()]);
    await logHost?.stop();
    home?.cleanup();
    cleanupTemp();
  });

  test("the current branch's failing job: its failed step's tail and error, the token kept off the log host", async () => {
    logHost.requests.length = 0;
    const result = await server.call("get_ci_log", { lines: 5 });
    expect(result.isError).toBe(false);
    expect(result.structured).toEqual({
      pull_request: 43,
      head_sha: sha,
      summary: ["test (ubuntu-latest): failure: Unit tests: Process completed with exit code 1."],
      checks: [
        {
          name: "test (ubuntu-latest)",
          id: 9001,
          source: "job_log",
          status: "completed",
          conclusion: "failure",
          url: "https://github.com/github/hello-world/runs/4",
          failed_steps: ["Unit tests"],
          log: [
            {
              step: "Unit tests",
              earlier_lines: 2006,
              lines: [
                "  Expected: 3",
                "  Received: 4",
                " 41 pass",
                " 1 fail",
                "##[error]Process completed with exit code 1.",
              ],
            },
          ],
          errors: [{ step: "Unit tests", message: "Process completed with exit code 1." }],
          log_bytes: Buffer.byteLength(failingTestLog(2000)),
          // The fake's main has no checks: nothing to tell whose the failure is by.
          triage: {
            verdict: "unknown",
            why: "main has no checks to compare with",
            hint: "Not compared: read the failure and judge.",
          },
        },
      ],
    });
    expect(logHost.requests.length).toBeGreaterThan(0);
    for (const request of logHost.requests) expect(request.headers.authorization).toBeUndefined();
    expect(fake.requestsTo("/repos/octo/shop/actions/jobs/9001/logs").at(-1)?.headers.authorization).toBe(
      `token ${TOKEN}`,
    );
  });

  test("a jest job: the failing tests lead the reply, cleaned, and its summary line names the first", async () => {
    const jest = RUNNER_OUTPUTS.jest;
    fake.inject("GET", "/repos/octo/shop/actions/jobs/9001/logs", {
      status: 302,
      headers: { location: logHost.serve("/job/jest", runnerLog(jest.command, jest.output)) },
    });
    const result = await server.call("get_ci_log", {});
    expect(result.isError).toBe(false);
    const data = result.structured as { summary: string[]; checks: Array<Record<string, unknown>> };
    expect(data.summary).toEqual([
      "test (ubuntu-latest): 2 failed: sum › adds 1 + 2: expect(received).toBe(expected) // Object.is equality (and 1 more)",
    ]);
    const [check] = data.checks;
    expect(check?.failures).toEqual(jest.failures);
    expect(check?.totals).toBe(jest.totals);
    expect(Object.keys(check ?? {}).indexOf("failures")).toBeLessThan(Object.keys(check ?? {}).indexOf("log"));
    expect(result.text).not.toMatch(/\\u001b|Post job cleanup|orphan/);
  });

  test("an unknown check is a tool error with a did-you-mean", async () => {
    const result = await server.call("get_ci_log", { check: "biuld" });
    expect(result.isError).toBe(true);
    expect(result.envelope).toEqual({
      status: "error",
      error: {
        code: "not_found",
        message: "No check named 'biuld' on PR #43",
        hint: 'Did you mean "build"? Its checks: "test (ubuntu-latest)", "build".',
      },
    });
  });

  test("a small reply budget keeps the failed step's last lines that fit", async () => {
    const result = await budgeted.call("get_ci_log", { lines: 500 });
    expect(result.isError).toBe(false);
    expect(Buffer.byteLength(result.text)).toBeLessThanOrEqual(1500 * 3);
    const data = result.structured as {
      truncated: boolean;
      checks: Array<{ log: Array<{ lines: string[]; earlier_lines: number }> }>;
    };
    expect(data.truncated).toBe(true);
    const step = data.checks[0]?.log[0];
    expect(step?.lines.at(-1)).toBe("##[error]Process completed with exit code 1.");
    expect((step?.lines.length ?? 0) + (step?.earlier_lines ?? 0)).toBe(2011);
  });

  // Measured on the server process, not the test's: a test process that has run other files holds
  // garbage of its own, and its collector's timing would decide the figure.
  test.skipIf(process.platform !== "linux")("a 100 MB log streams through the server in bounded memory", async () => {
    const peak = () => {
      const status = readFileSync(`/proc/${server.pid()}/status`, "utf8");
      return Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1]) * 1024;
    };
    expect((await server.call("get_ci_log", { lines: 500 })).envelope.status).toBe("ok");
    const before = peak();
    fake.inject("GET", "/repos/octo/shop/actions/jobs/9001/logs", {
      status: 302,
      headers: { location: logHost.serve("/job/huge", streamingLog(100)) },
    });
    const result = await server.call("get_ci_log", { lines: 500 });
    expect(result.envelope.status).toBe("ok");
    const [check] = (result.envelope.data as { checks: Array<{ log_bytes: number; lines?: unknown }> }).checks;
    expect(check?.log_bytes).toBeGreaterThan(100 * 1024 * 1024);
    // Holding the log whole would take 100 MB as bytes and twice that as a string; streaming takes
    // a few chunks, plus what a slow reader lets the connection queue on a busy machine.
    expect(peak() - before).toBeLessThan(128 * 1024 * 1024);
  });
});
