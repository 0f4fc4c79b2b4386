import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { cleanCiText, JobLogFilter, MAX_ERROR_LINES, MAX_LINE_CHARS } from "../../src/github/log-filter.ts";
import {
  FAILING_TEST_STEPS,
  failingTestLog,
  POST_JOB_LINES,
  RUNNER_OUTPUTS,
  RUNNER_STEPS,
  runnerLog,
  timestamped,
} from "../support/actions-log.ts";

const TOKEN = "ghp_testTOKEN0123456789abcdefSECRET";

function filter(
  text: string | string[],
  options: { lines?: number; steps?: readonly (typeof FAILING_TEST_STEPS)[number][] } = {},
) {
  const log = new JobLogFilter({ lines: options.lines ?? 50, jobSteps: options.steps ?? [], secrets: [TOKEN] });
  for (const part of typeof text === "string" ? [text] : text) log.push(part);
  return log.end();
}

describe("JobLogFilter", () => {
  test("keeps the failed step's section, named from the job's steps, without timestamps or escapes", () => {
    const result = filter(failingTestLog(2), { steps: FAILING_TEST_STEPS });
    expect(result.steps).toEqual([
      {
        step: "Unit tests",
        earlier_lines: 0,
        lines: [
          "##[group]Run bun test",
          "bun test",
          "shell: /usr/bin/bash -e {0}",
          "bun test v1.4.5",
          "debug: loaded fixture 1",
          "debug: loaded fixture 2",
          "✗ parses the config ",
          "error: expect(received).toBe(expected)",
          "  Expected: 3",
          "  Received: 4",
          " 41 pass",
          " 1 fail",
          "##[error]Process completed with exit code 1.",
        ],
      },
    ]);
    expect(result.errors).toEqual([{ step: "Unit tests", message: "Process completed with exit code 1." }]);
    expect(result.errors_omitted).toBe(0);
  });

  test("keeps only the section's last `lines` lines and counts the rest", () => {
    const result = filter(failingTestLog(1000), { lines: 3, steps: FAILING_TEST_STEPS });
    expect(result.steps).toEqual([
      {
        step: "Unit tests",
        earlier_lines: 1008,
        lines: [" 41 pass", " 1 fail", "##[error]Process completed with exit code 1."],
      },
    ]);
  });

  test("without the job's steps, the section with the error is chosen, named by the runner", () => {
    const result = filter(failingTestLog(0), { lines: 2 });
    expect(result.steps).toEqual([
      { step: "Run bun test", earlier_lines: 9, lines: [" 1 fail", "##[error]Process completed with exit code 1."] },
    ]);
    expect(result.errors).toEqual([{ step: "Run bun test", message: "Process completed with exit code 1." }]);
  });

  test("steps that do not line up with the log's sections fall back to the errored section", () => {
    // A step missing from the list: five sections, four steps.
    const steps = FAILING_TEST_STEPS.filter((step) => step.name !== "Check out");
    const result = filter(failingTestLog(0), { lines: 1, steps });
    expect(result.steps.map((s) => s.step)).toEqual(["Run bun test"]);
  });

  test("a failed step without any error line is still the one kept", () => {
    const log = timestamped([
      "##[group]Run ./configure",
      "##[endgroup]",
      "checking for gcc... no",
      "##[group]Run make",
      "##[endgroup]",
      "make: Nothing to be done",
      "Cleaning up orphan processes",
    ]);
    const steps = [
      { name: "Set up job", conclusion: "success" },
      { name: "Configure", conclusion: "failure" },
      { name: "Build", conclusion: "success" },
      { name: "Complete job", conclusion: "success" },
    ];
    const log2 = new JobLogFilter({ lines: 5, jobSteps: steps, secrets: [] });
    log2.push(log);
    expect(log2.end().steps).toEqual([
      { step: "Configure", earlier_lines: 0, lines: ["##[group]Run ./configure", "checking for gcc... no"] },
    ]);
    // Nothing failed and nothing errored: the last step that ran is the best guess.
    expect(filter(log).steps.map((s) => s.step)).toEqual(["Run make"]);
  });

  test("the same answer however the stream is cut into chunks", () => {
    const text = failingTestLog(30);
    const whole = filter(text, { lines: 7, steps: FAILING_TEST_STEPS });
    fc.assert(
      fc.property(fc.uniqueArray(fc.integer({ min: 1, max: text.length - 1 }), { maxLength: 40 }), (cuts) => {
        const points = [0, ...cuts.sort((a, b) => a - b), text.length];
        const parts = points.slice(1).map((end, i) => text.slice(points[i], end));
        expect(filter(parts, { lines: 7, steps: FAILING_TEST_STEPS })).toEqual(whole);
      }),
      { numRuns: 200 },
    );
  });

  test("tokens, control characters and escape sequences never come out", () => {
    const result = filter(
      timestamped([
        "##[group]Run deploy",
        `curl -H "Authorization: token ${TOKEN}" https://example.com`,
        "leaked ghp_0123456789abcdefghijklmnopqrstuvwxyzAB and github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz0123456789AB",
        "\u001b]52;c;cHduZWQ=\u0007clipboard \u202eevil\u202c \u0007bell\u001b[2J",
        `##[error]bad token ${TOKEN}`,
      ]),
    );
    const text = JSON.stringify(result);
    expect(text).not.toContain(TOKEN);
    expect(text).not.toContain("ghp_0123");
    expect(text).not.toContain("github_pat_11");
    expect(text).not.toMatch(/\\u001b|\\u0007|\u202e|\u202c/);
    expect(result.steps[0]?.lines).toEqual([
      "##[group]Run deploy",
      'curl -H "Authorization: token [REDACTED] https://example.com',
      "leaked [REDACTED] and [REDACTED]",
      // Bidi controls are shown, not hidden: a model sees that the text tried to reorder itself.
      "clipboard \\u{202E}evil\\u{202C} bell",
      "##[error]bad token [REDACTED]",
    ]);
  });

  test("a line without end is clipped, not buffered whole", () => {
    const huge = "x".repeat(64 * 1024);
    const log = new JobLogFilter({ lines: 5, jobSteps: [], secrets: [] });
    log.push("2025-06-03T14:00:00.0000000Z ##[group]Run build\n");
    for (let i = 0; i < 200; i++) log.push(huge);
    log.push("\n##[error]out of memory\n");
    const result = log.end();
    const lines = result.steps[0]?.lines ?? [];
    expect(lines).toHaveLength(3);
    expect(lines[1]?.length).toBe(MAX_LINE_CHARS);
    expect(lines[1]?.endsWith("…")).toBe(true);
    expect(result.errors).toEqual([{ step: "Run build", message: "out of memory" }]);
  });

  test("a line clipped in the middle of a token shows none of it, however much escape text the line held", () => {
    // Escapes and the timestamp are read before they are removed: the cleaned line is far shorter
    // than what was read of it, so where the read stopped is inside what is shown.
    const colours = "\u001b[0m".repeat(100);
    for (const secret of [TOKEN, "ghp_0123456789abcdefghijklmnopqrstuvwxyzAB"]) {
      const head = `2025-06-03T14:00:00.0000000Z ${colours}`;
      // The line's first MAX_LINE_CHARS + 64 characters are read: the read stops 12 into the token.
      const line = `${head}${"x".repeat(MAX_LINE_CHARS + 64 - 12 - head.length - 1)} ${secret} and more`;
      const log = new JobLogFilter({ lines: 5, jobSteps: [], secrets: [TOKEN] });
      log.push(`##[group]Run build\n${line}\n##[error]failed\n`);
      const text = JSON.stringify(log.end());
      expect(text).not.toContain(secret.slice(0, 12));
      expect(text).toContain("[REDACTED]");
    }
  });

  test("memory stays bounded: 256 MB of input, kept lines holding no chunk they were cut from", () => {
    const log = new JobLogFilter({ lines: 500, jobSteps: [], secrets: [] });
    log.push("##[group]Run build\n");
    Bun.gc(true);
    const before = process.memoryUsage.rss();
    // Each 256 KB chunk ends with a short line; the ring keeps the last 500 of them.
    const chunk = new TextEncoder().encode(`${"y".repeat(256 * 1024)}\nline\n`);
    const decoder = new TextDecoder();
    for (let i = 0; i < 1000; i++) log.push(decoder.decode(chunk));
    Bun.gc(true);
    const growth = process.memoryUsage.rss() - before;
    expect(log.end().steps[0]?.lines.at(-1)).toBe("line");
    // Buffered, the input would take 256 MB; pinned, the 500 kept lines would hold 250 chunks (60 MB).
    expect(growth).toBeLessThan(48 * 1024 * 1024);
    // 256 MB through the filter takes seconds on a loaded 2-core runner; this test bounds memory, not time.
  }, 120_000);

  test("error lines are kept up to a bound and the rest counted", () => {
    const errors = Array.from({ length: MAX_ERROR_LINES + 7 }, (_, i) => `##[error]file${i}.ts: type error`);
    const result = filter(timestamped(["##[group]Run tsc", ...errors]), { lines: 1 });
    expect(result.errors).toHaveLength(MAX_ERROR_LINES);
    expect(result.errors[0]).toEqual({ step: "Run tsc", message: "file0.ts: type error" });
    expect(result.errors_omitted).toBe(7);
  });

  test("CRLF line ends and lines without timestamps are read too", () => {
    const result = filter("##[group]Run a\r\nfirst\r\n##[error]boom\r\n", { lines: 5 });
    expect(result.steps).toEqual([
      { step: "Run a", earlier_lines: 0, lines: ["##[group]Run a", "first", "##[error]boom"] },
    ]);
  });

  test("cleanCiText keeps line breaks of a report", () => {
    expect(cleanCiText("a\n\u001b[31mb\u001b[0m\tc", [])).toBe("a\nb\tc");
  });
});

describe("JobLogFilter: failing tests", () => {
  const runners = Object.entries(RUNNER_OUTPUTS);

  test.each(runners)("%s: the failures, with their expected/received lines, and the totals", (_, runner) => {
    const result = filter(runnerLog(runner.command, runner.output), { steps: RUNNER_STEPS });
    expect(result.failures).toEqual([...runner.failures]);
    expect(result.failures_omitted).toBe(0);
    expect(result.totals).toEqual(runner.totals === undefined ? [] : [runner.totals]);
    expect(result.steps.map((s) => s.step)).toEqual(["Test"]);
  });

  test.each(runners)("%s: the failed step ends where it ends, whatever lines asks for", (_, runner) => {
    const log = runnerLog(runner.command, runner.output);
    // With the job's steps, and without them (the sections then chosen by their errors).
    for (const steps of [RUNNER_STEPS, []]) {
      const result = filter(log, { steps, lines: 500 });
      const shown = JSON.stringify(result);
      for (const line of POST_JOB_LINES) expect(shown).not.toContain(line);
      expect(result.steps[0]?.lines.at(-1)).toBe("##[error]Process completed with exit code 1.");
      expect(result.steps[0]?.lines[0]).toBe(`##[group]Run ${runner.command}`);
    }
  });

  test("lines saying a test passed are left out of the tail and counted", () => {
    const passed = [
      "tests/test_api.py::test_a \u001b[32mPASSED\u001b[0m [ 50%]",
      "  ✓ adds 1 + 2 (3 ms)",
      "PASS src/a.test.js",
      "--- PASS: TestSub (0.00s)",
      "ok  \texample.com/app\t0.01s",
      "test tests::subtracts ... ok",
      "AppTest > testSub() PASSED",
    ];
    const result = filter(timestamped(["##[group]Run make test", ...passed, "boom", "##[error]exit 1"]), {
      lines: 500,
    });
    expect(result.steps).toEqual([
      {
        step: "Run make test",
        earlier_lines: 0,
        passing_lines: passed.length,
        lines: ["##[group]Run make test", "boom", "##[error]exit 1"],
      },
    ]);
  });

  test("a post step that opens a group ends the failed step too", () => {
    const log = timestamped([
      "##[group]Run go test ./...",
      "--- FAIL: TestAdd (0.00s)",
      "    sum_test.go:12: Add(1, 2) = 4; want 3",
      "##[error]Process completed with exit code 1.",
      "##[group]Post Run actions/setup-go@v5",
      "--- FAIL: TestNotInTheStep (0.00s)",
      "Cache saved",
      "##[endgroup]",
    ]);
    const result = filter(log);
    expect(result.failures.map((f) => f.test)).toEqual(["TestAdd"]);
    expect(result.steps[0]?.lines.at(-1)).toBe("##[error]Process completed with exit code 1.");
  });

  test("go test -v: the lines a test logs before its --- FAIL line are its message", () => {
    const result = filter(
      timestamped([
        "##[group]Run go test -v ./...",
        "=== RUN   TestAdd",
        "    sum_test.go:12: Add(1, 2) = 4; want 3",
        "--- FAIL: TestAdd (0.00s)",
        "=== RUN   TestSub",
        "--- PASS: TestSub (0.00s)",
        "FAIL",
      ]),
    );
    expect(result.failures).toEqual([{ test: "TestAdd", message: "sum_test.go:12: Add(1, 2) = 4; want 3" }]);
  });

  test("pytest without its summary: each failure section, by its name; jest's repeated summary counted once", () => {
    const pytest = filter(
      timestamped([
        "##[group]Run pytest -rN",
        "___________ TestOAuth.test_refresh ___________",
        "E       assert 1 == 2",
        "___________ test_other ___________",
        "E       KeyError: 'id'",
        "=========== 2 failed in 0.1s ===========",
      ]),
    );
    expect(pytest.failures).toEqual([
      { test: "TestOAuth.test_refresh", message: "assert 1 == 2" },
      { test: "test_other", message: "KeyError: 'id'" },
    ]);
    const jest = filter(
      timestamped([
        "##[group]Run jest",
        "  ● sum › adds",
        "    expect(received).toBe(expected)",
        "Summary of all failing tests",
        "  ● sum › adds",
        "    expect(received).toBe(expected)",
      ]),
    );
    expect(jest.failures).toEqual([{ test: "sum › adds", message: "expect(received).toBe(expected)" }]);
    // Both tellings are said by the failure: only the step's header and the runner's own line stay in the tail.
    expect(jest.steps[0]).toMatchObject({
      failure_lines: 4,
      lines: ["##[group]Run jest", "Summary of all failing tests"],
    });
    expect(jest.steps[0]?.earlier_lines).toBe(0);
  });

  test("a failure left out (past 20) keeps its lines in the tail: nothing listed says them", () => {
    const lines = Array.from({ length: 21 }, (_, i) => `FAILED tests/test_many.py::test_${i} - boom ${i}`);
    const result = filter(timestamped(["##[group]Run pytest", ...lines]));
    expect(result.steps[0]?.failure_lines).toBe(20);
    expect(result.steps[0]?.lines).toEqual(["##[group]Run pytest", "FAILED tests/test_many.py::test_20 - boom 20"]);
  });

  test("several failing tests: at most 20, each message at most 500 characters, the rest counted", () => {
    const lines = Array.from({ length: 30 }, (_, i) => `FAILED tests/test_many.py::test_${i} - ${"x".repeat(900)}`);
    // A runner that prints a failure twice still counts it once.
    const result = filter(timestamped(["##[group]Run pytest", ...lines, ...lines]));
    expect(result.failures).toHaveLength(20);
    expect(result.failures[19]?.test).toBe("tests/test_many.py::test_19");
    for (const failure of result.failures) expect(failure.message.length).toBeLessThanOrEqual(500);
    expect(result.failures_omitted).toBe(10);
  });

  test("an unknown format names no failures; the tail and the error lines stay", () => {
    const result = filter(failingTestLog(3), { steps: FAILING_TEST_STEPS });
    expect(result.failures).toEqual([]);
    expect(result.failures_omitted).toBe(0);
    expect(result.errors).toEqual([{ step: "Unit tests", message: "Process completed with exit code 1." }]);
    expect(result.steps[0]?.lines.at(-1)).toBe("##[error]Process completed with exit code 1.");
  });

  test("failures are cleaned like every line: no escape, control or token reaches the reply", () => {
    const result = filter(
      timestamped([
        "##[group]Run pytest",
        `FAILED tests/t.py::test_\u001b]0;title\u0007x - AssertionError: ${TOKEN} \u202e\u0007leaked`,
      ]),
    );
    expect(result.failures).toHaveLength(1);
    const shown = JSON.stringify(result.failures);
    expect(shown).not.toContain(TOKEN);
    expect(shown).not.toMatch(/\\u001b|\\u0007|\u202e/);
    expect(result.failures[0]?.message).toContain("[REDACTED]");
  });
});
