import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
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

  test("CLAUDE_PROJECT_DIR is the default outside a repository; the working directory's repository, --repo and TWIG_MCP_REPO win", async () => {
    const current = async (cwd: string, env: Record<string, string>, args: string[] = []) => {
      const server = await startServer({ cwd, env: { ...home.env, ...env }, args });
      try {
        return branchOf((await server.call("get_current_branch")).structured);
      } finally {
        await server.close();
      }
    };
    const project = { CLAUDE_PROJECT_DIR: alpha };
    expect(await current(outside, project)).toBe("alpha-main");
    expect(await current(beta, project)).toBe("beta-main");
    expect(await current(outside, project, ["--repo", beta])).toBe("beta-main");
    expect(await current(outside, { ...project, TWIG_MCP_REPO: beta })).toBe("beta-main");
    // Only an absolute path counts; without one, outside a repository there is no default.
    const none = await startServer({ cwd: outside, env: { ...home.env, CLAUDE_PROJECT_DIR: "alpha" } });
    try {
      expect((await none.call("get_current_branch")).envelope.error?.code).toBe("no_repo");
    } finally {
      await none.close();
    }
  });
});

describe("nested repositories that point outside the exposed places (issue 19.3)", () => {
  /** A directory inside alpha (the default repository), made fresh for one case. */
  function insideAlpha(name: string): string {
    const dir = join(alpha, "vendor", name);
    mkdirSync(dir, { recursive: true });
    return dir;
  }

  function expectRefused(result: { envelope: { error?: { code: string; message: string } } }, outsideDir: string) {
    expect(result.envelope.error?.code).toBe("invalid_params");
    expect(result.envelope.error?.message).toContain(outsideDir);
  }

  test("a .git file, a .git symlink or a core.worktree naming another repository is refused; the outside branch is never served", async () => {
    const gitfile = insideAlpha("gitfile");
    writeFileSync(join(gitfile, ".git"), `gitdir: ${join(stranger, ".git")}\n`);
    const linked = insideAlpha("linked");
    symlinkSync(join(stranger, ".git"), join(linked, ".git"));
    const worktreeElsewhere = insideAlpha("worktree-elsewhere");
    git(worktreeElsewhere, "init", "-q", "-b", "inner-main");
    git(worktreeElsewhere, "config", "core.worktree", stranger);
    const server = await startServer({ cwd: alpha, env: home.env });
    try {
      for (const dir of [gitfile, linked]) {
        const refused = await server.call("list_branches", { repo: dir });
        expectRefused(refused, join(stranger, ".git"));
        expect(refused.text).not.toContain("stranger-main");
      }
      // core.worktree may not leave the directory the repository was found in.
      const moved = await server.call("get_current_branch", { repo: worktreeElsewhere });
      expect(moved.envelope.error?.code).toBe("unsupported_repo");
      expect(moved.envelope.error?.message).toContain("core.worktree");
      expect(moved.text).not.toContain("stranger-main");
      // The repository they sit in is still served.
      expect(branchOf((await server.call("get_current_branch", { repo: alpha })).structured)).toBe("alpha-main");
    } finally {
      await server.close();
    }
  });

  test("a .git file naming a directory with control characters is refused with the path shown printable", async () => {
    const hostile = join(root, "str\u001b[2Janger");
    mkdirSync(hostile);
    git(hostile, "init", "-q", "-b", "hostile-main");
    const gitfile = insideAlpha("hostile-gitfile");
    writeFileSync(join(gitfile, ".git"), `gitdir: ${join(hostile, ".git")}\n`);
    const server = await startServer({ cwd: alpha, env: home.env });
    try {
      const refused = await server.call("get_current_branch", { repo: gitfile });
      expectRefused(refused, join(root, "str?[2Janger", ".git"));
      expect(refused.text).not.toContain("\u001b");
      expect(refused.text).not.toContain("\\u001b");
    } finally {
      await server.close();
    }
  });

  test("a linked worktree counts as inside when its git dir lies in an exposed repository's common dir", async () => {
    git(alpha, "worktree", "add", "-q", "-b", "alpha-feature", join(alpha, "vendor", "alpha-wt"));
    git(stranger, "worktree", "add", "-q", "-b", "stranger-feature", join(alpha, "vendor", "stranger-wt"));
    const server = await startServer({ cwd: alpha, env: home.env });
    try {
      const own = await server.call("get_current_branch", { repo: join(alpha, "vendor", "alpha-wt") });
      expect(branchOf(own.structured)).toBe("alpha-feature");
      const foreign = await server.call("get_current_branch", { repo: join(alpha, "vendor", "stranger-wt") });
      expectRefused(foreign, join(stranger, ".git"));
    } finally {
      await server.close();
    }
  });

  test("a linked worktree of an exposed repository, beside it rather than inside, is accepted as `repo`", async () => {
    const worktree = join(root, "alpha-beside");
    git(alpha, "worktree", "add", "-q", "-b", "alpha-beside", worktree);
    const server = await startServer({ cwd: alpha, env: home.env });
    try {
      const named = await server.call("get_current_branch", { repo: realpathSync(worktree) });
      expect(branchOf(named.structured)).toBe("alpha-beside");
      mkdirSync(join(worktree, "src"), { recursive: true });
      const below = await server.call("get_current_branch", { repo: join(realpathSync(worktree), "src") });
      expect(branchOf(below.structured)).toBe("alpha-beside");
      // A worktree of a repository nobody exposed is still refused, with the hint to register it.
      const foreign = join(root, "stranger-beside");
      git(stranger, "worktree", "add", "-q", "-b", "stranger-beside", foreign);
      const refused = await server.call("get_current_branch", { repo: realpathSync(foreign) });
      expect(refused.envelope.error?.code).toBe("invalid_params");
      expect(refused.text).not.toContain('"stranger-beside"');
    } finally {
      await server.close();
    }
  });

  test("an exposed repository's worktree record naming another repository does not expose that one", async () => {
    // alpha's admin dir for a made-up worktree claims stranger's checkout as its own.
    const admin = join(alpha, ".git", "worktrees", "claimed");
    mkdirSync(admin, { recursive: true });
    writeFileSync(join(admin, "gitdir"), `${join(stranger, ".git")}\n`);
    writeFileSync(join(admin, "HEAD"), "ref: refs/heads/alpha-main\n");
    writeFileSync(join(admin, "commondir"), "../..\n");
    const server = await startServer({ cwd: alpha, env: home.env });
    try {
      const refused = await server.call("get_current_branch", { repo: stranger });
      expect(refused.envelope.error?.code).toBe("invalid_params");
      expect(refused.text).not.toContain("stranger-main");
    } finally {
      rmSync(admin, { recursive: true, force: true });
      await server.close();
    }
  });

  test("started in a linked worktree whose repository lies elsewhere, that worktree can still be named by path", async () => {
    const worktree = join(root, "beta-wt");
    git(beta, "worktree", "add", "-q", "-b", "beta-feature", worktree);
    const server = await startServer({ cwd: worktree, env: home.env });
    try {
      const named = await server.call("get_current_branch", { repo: realpathSync(worktree) });
      expect(branchOf(named.structured)).toBe("beta-feature");
    } finally {
      await server.close();
    }
  });
});
