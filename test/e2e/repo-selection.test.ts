import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { twigJson } from "../support/fixtures.ts";
import { gitOrThrow } from "../support/git-repo.ts";
import { type HermeticHome, makeHermeticHome } from "../support/hermetic-env.ts";
import { startServer } from "../support/mcp-harness.ts";

// These tests start processes (the compiled binary, git, builds); on a busy machine that takes longer than bun's 5 s default.
setDefaultTimeout(60_000);

let home: HermeticHome;
let root: string;
let alpha: string;
let beta: string;
let stranger: string;
let outside: string;

function git(cwd: string, ...args: string[]): string {
  return gitOrThrow(cwd, home.home, ...args);
}

function repoOn(name: string, branch: string): string {
  const repo = join(root, name);
  mkdirSync(repo, { recursive: true });
  git(repo, "init", "-q", "-b", branch);
  git(repo, "commit", "-q", "--allow-empty", "-m", "init");
  return realpathSync(repo);
}

beforeAll(() => {
  home = makeHermeticHome();
  root = mkdtempSync(join(tmpdir(), "twig-mcp-select-"));
  alpha = repoOn("alpha", "alpha-main");
  beta = repoOn("beta", "beta-main");
  stranger = repoOn("stranger", "stranger-main");
  outside = join(root, "not-a-repo");
  mkdirSync(outside);
  mkdirSync(home.twigDataDir, { recursive: true });
  writeFileSync(
    join(home.twigDataDir, "registry.json"),
    twigJson([
      { path: alpha, name: "alpha", last_fetch: null },
      { path: beta, name: "beta", last_fetch: null },
      { path: join(root, "dup1"), name: "dup", last_fetch: null },
      { path: join(root, "dup2"), name: "dup", last_fetch: null },
    ]),
  );
});
afterAll(() => {
  rmSync(root, { recursive: true, force: true });
  home.cleanup();
});

const branchOf = (structured: unknown) => (structured as { branch: string }).branch;

describe("choosing the repository", () => {
  test("`repo` selects a registered repository by name or by a path inside it", async () => {
    const server = await startServer({ cwd: alpha, env: home.env });
    try {
      expect(branchOf((await server.call("get_current_branch")).structured)).toBe("alpha-main");
      expect(branchOf((await server.call("get_current_branch", { repo: "beta" })).structured)).toBe("beta-main");
      mkdirSync(join(beta, "src"), { recursive: true });
      const byPath = await server.call("get_current_branch", { repo: join(beta, "src") });
      expect(branchOf(byPath.structured)).toBe("beta-main");
    } finally {
      await server.close();
    }
  });

  test("repositories outside the registry, roots and default are refused; ambiguity lists candidates", async () => {
    const server = await startServer({ cwd: alpha, env: home.env });
    try {
      const strangerCall = await server.call("list_branches", { repo: stranger });
      expect(strangerCall.envelope.error?.code).toBe("invalid_params");
      expect(strangerCall.envelope.error?.hint).toContain("list_repositories");
      const relative = await server.call("list_branches", { repo: "../stranger" });
      expect(relative.envelope.error?.code).toBe("invalid_params");
      const unknown = await server.call("list_branches", { repo: "gamma" });
      expect(unknown.envelope.error?.code).toBe("invalid_params");
      expect(unknown.envelope.error?.hint).toContain("alpha, beta, dup");
      const ambiguous = await server.call("list_branches", { repo: "dup" });
      expect(ambiguous.envelope.error?.message).toContain(join(root, "dup1"));
      expect(ambiguous.envelope.error?.message).toContain(join(root, "dup2"));
      const etc = await server.call("get_worktrees", { repo: "/etc" });
      expect(etc.envelope.error?.code).toBe("invalid_params");
    } finally {
      await server.close();
    }
  });

  test("the first client root inside a git repository is the default; list_changed moves it", async () => {
    const server = await startServer({ cwd: outside, env: home.env, roots: [outside, stranger] });
    try {
      expect(branchOf((await server.call("get_current_branch")).structured)).toBe("stranger-main");
      const repos = await server.call("list_repositories");
      expect((repos.structured as { default_repository: string }).default_repository).toBe(stranger);
      await server.setRoots([beta]);
      expect(branchOf((await server.call("get_current_branch")).structured)).toBe("beta-main");
      // A root makes its repository selectable by path even though twig has not registered it.
      await server.setRoots([stranger, alpha]);
      expect(branchOf((await server.call("get_current_branch", { repo: alpha })).structured)).toBe("alpha-main");
    } finally {
      await server.close();
    }
  });

  test("--repo wins over client roots", async () => {
    const server = await startServer({ cwd: outside, env: home.env, roots: [stranger], args: ["--repo", beta] });
    try {
      expect(branchOf((await server.call("get_current_branch")).structured)).toBe("beta-main");
    } finally {
      await server.close();
    }
  });
});
