/**
 * The failing tests a test runner names in a step's log, read line by line as the log streams: pytest, jest, vitest,
 * `go test`, Maven Surefire, Gradle and `cargo test`. Lines are tested by prefix and suffix, never by a regex that
 * can backtrack, and only a line's first {@link MAX_PARSED_CHARS} are looked at: hostile text costs linear time.
 * Memory is bounded: {@link MAX_FAILURES} failures of a few lines each, and a bounded set of ids left out.
 */
import { detach, trimChars } from "../core/plain-text.ts";

export const MAX_FAILURES = 20;
export const MAX_MESSAGE_CHARS = 500;
const MAX_PARSED_CHARS = 600;
const MAX_MESSAGE_LINES = 8;
/** Ids of failures left out, remembered so a runner's repeated summary is counted once; past this, counted again. */
const MAX_OMITTED_IDS = 1000;

interface Entry {
  test: string;
  lines: string[];
  chars: number;
}

/** What the next lines are: the message of a failure just named, a list of names, or nothing to collect. */
type Mode = "none" | "pytest" | "jest" | "vitest" | "go" | "go-run" | "maven" | "gradle" | "cargo" | "cargo-list";

export class TestFailureParser {
  readonly #failures = new Map<string, Entry>();
  readonly #omitted = new Set<string>();
  #omittedUncounted = 0;
  /** pytest's failure sections (`___ name ___` with `E ` lines), by name, for its `FAILED` summary lines. */
  readonly #pytestSections = new Map<string, Entry>();
  #pytestSummary = false;
  #totals: string | null = null;
  #mode: Mode = "none";
  /** Where collected message lines go (`null`: a failure left out or already described). */
  #into: Entry | null = null;
  /** The lines collected repeat a failure already described (jest's summary). */
  #repeat = false;
  /** The line being read names a failure kept, or is part of its message. */
  #said = false;

  /**
   * Reads one line (escape sequences removed). Noise in a tail: `passing` when it only says a test passed, `said`
   * when a failure kept says it (its name, its message, or the runner repeating them).
   */
  line(raw: string): "passing" | "said" | undefined {
    const line = raw.length > MAX_PARSED_CHARS ? raw.slice(0, MAX_PARSED_CHARS) : raw;
    const trimmed = line.trim();
    this.#said = false;
    if (this.#marker(line, trimmed)) return this.#said ? "said" : undefined;
    const totals = totalsOf(trimmed);
    if (totals !== null) {
      this.#totals = detach(totals);
      this.#mode = "none";
      return undefined;
    }
    if (this.#mode !== "none") this.#collect(line, trimmed);
    return this.#said ? "said" : isPassingTest(trimmed) ? "passing" : undefined;
  }

  /** The failures in the order the runner named them, how many more it named, and its totals line. */
  result(): { failures: Array<{ test: string; message: string }>; omitted: number; totals: string | null } {
    if (!this.#pytestSummary) for (const section of this.#pytestSections.values()) this.#add(section.test, section);
    const entries = [...this.#failures.values()];
    // `go test` fails a parent with its failing subtest; the subtest says why.
    const shown = entries.filter(
      (entry) => entry.lines.length > 0 || !entries.some((other) => other.test.startsWith(`${entry.test}/`)),
    );
    return {
      failures: shown.map(({ test, lines }) => ({ test, message: lines.join("\n") })),
      omitted: this.#omitted.size + this.#omittedUncounted,
      totals: this.#totals,
    };
  }

  /** A line naming a failure, or opening a block of them: it decides what the lines after it are collected into. */
  #marker(line: string, trimmed: string): boolean {
    // pytest: `____ test_name ____` opens a failure's section; `FAILED path::test - message` sums it up.
    if (trimmed.length > 6 && trimmed.startsWith("___") && trimmed.endsWith("___")) {
      const name = trimChars(trimmed, "_", true).trim();
      if (name === "" || this.#pytestSections.size >= MAX_FAILURES) return this.#enter("none", null);
      const section = entry(name);
      this.#pytestSections.set(section.test, section);
      this.#said = true;
      return this.#enter("pytest", section);
    }
    if ((line.startsWith("FAILED ") || line.startsWith("ERROR ")) && line.includes("::")) {
      this.#pytestSummary = true;
      const rest = line.slice(line.indexOf(" ") + 1);
      const dash = rest.indexOf(" - ");
      const test = (dash === -1 ? rest : rest.slice(0, dash)).trim();
      const named = test.slice(test.indexOf("::") + 2).replaceAll("::", ".");
      const section =
        this.#pytestSections.get(named) ?? this.#pytestSections.get(named.slice(named.lastIndexOf(".") + 1));
      const target = this.#add(test, section);
      if (target !== null && target.lines.length === 0 && dash !== -1) push(target, rest.slice(dash + 3));
      return this.#enter("none", null);
    }
    // jest and vitest: `● Suite › test`, then the expectation; `● Console` is printed output, not a failure.
    if (trimmed.startsWith("● ")) {
      const test = trimmed.slice(2).trim();
      return test === "Console" ? this.#enter("none", null) : this.#enter("jest", this.#add(test));
    }
    // vitest: `FAIL  file > suite > test` (jest's `FAIL  file` names a file only).
    if (trimmed.startsWith("FAIL ") && trimmed.includes(" > ")) {
      return this.#enter("vitest", this.#add(trimmed.slice(5).trim()));
    }
    // go test: `--- FAIL: TestX (0.00s)`, its `x_test.go:N:` lines after it, or before it under `=== RUN   TestX`.
    if (trimmed.startsWith("--- FAIL: ")) {
      const rest = trimmed.slice("--- FAIL: ".length);
      const space = rest.indexOf(" ");
      const test = space === -1 ? rest : rest.slice(0, space);
      const ran = this.#mode === "go-run" && this.#into?.test === test ? this.#into : undefined;
      return this.#enter("go", this.#add(test, ran));
    }
    if (trimmed.startsWith("=== RUN ")) return this.#enter("go-run", entry(trimmed.slice(8).trim()));
    // Maven Surefire's results: `[ERROR] Failures:` then `[ERROR]   Class.method:line message`.
    // A list's heading says no more than the failures listed.
    if (line.startsWith("[ERROR] Failures:") || line.startsWith("[ERROR] Errors:")) {
      this.#said = true;
      return this.#enter("maven", null);
    }
    if (this.#mode === "maven" && line.startsWith("[ERROR]   ") && !trimmed.startsWith("[ERROR]   Run ")) {
      const rest = line.slice("[ERROR]".length).trim();
      const space = rest.indexOf(" ");
      const target = this.#add(space === -1 ? rest : rest.slice(0, space));
      if (target !== null && space !== -1 && target.lines.length === 0) push(target, rest.slice(space + 1));
      return this.#enter("maven", null);
    }
    // Gradle: `ClassTest > method() FAILED`, then the exception indented under it.
    if (trimmed.endsWith(" FAILED") && trimmed.includes(" > ") && !line.startsWith(" ")) {
      return this.#enter("gradle", this.#add(trimmed.slice(0, -" FAILED".length)));
    }
    // cargo test: `---- name stdout ----` with the panic, and `failures:` listing the names.
    if (trimmed.startsWith("---- ") && trimmed.endsWith(" stdout ----")) {
      return this.#enter("cargo", this.#add(trimmed.slice(5, -" stdout ----".length).trim()));
    }
    if (trimmed === "failures:") {
      this.#said = true;
      return this.#enter("cargo-list", null);
    }
    return false;
  }

  #collect(line: string, trimmed: string): void {
    const indented = line.startsWith(" ") || line.startsWith("\t");
    // A blank line inside a failure's block only spaces out what the failure says.
    if (trimmed === "" && (this.#into !== null || this.#repeat)) this.#said = true;
    switch (this.#mode) {
      case "pytest":
        if (line.startsWith("E ")) this.#keep(line.slice(2).trim());
        else if (trimmed.startsWith("===")) this.#mode = "none";
        return;
      case "jest":
      case "vitest":
        // jest indents a failure's lines; vitest does not.
        if (
          (this.#mode === "jest" && !indented && trimmed !== "") ||
          trimmed.startsWith("at ") ||
          trimmed.startsWith("❯ ") ||
          trimmed.startsWith("⎯") ||
          isCodeFrame(trimmed)
        ) {
          this.#mode = "none";
        } else if (trimmed !== "") this.#keep(trimmed);
        return;
      case "go":
      case "go-run":
        if (!indented && trimmed !== "") this.#mode = "none";
        else if (trimmed.includes("_test.go:") || trimmed.startsWith("panic:") || this.#into?.lines.length) {
          if (trimmed !== "") this.#keep(trimmed);
        }
        return;
      case "maven":
        if (line.startsWith("[INFO]") || (line.startsWith("[ERROR]") && trimmed === "[ERROR]")) this.#mode = "none";
        return;
      case "gradle":
        if (!indented && trimmed !== "") this.#mode = "none";
        else if (trimmed !== "" && !trimmed.startsWith("at ") && !trimmed.startsWith("...")) this.#keep(trimmed);
        return;
      case "cargo":
        if (trimmed.startsWith("note: run with")) this.#mode = "none";
        else if (trimmed !== "") this.#keep(trimmed);
        return;
      case "cargo-list":
        if (indented && trimmed !== "" && !trimmed.includes(" ")) this.#add(trimmed);
        else if (trimmed !== "") this.#mode = "none";
        return;
    }
  }

  #enter(mode: Mode, into: Entry | null): true {
    this.#mode = mode;
    // A failure already described (jest repeats them in its summary) gets no second message.
    this.#repeat = into !== null && into.lines.length > 0 && mode !== "go-run";
    this.#into = this.#repeat ? null : into;
    return true;
  }

  /** The failure named `test`, added unless the list is full (then counted); `from`: its message so far. */
  #add(test: string, from?: Entry): Entry | null {
    const id = clipped(test);
    const known = this.#failures.get(id);
    this.#said ||= known !== undefined || this.#failures.size < MAX_FAILURES;
    if (known !== undefined) return known;
    if (this.#failures.size >= MAX_FAILURES) {
      if (this.#omitted.size < MAX_OMITTED_IDS) this.#omitted.add(detach(id));
      else if (!this.#omitted.has(id)) this.#omittedUncounted++;
      return null;
    }
    const added: Entry = { test: detach(id), lines: from?.lines ?? [], chars: from?.chars ?? 0 };
    this.#failures.set(added.test, added);
    return added;
  }

  #keep(text: string): void {
    if (this.#into !== null) this.#said ||= push(this.#into, text);
    else this.#said ||= this.#repeat;
  }
}

function entry(test: string): Entry {
  return { test: detach(clipped(test)), lines: [], chars: 0 };
}

function push(target: Entry, text: string): boolean {
  if (target.lines.length >= MAX_MESSAGE_LINES || target.chars >= MAX_MESSAGE_CHARS || text === "") return false;
  const kept = text.slice(0, MAX_MESSAGE_CHARS - target.chars);
  target.lines.push(detach(kept));
  target.chars += kept.length + 1;
  return true;
}

function clipped(test: string): string {
  return test.length > 300 ? test.slice(0, 300) : test;
}

/** A jest code frame line: `  12 |   expect(x)` or `> 12 |`. */
function isCodeFrame(trimmed: string): boolean {
  const bar = trimmed.indexOf(" |");
  if (bar <= 0 || bar > 8) return false;
  const number = trimmed.startsWith(">") ? trimmed.slice(1, bar).trim() : trimmed.slice(0, bar);
  return number !== "" && /^\d+$/.test(number);
}

/** The runner's count of tests run and failed, as one line, or `null`. */
function totalsOf(trimmed: string): string | null {
  const text =
    trimmed.startsWith("[ERROR] ") || trimmed.startsWith("[INFO] ") ? trimmed.slice(trimmed.indexOf(" ") + 1) : trimmed;
  const counted =
    (text.startsWith("Tests run: ") && !text.includes("Time elapsed")) || // Surefire
    (text.startsWith("Tests:") && text.includes(" total")) || // jest
    (text.startsWith("Tests ") && text.includes(" failed")) || // vitest
    text.startsWith("test result: ") || // cargo
    (text.startsWith("=") && text.endsWith("=") && / (failed|passed|errors?) /.test(text)) || // pytest
    (/^\d+ tests? completed, /.test(text) && text.includes(" failed")); // Gradle
  return counted ? trimChars(text, "=", true).trim().replace(/\s+/g, " ") : null;
}

/** A runner's line for a test that passed (pytest -v, jest, vitest, go, cargo, Gradle, bun), trimmed. */
function isPassingTest(text: string): boolean {
  return (
    text.startsWith("✓ ") ||
    text.startsWith("√ ") ||
    text.startsWith("PASS ") ||
    text.startsWith("(pass) ") ||
    text.startsWith("--- PASS: ") ||
    text.startsWith("=== PAUSE ") ||
    text.startsWith("=== CONT ") ||
    text.startsWith("ok \t") ||
    text.startsWith("ok  \t") ||
    (text.startsWith("test ") && text.endsWith(" ... ok")) ||
    (text.includes(" > ") && text.endsWith(" PASSED")) ||
    (text.includes("::") && (text.endsWith(" PASSED") || (text.includes(" PASSED ") && text.endsWith("%]"))))
  );
}
