import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { CachedFileReader } from "../../src/fs/cached-file.ts";
import { discoverRepository, type RepoLocation } from "../../src/git/discover.ts";
import { type Head, readHead } from "../../src/git/refs.ts";
import { type GitRepo, makeRepo } from "../support/git-repo.ts";

const files = new CachedFileReader();

async function locate(dir: string): Promise<RepoLocation> {
  const found = await discoverRepository(dir, files);
  if (!found.ok) throw new Error(found.error.message);
  return found.value;
}

async function headAt(dir: string): Promise<Head> {
  const head = await readHead(await locate(dir));
  if (!head.ok) throw new Error(`${head.error.code}: ${head.error.message}`);
  return head.value;
}

/** HEAD as git reports it in `dir`. */
function gitHead(repo: GitRepo, dir: string): Head {
  const oid = repo.tryGit("-C", dir, "rev-parse", "--verify", "-q", "HEAD").stdout.trim() || null;
  const branch = repo.gitIn(dir, "branch", "--show-current");
  if (branch === "") return { kind: "detached", oid: oid! };
  expect(repo.gitIn(dir, "symbolic-ref", "--short", "HEAD")).toBe(branch);
  return { kind: "branch", branch, unborn: oid === null, oid };
}

describe("readHead", () => {
  let repo: GitRepo;
  beforeAll(() => {
    repo = makeRepo({ commit: true });
  });
  afterAll(() => repo.cleanup());

  test("on a branch", async () => {
    const head = await headAt(repo.root);
    expect(head).toEqual(gitHead(repo, repo.root));
    expect(head).toMatchObject({ kind: "branch", branch: "main", unborn: false });
  });

  test("on a branch with slashes and non-ASCII characters", async () => {
    repo.git("checkout", "-q", "-b", "feature/ünï/日本");
    repo.commit("on feature");
    expect(await headAt(repo.root)).toEqual(gitHead(repo, repo.root));
    repo.git("checkout", "-q", "main");
  });

  test("detached", async () => {
    repo.git("checkout", "-q", "--detach");
    const head = await headAt(repo.root);
    expect(head).toEqual({ kind: "detached", oid: repo.git("rev-parse", "HEAD") });
    expect(head).toEqual(gitHead(repo, repo.root));
    repo.git("checkout", "-q", "main");
  });

  test("branch only in packed-refs after `git pack-refs --all`", async () => {
    repo.git("pack-refs", "--all");
    expect(await Bun.file(repo.path(".git", "refs", "heads", "main")).exists()).toBe(false);
    const head = await headAt(repo.root);
    expect(head).toEqual(gitHead(repo, repo.root));
    expect(head).toMatchObject({ kind: "branch", branch: "main", unborn: false });
  });

  test("a loose ref written after packing wins over the packed one", async () => {
    const newer = repo.commit("after packing");
    expect(await Bun.file(repo.path(".git", "refs", "heads", "main")).exists()).toBe(true);
    expect(await headAt(repo.root)).toEqual({ kind: "branch", branch: "main", unborn: false, oid: newer });
  });

  test("an orphan branch is unborn", async () => {
    repo.git("checkout", "-q", "--orphan", "orphan/new");
    const head = await headAt(repo.root);
    expect(head).toEqual({ kind: "branch", branch: "orphan/new", unborn: true, oid: null });
    expect(head).toEqual(gitHead(repo, repo.root));
    repo.git("checkout", "-q", "-f", "main");
  });

  test("a symbolic branch is followed to its target, as `git branch --show-current` does", async () => {
    repo.git("symbolic-ref", "refs/heads/alias", "refs/heads/main");
    repo.git("symbolic-ref", "HEAD", "refs/heads/alias");
    try {
      const head = await headAt(repo.root);
      expect(head).toMatchObject({ kind: "branch", branch: repo.git("branch", "--show-current") });
      expect(head).toMatchObject({ branch: "main", oid: repo.git("rev-parse", "HEAD") });
    } finally {
      repo.git("symbolic-ref", "HEAD", "refs/heads/main");
      rmSync(repo.path(".git", "refs", "heads", "alias"));
    }
  });

  test("a symbolic-ref loop is an error value, not a hang", async () => {
    writeFileSync(repo.path(".git", "refs", "heads", "loop-a"), "ref: refs/heads/loop-b\n");
    writeFileSync(repo.path(".git", "refs", "heads", "loop-b"), "ref: refs/heads/loop-a\n");
    const location = await locate(repo.root);
    writeFileSync(repo.path(".git", "HEAD"), "ref: refs/heads/loop-a\n");
    try {
      const head = await readHead(location);
      expect(head.ok).toBe(false);
      if (!head.ok) expect(head.error.message).toContain("levels deep");
    } finally {
      writeFileSync(repo.path(".git", "HEAD"), "ref: refs/heads/main\n");
      rmSync(repo.path(".git", "refs", "heads", "loop-a"));
      rmSync(repo.path(".git", "refs", "heads", "loop-b"));
    }
  });

  test("HEAD as a symlink (core.preferSymlinkRefs)", async () => {
    const location = await locate(repo.root);
    rmSync(repo.path(".git", "HEAD"));
    symlinkSync("refs/heads/main", repo.path(".git", "HEAD"));
    try {
      expect(repo.git("symbolic-ref", "HEAD")).toBe("refs/heads/main");
      expect(await readHead(location)).toEqual({
        ok: true,
        value: { kind: "branch", branch: "main", unborn: false, oid: repo.git("rev-parse", "main") },
      });
    } finally {
      rmSync(repo.path(".git", "HEAD"));
      writeFileSync(repo.path(".git", "HEAD"), "ref: refs/heads/main\n");
    }
  });

  test("HEAD naming a ref outside refs/heads reads as detached at its commit", async () => {
    const location = await locate(repo.root);
    repo.git("update-ref", "refs/remotes/origin/main", "HEAD");
    writeFileSync(repo.path(".git", "HEAD"), "ref: refs/remotes/origin/main\n");
    try {
      expect(await readHead(location)).toEqual({
        ok: true,
        value: { kind: "detached", oid: repo.git("rev-parse", "refs/remotes/origin/main") },
      });
    } finally {
      writeFileSync(repo.path(".git", "HEAD"), "ref: refs/heads/main\n");
    }
  });

  test.each([
    ["garbage", "not a ref\n"],
    ["an unsafe target", "ref: refs/heads/../../config\n"],
    ["a short object id", "abc123\n"],
  ])("a HEAD holding %s is an error value", async (_label, content) => {
    const location = await locate(repo.root);
    writeFileSync(repo.path(".git", "HEAD"), content);
    try {
      const head = await readHead(location);
      expect(head.ok).toBe(false);
    } finally {
      writeFileSync(repo.path(".git", "HEAD"), "ref: refs/heads/main\n");
    }
  });
});

describe("readHead in a new repository and in worktrees", () => {
  let repo: GitRepo;
  let fresh: GitRepo;
  let worktree: string;
  let detached: string;
  beforeAll(() => {
    fresh = makeRepo();
    repo = makeRepo({ commit: true });
    worktree = join(repo.sandbox, "wt");
    detached = join(repo.sandbox, "wt-detached");
    repo.git("worktree", "add", "-q", "-b", "feature/wt", worktree);
    repo.gitIn(worktree, "commit", "-q", "--allow-empty", "-m", "in worktree");
    repo.git("worktree", "add", "-q", "--detach", detached, "main");
  });
  afterAll(() => {
    repo.cleanup();
    fresh.cleanup();
  });

  test("a fresh `git init` is on an unborn branch", async () => {
    const head = await headAt(fresh.root);
    expect(head).toEqual({ kind: "branch", branch: "main", unborn: true, oid: null });
    expect(head).toEqual(gitHead(fresh, fresh.root));
  });

  test("each worktree reads its own HEAD", async () => {
    expect(await headAt(worktree)).toEqual(gitHead(repo, worktree));
    expect(await headAt(worktree)).toMatchObject({ kind: "branch", branch: "feature/wt" });
    expect(await headAt(detached)).toEqual(gitHead(repo, detached));
    expect(await headAt(detached)).toMatchObject({ kind: "detached" });
    expect(await headAt(repo.root)).toEqual(gitHead(repo, repo.root));
    expect(await headAt(repo.root)).toMatchObject({ kind: "branch", branch: "main" });
  });

  test("a worktree's branch resolves through the shared packed-refs", async () => {
    repo.git("pack-refs", "--all");
    expect(await headAt(worktree)).toEqual(gitHead(repo, worktree));
  });
});

describe("readHead with SHA-256 object ids", () => {
  let repo: GitRepo;
  beforeAll(() => {
    repo = makeRepo({ commit: true, initArgs: ["--object-format=sha256"] });
  });
  afterAll(() => repo.cleanup());

  test("branch and detached", async () => {
    const oid = repo.git("rev-parse", "HEAD");
    expect(oid).toHaveLength(64);
    expect(await headAt(repo.root)).toEqual({ kind: "branch", branch: "main", unborn: false, oid });
    repo.git("pack-refs", "--all");
    expect(await headAt(repo.root)).toEqual({ kind: "branch", branch: "main", unborn: false, oid });
    repo.git("checkout", "-q", "--detach");
    expect(await headAt(repo.root)).toEqual({ kind: "detached", oid });
  });
});

describe("HEAD read again and again (the recently-read ref cache)", () => {
  test("every checkout, commit and in-place rewrite is seen on the next read", async () => {
    const repo = makeRepo({ commit: true });
    try {
      const first = await headAt(repo.root);
      expect(first).toEqual(gitHead(repo, repo.root));
      repo.git("checkout", "-q", "-b", "aaaa");
      expect(await headAt(repo.root)).toEqual(gitHead(repo, repo.root));
      repo.commit("on aaaa");
      // The branch moved (a loose ref replaced by rename): the new commit is seen.
      expect(await headAt(repo.root)).toEqual(gitHead(repo, repo.root));
      repo.git("branch", "bbbb");
      // Same length, written in place (same inode), as an editor or a script might.
      writeFileSync(repo.path(".git", "HEAD"), "ref: refs/heads/bbbb\n");
      const after = await headAt(repo.root);
      expect(after).toEqual(gitHead(repo, repo.root));
      expect(after.kind === "branch" && after.branch).toBe("bbbb");
      // A ref rewritten in place to another commit of the same length.
      const oid = repo.git("rev-parse", "main");
      writeFileSync(repo.path(".git", "refs", "heads", "bbbb"), `${oid}\n`);
      expect(await headAt(repo.root)).toEqual({ kind: "branch", branch: "bbbb", unborn: false, oid });
    } finally {
      repo.cleanup();
    }
  });
});
