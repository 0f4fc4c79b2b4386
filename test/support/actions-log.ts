/**
 * GitHub Actions job logs as the runner writes them: an ISO timestamp before every line, ANSI
 * colours from the tools, `##[group]Run …` starting each step, `Post job cleanup.` for post steps
 * and `Cleaning up orphan processes` for "Complete job". Plus a fake log host on its own loopback
 * port (another origin than the fake API) that records the headers it was sent.
 */
import type { Server } from "bun";

const ESC = "\u001b";
let clock = Date.UTC(2025, 5, 3, 14, 0, 0);

function stamp(): string {
  clock += 137;
  return `${new Date(clock).toISOString().replace(/Z$/, "0000Z")}`;
}

/** Lines with the runner's timestamps, CRLF-free, newline-terminated. */
export function timestamped(lines: readonly string[]): string {
  return lines.map((line) => `${stamp()} ${line}\n`).join("");
}

/** The steps GitHub lists for the job of {@link failingTestLog}. */
export const FAILING_TEST_STEPS = [
  { name: "Set up job", number: 1, status: "completed", conclusion: "success" },
  { name: "Check out", number: 2, status: "completed", conclusion: "success" },
  { name: "Lint", number: 3, status: "completed", conclusion: "skipped" },
  { name: "Unit tests", number: 4, status: "completed", conclusion: "failure" },
  { name: "Upload coverage", number: 5, status: "completed", conclusion: "skipped" },
  { name: "Post Check out", number: 7, status: "completed", conclusion: "success" },
  { name: "Complete job", number: 8, status: "completed", conclusion: "success" },
];

/** A job whose "Unit tests" step fails after `noise` lines of debug output. */
export function failingTestLog(noise = 5): string {
  return `\ufeff${timestamped([
    "Current runner version: '2.317.0'",
    "##[group]Operating System",
    "Ubuntu",
    "22.04.4",
    "##[endgroup]",
    "Complete job name: test (ubuntu-latest)",
    "##[group]Run actions/checkout@v4",
    "with:",
    "  repository: octo/r",
    "##[endgroup]",
    "Syncing repository: octo/r",
    `${ESC}[36;1mgit version${ESC}[0m`,
    "##[group]Run bun test",
    `${ESC}[36;1mbun test${ESC}[0m`,
    "shell: /usr/bin/bash -e {0}",
    "##[endgroup]",
    "bun test v1.4.5",
    ...Array.from({ length: noise }, (_, i) => `${ESC}[2mdebug: loaded fixture ${i + 1}${ESC}[0m`),
    `${ESC}[31m✗${ESC}[0m parses the config ${ESC}]0;pwned${ESC}\\`,
    "error: expect(received).toBe(expected)",
    "  Expected: 3",
    "  Received: 4",
    `${ESC}[1m 41 pass${ESC}[0m`,
    `${ESC}[31m 1 fail${ESC}[0m`,
    "##[error]Process completed with exit code 1.",
    "Post job cleanup.",
    "[command]/usr/bin/git version",
    "git version 2.45.2",
    "Cleaning up orphan processes",
  ])}`;
}

export interface LogHost {
  url: string;
  /** Headers of every request, lower-cased names. */
  requests: Array<{ path: string; headers: Record<string, string> }>;
  /** Serves `body` (a string or a streaming response factory) at `path`. */
  serve(path: string, body: string | (() => Response)): string;
  stop(): Promise<void>;
}

/** A second loopback server, standing in for the blob storage GitHub's signed log URLs point at. */
export async function startLogHost(): Promise<LogHost> {
  const routes = new Map<string, string | (() => Response)>();
  const requests: LogHost["requests"] = [];
  const server: Server<unknown> = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(request) {
      const url = new URL(request.url);
      const headers: Record<string, string> = {};
      request.headers.forEach((value, name) => {
        headers[name] = value;
      });
      requests.push({ path: url.pathname, headers });
      const body = routes.get(url.pathname);
      if (body === undefined) return new Response("The signed URL has expired", { status: 403 });
      return typeof body === "string" ? new Response(body, { headers: { "content-type": "text/plain" } }) : body();
    },
  });
  const url = `http://127.0.0.1:${server.port}`;
  return {
    url,
    requests,
    serve(path, body) {
      routes.set(path, body);
      return `${url}${path}?sig=abc123&se=2025-06-03T14%3A01%3A00Z`;
    },
    stop: () => server.stop(true),
  };
}

/**
 * A log of about `megabytes` MB streamed in chunks as they are read (never built whole), with a
 * failing step at its end: memory stays flat on both sides only if the reader streams too.
 */
export function streamingLog(megabytes: number): () => Response {
  const chunk = timestamped(
    Array.from({ length: 400 }, (_, i) => `${ESC}[32m  ok${ESC}[0m compiled module ${i} of a very large build`),
  );
  const bytes = new TextEncoder().encode(chunk);
  const chunks = Math.ceil((megabytes * 1024 * 1024) / bytes.byteLength);
  return () => {
    let sent = 0;
    const head = new TextEncoder().encode(
      timestamped(["##[group]Run actions/checkout@v4", "##[endgroup]", "##[group]Run make", "##[endgroup]"]),
    );
    const tail = new TextEncoder().encode(
      timestamped([
        "FAILED tests/test_big.py::test_last - AssertionError: the end was reached",
        "make: *** [all] Error 2",
        "##[error]Process completed with exit code 2.",
        ...POST_JOB_LINES,
      ]),
    );
    return new Response(
      new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(head);
        },
        pull(controller) {
          if (sent >= chunks) {
            controller.enqueue(tail);
            controller.close();
            return;
          }
          sent++;
          controller.enqueue(bytes);
        },
      }),
      { headers: { "content-type": "text/plain" } },
    );
  };
}

/** The steps GitHub lists for the job of {@link runnerLog}: the test step fails, post steps run. */
export const RUNNER_STEPS = [
  { name: "Set up job", number: 1, status: "completed", conclusion: "success" },
  { name: "Check out", number: 2, status: "completed", conclusion: "success" },
  { name: "Test", number: 3, status: "completed", conclusion: "failure" },
  { name: "Upload report", number: 4, status: "completed", conclusion: "skipped" },
  { name: "Post Check out", number: 6, status: "completed", conclusion: "success" },
  { name: "Complete job", number: 7, status: "completed", conclusion: "success" },
];

/** Cleanup lines a real job writes after its failed step; none of them may reach a reply. */
export const POST_JOB_LINES = [
  "Post job cleanup.",
  "[command]/usr/bin/git version",
  "git version 2.45.2",
  "Temporarily overriding HOME='/home/runner/work/_temp/post-job-marker' before making global git config changes",
  "[command]/usr/bin/git config --global --add safe.directory /home/runner/work/r/r",
  "[command]/usr/bin/git config --local --name-only --get-regexp core\\.sshCommand",
  "[command]/usr/bin/git submodule foreach --recursive post-job-marker",
  "Cleaning up orphan processes",
  "Terminate orphan process: pid (2211) (post-job-marker)",
];

/** A job whose "Test" step runs `command`, prints `output` and exits 1; then the post-job steps. */
export function runnerLog(command: string, output: readonly string[]): string {
  return `\ufeff${timestamped([
    "Current runner version: '2.321.0'",
    "##[group]Runner Image",
    "Image: ubuntu-24.04",
    "##[endgroup]",
    "##[group]Run actions/checkout@v4",
    "with:",
    "  repository: octo/r",
    "##[endgroup]",
    "Syncing repository: octo/r",
    `##[group]Run ${command}`,
    `${ESC}[36;1m${command}${ESC}[0m`,
    "shell: /usr/bin/bash -e {0}",
    "##[endgroup]",
    ...output,
    "##[error]Process completed with exit code 1.",
    ...POST_JOB_LINES,
  ])}`;
}

const RED = `${ESC}[31m`;
const GREEN = `${ESC}[32m`;
const BOLD = `${ESC}[1m`;
const OFF = `${ESC}[0m`;
const passing = (n: number, line: (i: number) => string) => Array.from({ length: n }, (_, i) => line(i + 1));

/** Each runner's output for a failing run, as it shows in an Actions log, and the failures it names. */
export const RUNNER_OUTPUTS = {
  pytest: {
    command: "pytest -q",
    output: [
      `${BOLD}============================= test session starts ==============================${OFF}`,
      "platform linux -- Python 3.12.7, pytest-8.3.3, pluggy-1.5.0",
      "collected 24 items",
      "",
      `tests/test_api.py ${GREEN}.....................${OFF}${RED}F${OFF}${GREEN}..${OFF}                                 [100%]`,
      "",
      "=================================== FAILURES ===================================",
      `${RED}${BOLD}_____________________________ test_refresh_token ______________________________${OFF}`,
      "",
      "    def test_refresh_token():",
      "        session = login()",
      ">       assert session.refreshed, 'refreshed token was not persisted'",
      `${RED}E       AssertionError: refreshed token was not persisted${OFF}`,
      `${RED}E       assert False${OFF}`,
      `${RED}E        +  where False = <Session>.refreshed${OFF}`,
      "",
      "tests/test_oauth.py:42: AssertionError",
      "=========================== short test summary info ============================",
      `${RED}FAILED${OFF} tests/test_oauth.py::test_refresh_token - AssertionError: refreshed token was not persisted`,
      `${RED}========================= ${BOLD}1 failed${OFF}${RED}, 23 passed in 0.42s =========================${OFF}`,
    ],
    failures: [
      {
        test: "tests/test_oauth.py::test_refresh_token",
        message:
          "AssertionError: refreshed token was not persisted\nassert False\n+  where False = <Session>.refreshed",
      },
    ],
    totals: "1 failed, 23 passed in 0.42s",
  },
  jest: {
    command: "npx jest",
    output: [
      ...passing(6, (i) => `${GREEN}PASS${OFF} src/module${i}.test.js`),
      `${RED}FAIL${OFF} src/sum.test.js`,
      `  ${RED}●${OFF} sum › adds 1 + 2`,
      "",
      `    ${ESC}[2mexpect(${OFF}${RED}received${OFF}${ESC}[2m).${OFF}toBe${ESC}[2m(${OFF}${GREEN}expected${OFF}${ESC}[2m) // Object.is equality${OFF}`,
      "",
      `    Expected: ${GREEN}3${OFF}`,
      `    Received: ${RED}4${OFF}`,
      "",
      "      3 | test('adds 1 + 2', () => {",
      `    ${RED}${BOLD}>${OFF} 4 |   expect(sum(1, 2)).toBe(3);`,
      "        |                     ^",
      "      at Object.toBe (src/sum.test.js:4:21)",
      "",
      `  ${RED}●${OFF} sum › subtracts`,
      "",
      "    TypeError: sub is not a function",
      "",
      "      at Object.<anonymous> (src/sum.test.js:8:10)",
      "",
      `${BOLD}Tests:${OFF}       ${RED}2 failed${OFF}, ${GREEN}40 passed${OFF}, 42 total`,
    ],
    failures: [
      {
        test: "sum › adds 1 + 2",
        message: "expect(received).toBe(expected) // Object.is equality\nExpected: 3\nReceived: 4",
      },
      { test: "sum › subtracts", message: "TypeError: sub is not a function" },
    ],
    totals: "Tests: 2 failed, 40 passed, 42 total",
  },
  vitest: {
    command: "npx vitest run",
    output: [
      ...passing(5, (i) => ` ${GREEN}✓${OFF} tests/module${i}.test.ts (3 tests) 4ms`),
      ` ${RED}❯${OFF} tests/sum.test.ts (2 tests | 1 failed) 6ms`,
      `   ${RED}×${OFF} sum > adds 1 + 2 3ms`,
      "",
      `${RED}⎯⎯⎯⎯⎯⎯⎯ Failed Tests 1 ⎯⎯⎯⎯⎯⎯⎯${OFF}`,
      "",
      `${ESC}[41m FAIL ${OFF} tests/sum.test.ts > sum > adds 1 + 2`,
      `${RED}AssertionError${OFF}: expected 4 to be 3 // Object.is equality`,
      "",
      `${GREEN}- Expected${OFF}`,
      `${RED}+ Received${OFF}`,
      "",
      `${GREEN}- 3${OFF}`,
      `${RED}+ 4${OFF}`,
      "",
      ` ${ESC}[36m❯${OFF} tests/sum.test.ts:5:22`,
      "      3| test('adds 1 + 2', () => {",
      `${RED}⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯[1/1]⎯${OFF}`,
      "",
      ` Test Files  ${RED}1 failed${OFF} | ${GREEN}5 passed${OFF} (6)`,
      `      Tests  ${RED}1 failed${OFF} | ${GREEN}16 passed${OFF} (17)`,
    ],
    failures: [
      {
        test: "tests/sum.test.ts > sum > adds 1 + 2",
        message: "AssertionError: expected 4 to be 3 // Object.is equality\n- Expected\n+ Received\n- 3\n+ 4",
      },
    ],
    totals: "Tests 1 failed | 16 passed (17)",
  },
  go: {
    command: "go test ./...",
    output: [
      ...passing(4, (i) => `ok  \texample.com/app/pkg${i}\t0.01${i}s`),
      "--- FAIL: TestParse (0.00s)",
      "    --- FAIL: TestParse/empty_input (0.00s)",
      '        parse_test.go:27: Parse("") = 3; want 0',
      "--- FAIL: TestAdd (0.00s)",
      "    sum_test.go:12: Add(1, 2) = 4; want 3",
      "    sum_test.go:13: and the carry was lost",
      "FAIL",
      "FAIL\texample.com/app/sum\t0.004s",
      "FAIL",
    ],
    failures: [
      { test: "TestParse/empty_input", message: 'parse_test.go:27: Parse("") = 3; want 0' },
      { test: "TestAdd", message: "sum_test.go:12: Add(1, 2) = 4; want 3\nsum_test.go:13: and the carry was lost" },
    ],
    totals: undefined,
  },
  maven: {
    command: "mvn -B test",
    output: [
      "[INFO] -------------------------------------------------------",
      "[INFO]  T E S T S",
      "[INFO] -------------------------------------------------------",
      "[INFO] Running com.example.AppTest",
      `[${RED}${BOLD}ERROR${OFF}] Tests run: 3, Failures: 1, Errors: 0, Skipped: 0, Time elapsed: 0.05 s <<< FAILURE! -- in com.example.AppTest`,
      "[ERROR] com.example.AppTest.testAdd -- Time elapsed: 0.01 s <<< FAILURE!",
      "org.opentest4j.AssertionFailedError: expected: <3> but was: <4>",
      "\tat org.junit.jupiter.api.AssertionUtils.fail(AssertionUtils.java:151)",
      "[INFO] ",
      "[INFO] Results:",
      "[INFO] ",
      `[${RED}${BOLD}ERROR${OFF}] Failures: `,
      "[ERROR]   AppTest.testAdd:12 expected: <3> but was: <4>",
      "[INFO] ",
      "[ERROR] Tests run: 3, Failures: 1, Errors: 0, Skipped: 0",
      "[INFO] ",
      "[INFO] BUILD FAILURE",
    ],
    failures: [{ test: "AppTest.testAdd:12", message: "expected: <3> but was: <4>" }],
    totals: "Tests run: 3, Failures: 1, Errors: 0, Skipped: 0",
  },
  gradle: {
    command: "./gradlew test",
    output: [
      "> Task :app:compileJava",
      "> Task :app:test",
      "",
      `AppTest > testAdd() ${RED}FAILED${OFF}`,
      "    org.opentest4j.AssertionFailedError: expected: <3> but was: <4>",
      "        at app//org.junit.jupiter.api.AssertionUtils.fail(AssertionUtils.java:151)",
      "        at app//AppTest.testAdd(AppTest.java:12)",
      "",
      "3 tests completed, 1 failed",
      "",
      "> Task :app:test FAILED",
      "",
      "FAILURE: Build failed with an exception.",
    ],
    failures: [
      { test: "AppTest > testAdd()", message: "org.opentest4j.AssertionFailedError: expected: <3> but was: <4>" },
    ],
    totals: "3 tests completed, 1 failed",
  },
  cargo: {
    command: "cargo test",
    output: [
      `${GREEN}   Compiling${OFF} app v0.1.0 (/home/runner/work/r/r)`,
      "running 3 tests",
      `test tests::subtracts ... ${GREEN}ok${OFF}`,
      `test tests::adds ... ${RED}FAILED${OFF}`,
      `test tests::multiplies ... ${GREEN}ok${OFF}`,
      "",
      "failures:",
      "",
      "---- tests::adds stdout ----",
      "thread 'tests::adds' panicked at src/lib.rs:10:9:",
      "assertion `left == right` failed",
      "  left: 4",
      " right: 3",
      "note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace",
      "",
      "",
      "failures:",
      "    tests::adds",
      "",
      `test result: ${RED}FAILED${OFF}. 2 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s`,
    ],
    failures: [
      {
        test: "tests::adds",
        message:
          "thread 'tests::adds' panicked at src/lib.rs:10:9:\nassertion `left == right` failed\nleft: 4\nright: 3",
      },
    ],
    totals: "test result: FAILED. 2 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s",
  },
} as const;
