/**
 * Property-based tests (fast-check) for the parsers and validators that stand between untrusted
 * input and the file system or a remote API: random input never crashes them, and valid input
 * round-trips. They add to the example-based tests beside each module (test/git, test/github,
 * test/creds, test/jira, test/twig) rather than repeating them.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { join, normalize, posix, relative } from "node:path";
import fc from "fast-check";
import { findNetrcEntry, type NetrcEntry, parseNetrc } from "../../src/creds/netrc.ts";
import { parsePackedLine } from "../../src/git/packed-refs.ts";
import { checkBranchName, checkRefnameFormat } from "../../src/git/refname.ts";
import { parseLooseRef } from "../../src/git/refs.ts";
import { JobLogFilter } from "../../src/github/log-filter.ts";
import { GITHUB_NAME, parseRemoteUrl } from "../../src/github/target.ts";
import { MAX_FAILURES, MAX_MESSAGE_CHARS } from "../../src/github/test-failures.ts";
import { buildSearchJql, normalizeIssueKey, normalizeProjectKey } from "../../src/jira/jql.ts";
import { parseRegistryBytes } from "../../src/twig/registry.ts";
import { parseStateBytes } from "../../src/twig/state.ts";
import { lexJql } from "../support/fake-jira.ts";
import { makeSandbox, runGit, type Sandbox } from "../support/git-repo.ts";

// Property runs are CPU-bound: their hundreds of cases take seconds on a busy machine, beyond bun's 5 s default.
setDefaultTimeout(60_000);

const anyString = fc.oneof(
  fc.string({ unit: "binary", maxLength: 80 }),
  fc.string({ unit: "grapheme", maxLength: 40 }),
  fc.string({ maxLength: 80 }),
);
const encoder = new TextEncoder();

describe("ref-name validator", () => {
  /** Names built from the characters git's rules are about, so both verdicts are common. */
  const nasty = fc
    .array(
      fc.constantFrom(
        "a",
        "b",
        "/",
        ".",
        "-",
        "@",
        "{",
        "}",
        "~",
        "^",
        ":",
        "\\",
        " ",
        "*",
        "?",
        "[",
        "lock",
        "é",
        "\u0001",
        "\u007f",
      ),
      {
        minLength: 1,
        maxLength: 12,
      },
    )
    .map((parts) => parts.join(""));
  const component = fc.stringMatching(/^[A-Za-z0-9_][A-Za-z0-9_+=,-]{0,15}$/).filter((c) => !c.endsWith(".lock"));
  const validBranch = fc.array(component, { minLength: 1, maxLength: 5 }).map((parts) => parts.join("/"));

  test("never throws, whatever the input", () => {
    fc.assert(
      fc.property(fc.oneof(anyString, nasty), (name) => {
        const verdicts = [checkBranchName(name), checkRefnameFormat(name)];
        for (const verdict of verdicts) expect(verdict === null || typeof verdict === "string").toBe(true);
      }),
      { numRuns: 3000 },
    );
  });

  test("an accepted name cannot leave refs/heads as a path, an option or a revision expression", () => {
    const heads = "/repo/.git/refs/heads";
    fc.assert(
      fc.property(fc.oneof(anyString, nasty, validBranch), (name) => {
        if (checkBranchName(name) !== null) return;
        const path = join(heads, name);
        expect(path.startsWith(`${heads}/`)).toBe(true);
        expect(relative(heads, path)).toBe(name);
        expect(normalize(name)).toBe(name);
        expect(name.split("/").some((part) => part === "." || part === ".." || part === "")).toBe(false);
        expect(name.startsWith("-")).toBe(false);
        expect(name.isWellFormed()).toBe(true);
        expect(/[\u0000-\u001f\u007f ~^:?*[\\]|@\{|\.\./.test(name)).toBe(false);
      }),
      { numRuns: 3000 },
    );
  });

  test("valid names are accepted and round-trip through the loose-ref path", () => {
    fc.assert(
      fc.property(validBranch, (name) => {
        expect(checkBranchName(name)).toBeNull();
        expect(checkRefnameFormat(`refs/heads/${name}`)).toBeNull();
        expect(posix.relative("refs/heads", posix.join("refs/heads", name))).toBe(name);
      }),
    );
  });

  describe("agrees with `git check-ref-format --branch` on random names", () => {
    let sandbox: Sandbox;
    beforeAll(() => {
      sandbox = makeSandbox();
    });
    afterAll(() => sandbox.cleanup());

    test("150 samples", () => {
      const names = fc.sample(nasty, { seed: 4242, numRuns: 150 }).filter((name) => name !== "@");
      for (const name of names) {
        const git = runGit(sandbox.dir, ["check-ref-format", "--branch", name], sandbox.dir).exitCode === 0;
        expect({ name, accepted: checkBranchName(name) === null }).toEqual({ name, accepted: git });
      }
    });
  });
});

describe("remote-URL parser", () => {
  const name = fc
    .stringMatching(/^[A-Za-z0-9_-][A-Za-z0-9_.-]{0,20}$/)
    .filter((s) => !s.endsWith(".") && !s.endsWith(".git"));
  const host = fc.constantFrom("github.com", "GitHub.com", "ghe.example.com", "tenant.ghe.com", "git.example.org:8443");

  test("whatever it is given, an answer names a plain owner and repo on a plain host", () => {
    const urlish = fc
      .tuple(
        fc.constantFrom("https://", "http://", "ssh://", "git://", "git@", "", "file://", "ftp://", "https://x:tok@"),
        fc.oneof(host, anyString),
        fc.constantFrom("/", ":", "//", ""),
        fc.oneof(name, anyString, fc.constantFrom("..", ".", "a/../b", "%2e%2e")),
        fc.constantFrom("/", "//", "/../", ""),
        fc.oneof(name, anyString, fc.constantFrom("..", ".git", "r.git", "r/")),
        fc.constantFrom("", ".git", "/", "?x=1", "#frag", " ", "\n"),
      )
      .map((parts) => parts.join(""));
    fc.assert(
      fc.property(fc.oneof(urlish, anyString), (url) => {
        const parsed = parseRemoteUrl(url);
        if (parsed === null) return;
        for (const part of [parsed.owner, parsed.repo]) {
          expect(part).toMatch(GITHUB_NAME);
          expect(part === "." || part === "..").toBe(false);
          expect(part.length).toBeLessThanOrEqual(100);
        }
        expect(parsed.host).toMatch(/^[a-z0-9.-]+(:\d{1,5})?$/);
        // The parse is a fixed point: the canonical URL of the answer reads back the same.
        expect(parseRemoteUrl(`https://${parsed.host}/${parsed.owner}/${parsed.repo}.git`)).toEqual(parsed);
      }),
      { numRuns: 5000 },
    );
  });

  test("credentials, queries and fragments around a valid URL never leak into owner or repo", () => {
    fc.assert(
      // `~` can be in a token but never in a host, owner or repo: a token that happens to be part of
      // the owner's name cannot make the check fail.
      fc.property(host, name, name, fc.stringMatching(/^[A-Za-z0-9_]{8,30}~$/), (h, owner, repo, token) => {
        const parsed = parseRemoteUrl(`https://x-access-token:${token}@${h}/${owner}/${repo}.git`);
        expect(parsed).toEqual({ host: h.toLowerCase(), owner, repo });
        expect(JSON.stringify(parsed)).not.toContain(token);
      }),
    );
  });
});

describe(".netrc parser", () => {
  const keyword = fc.constantFrom(
    "machine",
    "default",
    "login",
    "password",
    "account",
    "macdef",
    "#",
    '"',
    "\\",
    "\n",
    "\n\n",
    " ",
    "\t",
  );
  const word = fc.stringMatching(/^[A-Za-z0-9@._:-]{1,12}$/);

  test("never throws on arbitrary text, keyword soup or binary", () => {
    fc.assert(
      fc.property(
        fc.oneof(
          anyString,
          fc.array(fc.oneof(keyword, word), { maxLength: 40 }).map((t) => t.join(" ")),
        ),
        (text) => {
          const entries = parseNetrc(text);
          for (const entry of entries) {
            expect(typeof entry.login).toBe("string");
            expect(typeof entry.password).toBe("string");
          }
          findNetrcEntry(entries, ["github.com"]);
        },
      ),
      { numRuns: 3000 },
    );
  });

  /** A value written the way a careful tool would: quoted, with `"` and `\` escaped. */
  const quote = (value: string) => `"${value.replace(/\\/g, "\\\\").replace(/"/g, '\\"')}"`;
  const secret = fc.string({ unit: "grapheme", minLength: 1, maxLength: 20 }).filter((s) => !s.includes("\n"));
  const entry = fc.record({
    machine: fc.oneof(word, fc.constant(null)),
    login: secret,
    password: secret,
    account: fc.option(secret, { nil: undefined }),
  });

  test("entries written with quoting, comments and macros read back exactly", () => {
    fc.assert(
      fc.property(fc.array(entry, { minLength: 1, maxLength: 6 }), fc.boolean(), (entries, withNoise) => {
        const text = entries
          .map((e, i) => {
            const head = e.machine === null ? "default" : `machine ${e.machine}`;
            const account = e.account === undefined ? "" : ` account ${quote(e.account)}`;
            const noise = withNoise ? `\n# comment ${i} password nope\nmacdef init${i}\ncd /tmp\nlogin evil\n\n` : "\n";
            return `${head}\n\tlogin ${quote(e.login)}\tpassword ${quote(e.password)}${account}${noise}`;
          })
          .join("");
        const parsed = parseNetrc(text);
        const expected: NetrcEntry[] = entries.map((e) => ({
          machine: e.machine,
          login: e.login,
          password: e.password,
          ...(e.account === undefined ? {} : { account: e.account }),
        }));
        expect(parsed).toEqual(expected);
        for (const e of entries) {
          if (e.machine === null) continue;
          const first = entries.find((x) => x.machine?.toLowerCase() === e.machine?.toLowerCase());
          expect(findNetrcEntry(parsed, [e.machine.toUpperCase()])).toMatchObject({
            login: first?.login,
            password: first?.password,
          });
        }
      }),
      { numRuns: 1000 },
    );
  });
});

describe("Jira keys and JQL", () => {
  test("a normalized key is URL-safe, so it is the whole path segment of an issue request", () => {
    fc.assert(
      fc.property(fc.oneof(anyString, fc.stringMatching(/^[a-zA-Z][a-zA-Z0-9_]{1,8}-[0-9]{1,6}$/)), (text) => {
        const issue = normalizeIssueKey(text);
        if (issue !== null) {
          expect(issue).toMatch(/^[A-Z][A-Z0-9_]+-[0-9]+$/);
          expect(encodeURIComponent(issue)).toBe(issue);
        }
        const project = normalizeProjectKey(text);
        if (project !== null) {
          const tokens = lexJql(buildSearchJql({ project }));
          expect(tokens.slice(0, 3)).toEqual([
            { kind: "word", value: "project" },
            { kind: "op", value: "=" },
            { kind: "string", value: project },
          ]);
          expect(tokens).toHaveLength(7);
        }
      }),
      { numRuns: 3000 },
    );
  });
});

describe("state and registry loaders", () => {
  test("never throw on arbitrary bytes, arbitrary JSON, or almost-right states", () => {
    const almost = fc.record(
      {
        version: fc.jsonValue({ maxDepth: 1 }),
        branches: fc.oneof(fc.jsonValue({ maxDepth: 3 }), fc.dictionary(anyString, fc.jsonValue({ maxDepth: 2 }))),
        dependencies: fc.jsonValue({ maxDepth: 3 }),
        root_branches: fc.jsonValue({ maxDepth: 3 }),
        worktrees: fc.jsonValue({ maxDepth: 3 }),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(
        fc.oneof(
          fc.uint8Array({ maxLength: 200 }),
          fc.jsonValue().map((j) => encoder.encode(JSON.stringify(j))),
          almost.map((j) => encoder.encode(JSON.stringify(j))),
        ),
        (bytes) => {
          const state = parseStateBytes(bytes);
          if (!state.ok) expect(typeof state.error).toBe("string");
          const registry = parseRegistryBytes(bytes);
          if (!registry.ok) expect(typeof registry.error).toBe("string");
          parsePackedLine(bytes);
          parseLooseRef(bytes);
        },
      ),
      { numRuns: 3000 },
    );
  });

  test("a parse error never quotes the file (it may be a symlink to a secret)", () => {
    fc.assert(
      fc.property(
        // Ends in `$q`, which no fixed part of an error message holds: only a quote could show it.
        fc.stringMatching(/^[A-Za-z_$][A-Za-z0-9_$]{5,40}\$q$/),
        fc.constantFrom("", "{", "[1,", "\n"),
        (word, prefix) => {
          fc.pre(!["true", "false", "null"].includes(word));
          for (const parse of [parseStateBytes, parseRegistryBytes]) {
            const result = parse(encoder.encode(`${prefix}${word}`));
            expect(result.ok).toBe(false);
            if (!result.ok) expect(result.error).not.toContain(word);
          }
        },
      ),
    );
  });

  const branchName = fc.oneof(
    fc.string({ unit: "grapheme", minLength: 1, maxLength: 20 }),
    fc.constantFrom("__proto__", "constructor", "toString", "hasOwnProperty", "feature/auth"),
  );
  const record = fc.record(
    {
      jira_issue: fc.option(fc.string({ maxLength: 12 }), { nil: null }),
      github_pr: fc.option(fc.integer({ min: 0, max: 4294967295 }), { nil: null }),
      created_at: fc.string({ maxLength: 30 }),
    },
    { requiredKeys: ["jira_issue", "github_pr"] },
  );
  const state = fc.record({
    version: fc.constant(1),
    branches: fc.array(fc.tuple(branchName, record), { maxLength: 8 }),
    dependencies: fc.array(fc.record({ child: branchName, parent: branchName }), { maxLength: 8 }),
    root_branches: fc.array(fc.record({ branch: branchName, is_default: fc.boolean() }), { maxLength: 3 }),
    worktrees: fc.array(fc.record({ name: branchName, path: fc.string({ maxLength: 20 }), branch: branchName }), {
      maxLength: 3,
    }),
  });

  test("a valid state written as twig writes it reads back the same", () => {
    fc.assert(
      fc.property(state, (s) => {
        // Built key by key: an object literal would treat `__proto__` specially.
        const branches: Record<string, unknown> = {};
        for (const [name, value] of s.branches)
          Object.defineProperty(branches, name, { value, enumerable: true, writable: true, configurable: true });
        const text = JSON.stringify({ ...s, branches }, null, 2);
        const parsed = parseStateBytes(encoder.encode(text));
        if (!parsed.ok) throw new Error(parsed.error);
        const expectedBranches = new Map(s.branches);
        expect([...parsed.value.branches.keys()].sort()).toEqual([...expectedBranches.keys()].sort());
        for (const [name, value] of expectedBranches) {
          expect(parsed.value.branches.get(name)).toEqual(value);
        }
        expect(parsed.value.dependencies.map((d) => [d.child, d.parent])).toEqual(
          s.dependencies.map((d) => [d.child, d.parent]),
        );
        expect(parsed.value.roots).toEqual(s.root_branches);
        expect(parsed.value.worktrees).toEqual(s.worktrees);
        for (const { child } of s.dependencies) {
          expect(parsed.value.parentsOf(child)[0]).toBe(
            s.dependencies.find((d) => d.child === child)?.parent as string,
          );
        }
        // With a byte-order mark, and as a registry of the same names, too.
        expect(parseStateBytes(encoder.encode(`\uFEFF${text}`)).ok).toBe(true);
        const registry = s.worktrees.map((w) => ({ path: w.path, name: w.name, last_fetch: null }));
        expect(parseRegistryBytes(encoder.encode(JSON.stringify(registry)))).toEqual({ ok: true, value: registry });
      }),
      { numRuns: 500 },
    );
  });
});

describe("test-failure parsers in a job log", () => {
  // Pieces of every runner's markers, so random logs reach every parser state.
  const marker = fc.constantFrom(
    "FAILED a.py::t - ",
    "ERROR a.py::t",
    "___ t ___",
    "E    ",
    "  ● s › t",
    " FAIL  f > s > t",
    "--- FAIL: T (0.00s)",
    "    --- FAIL: T/sub",
    "=== RUN   T",
    "    x_test.go:1: ",
    "[ERROR] Failures:",
    "[ERROR]   C.m:1 ",
    "C > m() FAILED",
    "---- t stdout ----",
    "failures:",
    "    t::x",
    "test result: ",
    "Tests run: 1",
    "##[group]Run t",
    "Post job cleanup.",
    "##[error]",
    "\u001b[31m",
    "\u001b]0;",
    "   ",
    "\t",
  );
  const line = fc.array(fc.oneof(marker, anyString), { maxLength: 6 }).map((parts) => parts.join(""));
  const log = fc.array(line, { maxLength: 60 }).map((lines) => lines.join("\n"));

  test("never throw; failures stay capped, clipped and free of escapes and controls", () => {
    fc.assert(
      fc.property(log, fc.integer({ min: 1, max: 40 }), (text, chunk) => {
        const filter = new JobLogFilter({ lines: 20, jobSteps: [], secrets: [] });
        for (let at = 0; at < text.length; at += chunk) filter.push(text.slice(at, at + chunk));
        const { failures, failures_omitted } = filter.end();
        expect(failures.length).toBeLessThanOrEqual(MAX_FAILURES);
        // Failures are left out only once a runner's list is full; a go parent hidden by its subtest is the one gap.
        if (failures.length < MAX_FAILURES && !failures.some(({ test: id }) => id.includes("/"))) {
          expect(failures_omitted).toBe(0);
        }
        for (const { test: id, message } of failures) {
          expect(message.length).toBeLessThanOrEqual(MAX_MESSAGE_CHARS);
          expect(id).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
          expect(message).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
        }
      }),
      { numRuns: 1500 },
    );
  });

  test("lines built to make a backtracking parser stall are read in one pass, each to a bounded length", () => {
    const long = 200_000;
    const lines = [
      "##[group]Run pytest",
      `___${" _".repeat(long)}`,
      `FAILED ${"::".repeat(long)}${" -".repeat(long)}`,
      `  ● ${"› ".repeat(long)}`,
      `--- FAIL: ${"T".repeat(long)}`,
      `${"9 |".repeat(long)}`,
      `${"= failed ".repeat(long)}=`,
      `${" > ".repeat(long)} FAILED`,
      `---- ${"-".repeat(long)} stdout ----`,
    ];
    const filter = new JobLogFilter({ lines: 5, jobSteps: [], secrets: [] });
    for (const text of lines) filter.push(`${text}\n`);
    const { failures } = filter.end();
    for (const failure of failures) {
      expect(failure.test.length).toBeLessThanOrEqual(2000);
      expect(failure.message.length).toBeLessThanOrEqual(MAX_MESSAGE_CHARS);
    }
    expect(failures.map((f) => f.test)).toContain("T".repeat(300));
  });
});
