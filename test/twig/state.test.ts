import { afterAll, describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CachedFileReader } from "../../src/fs/cached-file.ts";
import { loadState, parseStateBytes, stateFileFor } from "../../src/twig/state.ts";
import { EXAMPLE_STATE, twigJson } from "../support/fixtures.ts";
import { gitOrThrow } from "../support/git-repo.ts";

const enc = (text: string) => new TextEncoder().encode(text);

describe("parseStateBytes", () => {
  test("reads twig's example state", () => {
    const result = parseStateBytes(enc(twigJson(EXAMPLE_STATE)));
    if (!result.ok) throw new Error(result.error);
    const state = result.value;
    expect([...state.branches.keys()]).toEqual(["feature/auth-ui", "feature/auth", "feature/billing"]);
    expect(state.branches.get("feature/auth")).toEqual({
      jira_issue: "SHOP-123",
      github_pr: 42,
      created_at: "2025-06-01T10:00:00+00:00",
    });
    expect(state.parentsOf("feature/auth-ui")).toEqual(["feature/auth"]);
    expect(state.parentsOf("main")).toEqual([]);
    expect(state.roots).toEqual([{ branch: "main", is_default: true }]);
    expect(state.worktrees[0]?.name).toBe("feature-auth-ui");
  });

  test("missing collections are empty, missing associations are null, unknown fields ignored", () => {
    const result = parseStateBytes(
      enc('{"version":1,"future_field":{"x":1},"branches":{"a":{"branch":"a","created_at":"now","extra":true}}}'),
    );
    if (!result.ok) throw new Error(result.error);
    expect(result.value.branches.get("a")).toEqual({ jira_issue: null, github_pr: null, created_at: "now" });
    expect(result.value.dependencies).toEqual([]);
    expect(result.value.roots).toEqual([]);
    expect(result.value.worktrees).toEqual([]);
  });

  test("branch names that are JavaScript prototype keys are kept", () => {
    const result = parseStateBytes(
      enc('{"branches":{"__proto__":{"github_pr":1},"constructor":{"github_pr":2},"toString":{"github_pr":3}}}'),
    );
    if (!result.ok) throw new Error(result.error);
    expect([...result.value.branches.keys()]).toEqual(["__proto__", "constructor", "toString"]);
    expect(result.value.branches.get("constructor")?.github_pr).toBe(2);
    expect(result.value.parentsOf("constructor")).toEqual([]);
  });

  test("duplicate branch keys: the later one wins, as in twig", () => {
    const result = parseStateBytes(enc('{"branches":{"a":{"github_pr":1},"a":{"github_pr":2}}}'));
    expect(result.ok && result.value.branches.get("a")?.github_pr).toBe(2);
  });

  test("a byte-order mark is tolerated", () => {
    const result = parseStateBytes(enc(`\uFEFF${twigJson(EXAMPLE_STATE)}`));
    expect(result.ok).toBe(true);
  });

  test.each([
    ["", "invalid JSON at line 1, column 1: value expected"],
    ["{", "invalid JSON at line 1, column 2: close brace expected"],
    ['{\n  "version": 1\n  "branches": {}\n}', "invalid JSON at line 3, column 3: comma expected"],
    ["[]", "Invalid type"],
    ['{"branches":{"a":{"github_pr":"42"}}}', "at line 1, column 31 (branches.*.github_pr): Invalid type"],
    ['{"branches":{"a":{"github_pr":-1}}}', "(branches.*.github_pr)"],
    ['{"branches":{"a":{"github_pr":42.5}}}', "(branches.*.github_pr)"],
    ['{"branches":"x"}', "branches"],
    ['{"branch_issues":{}}', "twig 0.1.0–0.1.3 (`branch_issues`), and branch_issues: Invalid type"],
    [
      '{"branches":[{"branch":"a","github_pr":"1"}]}',
      "twig 0.1.4 (`branches` as a list), and at line 1, column 40 (branches[0].github_pr)",
    ],
    ['{"dependencies":[{"child":"a"}]}', "dependencies[0].parent"],
    ['{"root_branches":[{"branch":1}]}', "root_branches[0].branch"],
  ])("rejects %p naming the problem", (text, fragment) => {
    const result = parseStateBytes(enc(text));
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error).toContain(fragment);
  });

  test("a parse error quotes nothing from the file: neither a key nor a value", () => {
    const secret = "prod-db-password=hunter2";
    for (const text of [
      `{"branches":{"${secret}":{"jira_issue":42}}}`,
      `{"branches":{"a":{"jira_issue":"${secret}","github_pr":"${secret}"}}}`,
      `{"worktrees":[{"name":"${secret}","path":1,"branch":"x"}]}`,
      `{"branches":{"a": ${secret}}}`,
      `${secret}`,
      `{"${secret}" 1}`,
    ]) {
      const result = parseStateBytes(enc(text));
      if (result.ok) throw new Error(`parsed: ${text}`);
      expect(result.error).not.toContain("hunter2");
      expect(result.error).not.toContain("prod-db");
      expect(result.error).toMatch(/line 1, column \d+/);
    }
  });

  test("twig 0.1.0–0.1.3's branch_issues list is read as branch records", () => {
    const result = parseStateBytes(
      enc(
        '{"version":1,"worktrees":[],"branch_issues":[{"branch":"a","jira_issue":"SHOP-1","github_pr":7,"created_at":"t1"},{"branch":"b","jira_issue":"SHOP-2","github_pr":null,"created_at":"t2"}],"config_overrides":{}}',
      ),
    );
    if (!result.ok) throw new Error(result.error);
    expect([...result.value.branches]).toEqual([
      ["a", { jira_issue: "SHOP-1", github_pr: 7, created_at: "t1" }],
      ["b", { jira_issue: "SHOP-2", github_pr: null, created_at: "t2" }],
    ]);
  });

  test("twig 0.1.4's branches list is read as branch records", () => {
    const result = parseStateBytes(
      enc('{"branches":[{"branch":"a","jira_issue":null,"github_pr":3,"created_at":"t"}]}'),
    );
    if (!result.ok) throw new Error(result.error);
    expect(result.value.branches.get("a")).toEqual({ jira_issue: null, github_pr: 3, created_at: "t" });
  });

  test("a current record wins over an old one for the same branch", () => {
    const result = parseStateBytes(
      enc('{"branch_issues":[{"branch":"a","jira_issue":"OLD-1"}],"branches":{"a":{"jira_issue":"NEW-1"}}}'),
    );
    expect(result.ok && result.value.branches.get("a")?.jira_issue).toBe("NEW-1");
  });

  test("rejects invalid UTF-8", () => {
    const result = parseStateBytes(new Uint8Array([0x7b, 0xff, 0x7d]));
    expect(result).toEqual({ ok: false, error: "not valid UTF-8" });
  });
});

describe("loadState", () => {
  const root = mkdtempSync(join(tmpdir(), "twig-state-"));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  const files = new CachedFileReader();

  test("a missing file is empty state", async () => {
    const result = await loadState({ files }, join(root, "none"));
    expect(result.ok && result.value.branches.size).toBe(0);
  });

  test("re-reads the file when it changes", async () => {
    const work = join(root, "changing");
    mkdirSync(join(work, ".twig"), { recursive: true });
    writeFileSync(join(work, ".twig", "state.json"), '{"branches":{"a":{"github_pr":1}}}');
    const first = await loadState({ files }, work);
    expect(first.ok && first.value.branches.get("a")?.github_pr).toBe(1);
    writeFileSync(join(work, ".twig", "state.json"), '{"branches":{"a":{"github_pr":22}}}');
    const second = await loadState({ files }, work);
    expect(second.ok && second.value.branches.get("a")?.github_pr).toBe(22);
  });

  test("a corrupt file is no_twig_state with the file and a hint", async () => {
    const work = join(root, "corrupt");
    mkdirSync(join(work, ".twig"), { recursive: true });
    writeFileSync(join(work, ".twig", "state.json"), "{not json");
    const result = await loadState({ files }, work);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error.code).toBe("no_twig_state");
    // Said once, not "Failed to load twig state: Failed to parse state file …".
    expect(result.error.message).toStartWith("Failed to parse state file");
    expect(result.error.message).toContain(join(work, ".twig", "state.json"));
    expect(result.error.hint).toBeString();
  });

  test("a directory in place of the file is no_twig_state", async () => {
    const work = join(root, "dir");
    mkdirSync(join(work, ".twig", "state.json"), { recursive: true });
    const result = await loadState({ files }, work);
    expect(!result.ok && result.error.code).toBe("no_twig_state");
  });

  test.skipIf(process.getuid?.() === 0)("an unreadable file is no_twig_state", async () => {
    const work = join(root, "denied");
    mkdirSync(join(work, ".twig"), { recursive: true });
    writeFileSync(join(work, ".twig", "state.json"), "{}");
    chmodSync(join(work, ".twig", "state.json"), 0o000);
    const result = await loadState({ files }, work);
    expect(!result.ok && result.error.message).toContain("permission denied");
  });

  test("a linked worktree without state uses the main checkout's file; with its own, its own", async () => {
    const home = join(root, "home");
    mkdirSync(home, { recursive: true });
    const main = join(root, "main-checkout");
    mkdirSync(main);
    gitOrThrow(main, home, "init", "-q", "-b", "main");
    gitOrThrow(main, home, "commit", "-q", "--allow-empty", "-m", "init");
    gitOrThrow(main, home, "worktree", "add", "-q", "-b", "topic", join(root, "linked"));
    const [mainDir, linked] = [realpathSync(main), realpathSync(join(root, "linked"))];
    // No state anywhere yet: the file to create is the main checkout's.
    expect(await stateFileFor({ files }, linked)).toBe(join(mainDir, ".twig", "state.json"));
    expect(await stateFileFor({ files }, mainDir)).toBe(join(mainDir, ".twig", "state.json"));
    mkdirSync(join(mainDir, ".twig"));
    writeFileSync(join(mainDir, ".twig", "state.json"), '{"branches":{"topic":{"github_pr":5}}}');
    const shared = await loadState({ files }, linked);
    expect(shared.ok && shared.value.branches.get("topic")?.github_pr).toBe(5);
    mkdirSync(join(linked, ".twig"));
    writeFileSync(join(linked, ".twig", "state.json"), '{"branches":{"topic":{"github_pr":6}}}');
    expect(await stateFileFor({ files }, linked)).toBe(join(linked, ".twig", "state.json"));
    const own = await loadState({ files }, linked);
    expect(own.ok && own.value.branches.get("topic")?.github_pr).toBe(6);
  });
});
