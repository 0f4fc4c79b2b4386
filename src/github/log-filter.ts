/**
 * The parts of a GitHub Actions job log that say why it failed, read as it streams in: each step's last lines (a ring
 * per step, so memory stays bounded, without the lines saying a test passed), the failing tests its test runner names, and every `##[error]` line. Lines start
 * with an ISO timestamp; steps start at `##[group]Run <what>`, and the post-job part at `Post job cleanup.` (or a
 * `##[group]Post …`) and (the last step) `Cleaning up orphan processes`, after "Set up job".
 */
import { clip, detach, plainText, redactGitHubTokens, scrubSecrets, stripAnsi } from "../core/plain-text.ts";
import { MAX_FAILURES, MAX_MESSAGE_CHARS, TestFailureParser } from "./test-failures.ts";

/** Longer lines (minified output, base64 blobs) are clipped: a line is for reading. */
export const MAX_LINE_CHARS = 2000;
/** Error lines kept per log; the rest are counted. */
export const MAX_ERROR_LINES = 50;
/** Failed steps, and sections with errors, whose lines are kept (the first failed, the latest errored). */
const MAX_HELD_SECTIONS = 3;

/** A step's section while the log streams: its title and a ring of its last lines (`next`: the oldest). */
interface Section {
  index: number;
  title: string;
  ring: string[];
  next: number;
  total: number;
  errors: number;
  tests: TestFailureParser;
  /** Lines saying a test passed: left out of the ring, counted. */
  passing: number;
  /** Lines a failure reported already says (its name, its message): left out of the ring, counted. */
  said: number;
}

const TIMESTAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z ?/;

type Step = { name: string; conclusion: string | null };

/**
 * Fed decoded text with {@link push} as it arrives, then {@link end}. `lines`: last lines kept per step; `jobSteps`:
 * the job's steps (may be empty); `secrets`: scrubbed, as are GitHub token shapes.
 */
export class JobLogFilter {
  readonly #lines: number;
  readonly #secrets: readonly string[];
  readonly #jobSteps: readonly Step[];
  /** Sections that would be failed steps if the log's sections line up with the job's steps. */
  readonly #failedByOrder: ReadonlySet<number>;
  #partial = "";
  /** The line being read was cut: more of it came than {@link MAX_LINE_CHARS} (and some slack). */
  #partialCut = false;
  #current: Section;
  #sections = 1;
  /** Closed sections still held: the failed-by-order ones and the latest with errors. */
  #held: Section[] = [];
  #lastRun: Section | null = null;
  readonly #errors: Array<{ section: number; title: string; message: string }> = [];
  #errorsOmitted = 0;

  constructor(options: { lines: number; jobSteps: readonly Step[]; secrets: readonly string[] }) {
    this.#lines = Math.max(0, options.lines);
    this.#secrets = options.secrets;
    // A skipped step writes nothing to the log, so it has no section.
    this.#jobSteps = options.jobSteps.filter((step) => step.conclusion !== "skipped");
    const failed = this.#jobSteps.flatMap((step, index) => (isFailure(step.conclusion) ? [index] : []));
    this.#failedByOrder = new Set(failed.slice(0, MAX_HELD_SECTIONS));
    this.#current = section(0, "Set up job");
  }

  push(text: string): void {
    const section = this.#current;
    const before = section.total;
    let start = 0;
    for (let newline = text.indexOf("\n"); newline !== -1; newline = text.indexOf("\n", start)) {
      this.#append(text, start, newline);
      this.#line(this.#readLine());
      start = newline + 1;
    }
    this.#append(text, start, text.length);
    const current = this.#current;
    detachNewest(current, current === section ? current.total - before : current.total);
  }

  /** The failed steps' sections in log order, named as the job's steps name them, else by the runner's title. */
  end() {
    if (this.#partial !== "") this.#line(this.#readLine());
    this.#close(this.#current);
    const matched = this.#sections === this.#jobSteps.length;
    const title = (index: number, runnerTitle: string) => (matched ? this.#jobSteps[index]?.name : null) ?? runnerTitle;
    const byOrder = matched ? this.#held.filter((s) => this.#failedByOrder.has(s.index)) : [];
    const errored = this.#held.filter((s) => s.errors > 0).slice(-MAX_HELD_SECTIONS);
    const chosen = byOrder.length > 0 ? byOrder : errored.length > 0 ? errored : this.#lastRun ? [this.#lastRun] : [];
    const parsed = chosen.map((section) => section.tests.result());
    const failures = parsed.flatMap((tests) => tests.failures);
    const omitted = parsed.reduce((sum, tests) => sum + tests.omitted, 0) + Math.max(0, failures.length - MAX_FAILURES);
    return {
      failures: failures.slice(0, MAX_FAILURES).map(({ test, message }) => ({
        test: this.#clean(test).replace(/[\n\t]/g, " "),
        message: clip(this.#clean(message), MAX_MESSAGE_CHARS),
      })),
      failures_omitted: omitted,
      totals: parsed.flatMap((tests) => (tests.totals === null ? [] : [this.#clean(tests.totals)])),
      steps: chosen.map((section) => {
        const lines = [...section.ring.slice(section.next), ...section.ring.slice(0, section.next)];
        return {
          step: title(section.index, section.title),
          earlier_lines: section.total - section.passing - section.said - lines.length,
          ...(section.passing > 0 ? { passing_lines: section.passing } : {}),
          ...(section.said > 0 ? { failure_lines: section.said } : {}),
          lines: lines.map((line) => this.#clean(line)),
        };
      }),
      errors: this.#errors.map(({ section, title: shown, message }) => ({ step: title(section, shown), message })),
      errors_omitted: this.#errorsOmitted,
    };
  }

  /** Adds `text[from, to)` to the line being read, never growing it past a clipped line's length. */
  #append(text: string, from: number, to: number): void {
    const room = MAX_LINE_CHARS + 64 - this.#partial.length;
    if (to - from > room) this.#partialCut = true;
    if (room > 0 && to > from) this.#partial += text.slice(from, Math.min(to, from + room));
  }

  /** The line read, and the next started; a cut line's end that may begin a secret is redacted: scrubbing misses it. */
  #readLine(): string {
    let line = this.#partial;
    if (this.#partialCut) {
      const prefix = this.#secrets.reduce((longest, secret) => {
        for (let n = Math.min(secret.length - 1, line.length); n > longest && n >= 4; n--) {
          if (line.endsWith(secret.slice(0, n))) return n;
        }
        return longest;
      }, 0);
      const kept = `${line.slice(0, line.length - prefix)}${prefix > 0 ? "[REDACTED]" : ""}`;
      line = redactGitHubTokens(kept, true);
    }
    this.#partial = "";
    this.#partialCut = false;
    return line;
  }

  #line(raw: string): void {
    let line = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
    const stamp = TIMESTAMP.exec(line);
    if (stamp) line = line.slice(stamp[0].length);
    if (line.startsWith("\ufeff")) line = line.slice(1);
    if (line.startsWith("##[")) {
      if (line.startsWith("##[endgroup]")) return;
      if (line.startsWith("##[group]Run ")) this.#start(line.slice("##[group]".length));
      else if (line.startsWith("##[group]Post ")) this.#start(line.slice("##[group]".length));
      else if (line.startsWith("##[error]")) this.#error(line.slice("##[error]".length));
    } else if (line.startsWith("Post job cleanup.")) {
      this.#start("Post job cleanup");
    } else if (line.startsWith("Cleaning up orphan processes")) {
      this.#start("Complete job");
    }
    const section = this.#current;
    section.total++;
    if (!line.startsWith("##[")) {
      const noise = section.tests.line(stripAnsi(line));
      if (noise !== undefined) {
        section[noise]++;
        return;
      }
    }
    if (this.#lines === 0) return;
    if (section.ring.length < this.#lines) section.ring.push(line);
    else {
      section.ring[section.next] = line;
      section.next = (section.next + 1) % this.#lines;
    }
  }

  #start(title: string): void {
    this.#close(this.#current);
    const index = this.#sections++;
    this.#current = section(index, detach(clip(this.#clean(title), 200)));
  }

  #close(section: Section): void {
    const held = this.#failedByOrder.has(section.index) || section.errors > 0;
    const isRun = section.title.startsWith("Run ");
    if (held || isRun) detachNewest(section, section.ring.length);
    if (isRun) this.#lastRun = section;
    if (held) {
      this.#held.push(section);
      // Only the latest errored sections can be chosen; failed-by-order ones are at most the job's steps.
      const errored = this.#held.filter((s) => s.errors > 0 && !this.#failedByOrder.has(s.index));
      if (errored.length > MAX_HELD_SECTIONS) this.#held.splice(this.#held.indexOf(errored[0] as Section), 1);
    }
  }

  #error(message: string): void {
    this.#current.errors++;
    if (this.#errors.length >= MAX_ERROR_LINES) this.#errorsOmitted++;
    else {
      const { index, title } = this.#current;
      this.#errors.push({ section: index, title, message: detach(this.#clean(message)) });
    }
  }

  #clean(line: string): string {
    return clip(cleanCiText(line, this.#secrets), MAX_LINE_CHARS);
  }
}

/** CI text for a model: no escape sequence or control, no known secret, nothing shaped like a GitHub token. */
export function cleanCiText(text: string, secrets: readonly string[]): string {
  return redactGitHubTokens(scrubSecrets(plainText(stripAnsi(text)), secrets));
}

function section(index: number, title: string): Section {
  return { index, title, ring: [], next: 0, total: 0, errors: 0, tests: new TestFailureParser(), passing: 0, said: 0 };
}

/** Detaches a section's `count` newest ring lines (those cut from the chunk just read), at most the ring. */
function detachNewest(section: Section, count: number): void {
  const size = section.ring.length;
  for (let i = 1; i <= Math.min(count, size); i++) {
    const at = (section.next - i + size) % size;
    section.ring[at] = detach(section.ring[at] as string);
  }
}

export function isFailure(conclusion: string | null): boolean {
  return conclusion === "failure" || conclusion === "timed_out" || conclusion === "startup_failure";
}
