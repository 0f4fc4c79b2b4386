/**
 * Every parser of untrusted text costs time in proportion to its input: each is fed adversarial input
 * (the shapes that make backtracking patterns stall) at its largest size and at half of it, in one run,
 * and doubling the input may at most triple the time. No wall-clock limit: a ratio of this process's CPU time
 * holds on a busy machine.
 */
import { describe, expect, test } from "bun:test";
import { JobLogFilter } from "../../src/github/log-filter.ts";
import { suggestionOf } from "../../src/github/review-threads.ts";
import { parseRemoteUrl } from "../../src/github/target.ts";
import { renderAdf } from "../../src/jira/adf.ts";
import { renderWiki } from "../../src/jira/wiki.ts";
import { parseJsonFile } from "../../src/twig/json-errors.ts";

/** The CPU time (ms) `run(input)` takes `times` times over: this process's only, whatever else the machine runs. */
function timed(run: (input: string) => unknown, input: string, times: number): number {
  Bun.gc(true);
  const started = process.cpuUsage();
  for (let i = 0; i < times; i++) run(input);
  const { user, system } = process.cpuUsage(started);
  return (user + system) / 1000;
}

/**
 * The whole input's cost over the half's: each measured over enough runs to take 60 ms of CPU or more at half size,
 * the two taken in turn three times, the least of each kept (the floor, not a collection on top of it).
 */
function doublingRatio(run: (input: string) => unknown, half: string, whole: string): number {
  let times = 1;
  while (timed(run, half, times) < 60) times *= 2;
  let [small, large] = [Number.POSITIVE_INFINITY, Number.POSITIVE_INFINITY];
  for (let round = 0; round < 3; round++) {
    small = Math.min(small, timed(run, half, times));
    large = Math.min(large, timed(run, whole, times));
  }
  return large / small;
}

/** `unit` repeated to `size` characters. */
const fill = (unit: string, size: number) => unit.repeat(Math.ceil(size / unit.length)).slice(0, size);

const ADVERSARIAL: Array<{
  parser: string;
  /**
   * The largest input the server hands it: a GitHub comment is at most 65,536 characters; a Jira text and a
   * log what a response holds (scaled down to what a test affords: the cost per character is what is proven).
   */
  max: number;
  make: (size: number) => string;
  run: (input: string) => unknown;
}> = [
  {
    parser: "suggestion blocks: openings that never close, of every fence length",
    max: 65_536,
    make: (size) => {
      let text = "";
      for (let n = 3; text.length < size; n = n > 40 ? 3 : n + 1)
        text += `${"`".repeat(n)}suggestion\n  \t \n${"~".repeat(n)}\n`;
      return text.slice(0, size);
    },
    run: suggestionOf,
  },
  {
    parser: "suggestion blocks: one line of spaces and backticks",
    max: 65_536,
    make: (size) => `\`\`\`suggestion\n${fill(" \t`", size - 20)}x\n`,
    run: suggestionOf,
  },
  {
    parser: "ADF: marked text that is mostly spaces",
    max: 1024 * 1024,
    make: (size) => `x${fill(" ", size - 2)}x`,
    run: (text) =>
      renderAdf(
        {
          type: "doc",
          version: 1,
          content: [{ type: "paragraph", content: [{ type: "text", text, marks: [{ type: "strong" }] }] }],
        },
        10_000_000,
      ),
  },
  {
    parser: "wiki markup: unclosed marks, macros and links",
    max: 262_144,
    make: (size) => fill("*_+{code}[a|{{-^~??bq. h1. # * ", size),
    run: (text) => renderWiki(text, 10_000_000),
  },
  {
    parser: "CI log filter and test-failure parsers: failure-like lines, ANSI runs and long lines",
    max: 4 * 1024 * 1024,
    make: (size) =>
      fill(
        `2025-06-03T14:00:00.0000000Z ##[group]Run x\n\u001b[31m${"\u001b[".repeat(50)}FAILED tests/a.py::t - ${" ".repeat(300)}\n--- FAIL: TestX (0.00s)\n${"=".repeat(80)} FAILURES ${"=".repeat(2500)}\n##[error]${"\t ".repeat(200)}\n`,
        size,
      ),
    run: (log) => {
      const filter = new JobLogFilter({ lines: 50, jobSteps: [], secrets: ["ghp_secret"] });
      for (let at = 0; at < log.length; at += 65_536) filter.push(log.slice(at, at + 65_536));
      return filter.end();
    },
  },
  {
    parser: "remote URLs: separators and colons without end",
    max: 65_536,
    make: (size) => `ssh://git@${fill("a:/@.", size - 20)}github.com/o/r.git`,
    run: (url) => parseRemoteUrl(url),
  },
  {
    parser: "state JSON errors: a file that breaks at its end",
    max: 4 * 1024 * 1024,
    make: (size) => `{"branches": {${fill('"a": {"b": [1, 2, {"c": "\\n"}]},\n', size - 20)}`,
    run: (text) => parseJsonFile(new TextEncoder().encode(text)),
  },
];

describe("parsers of untrusted text cost time in proportion to their input", () => {
  for (const { parser, max, make, run } of ADVERSARIAL) {
    test(parser, () => {
      const [half, whole] = [make(max / 2), make(max)];
      expect(doublingRatio(run, half, whole)).toBeLessThanOrEqual(3);
    }, 120_000);
  }
});
