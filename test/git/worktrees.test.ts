import { afterAll, afterEach, beforeAll, describe, expect, setSystemTime, test } from "bun:test";
import { mkdirSync, realpathSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { CachedFileReader } from "../../src/fs/cached-file.ts";
import { discoverRepository, type RepoLocation } from "../../src/git/discover.ts";
import { type LiveWorktree, listLinkedWorktrees, readLinkedHead } from "../../src/git/worktrees.ts";
import { type GitRepo, makeRepo } from "../support/git-repo.ts";

const files = new CachedFileReader();

async function locate(dir: string): Promise<RepoLocation> {
  const found = await discoverRepository(dir, files);
  if (!found.ok) throw new Error(found.error.message);
  return found.value;
}

type ListedWorktree = LiveWorktree & { head: Awaited<ReturnType<typeof readLinkedHead>> };

/** Each worktree with its HEAD, read as `get_worktrees` reads those twig does not record. */
async function withHeads(repo: RepoLocation, reader: CachedFileReader): Promise<ListedWorktree[]> {
  const listed = await listLinkedWorktrees(repo, reader);
  if (!listed.ok) throw new Error(listed.error.message);
  return Promise.all(listed.value.map(async (w) => ({ ...w, head: await readLinkedHead(repo, w) })));
}

const worktreesFrom = async (dir: string) => withHeads(await locate(dir), files);

interface PorcelainWorktree {
  path: string;
  head: string | null;
  branch: string | null;
  detached: boolean;
  locked: boolean;
  prunable: boolean;
}

/** `git worktree list --porcelain`, without the main worktree (always listed first). */
function gitWorktrees(repo: GitRepo): PorcelainWorktree[] {
  return repo
    .git("worktree", "list", "--porcelain")
    .split("\n\n")
    .filter((block) => block.trim() !== "")
    .slice(1)
    .map((block) => {
      const lines = block.split("\n");
      const value = (prefix: string) => lines.find((line) => line.startsWith(`${prefix} `))?.slice(prefix.length + 1);
      const has = (word: string) => lines.some((line) => line === word || line.startsWith(`${word} `));
      return {
        path: value("worktree")!,
        head: value("HEAD") ?? null,
        branch: value("branch")?.replace(/^refs\/heads\//, "") ?? null,
        detached: has("detached"),
        locked: has("locked"),
        prunable: has("prunable"),
      };
    });
}

function asPorcelain(worktree: ListedWorktree): PorcelainWorktree {
  const head = worktree.head;
  return {
    path: worktree.path,
    head: head === null ? null : head.oid,
    branch: head?.kind === "branch" ? head.branch : null,
    detached: head?.kind === "detached",
    locked: worktree.locked,
    prunable: worktree.prunable,
  };
}

describe("listLinkedWorktrees", () => {
  let repo: GitRepo;
  beforeAll(() => {
    repo = makeRepo({ commit: true });
    const at = (name: string) => join(repo.sandbox, name);
    repo.git("worktree", "add", "-q", "-b", "feature/ünï", at("wt-branch"));
    repo.git("worktree", "add", "-q", "--detach", at("wt-detached"));
    repo.git("worktree", "add", "-q", "-b", "locked-branch", at("wt-locked"));
    repo.git("worktree", "lock", "--reason", "on a USB stick", at("wt-locked"));
    repo.git("worktree", "add", "-q", "-b", "gone", at("wt-gone"));
    rmSync(at("wt-gone"), { recursive: true });
    repo.git("worktree", "add", "-q", "-b", "gone-locked", at("wt-gone-locked"));
    repo.git("worktree", "lock", at("wt-gone-locked"));
    rmSync(at("wt-gone-locked"), { recursive: true });
    repo.git("worktree", "add", "-q", "-b", "spaced", at("wt with spaces"));
  });
  afterAll(() => repo.cleanup());

  test("matches `git worktree list --porcelain`", async () => {
    const listed = await worktreesFrom(repo.root);
    const expected = gitWorktrees(repo);
    expect(expected).toHaveLength(6);
    const byPath = (a: { path: string }, b: { path: string }) => (a.path < b.path ? -1 : 1);
    expect(listed.map(asPorcelain).sort(byPath)).toEqual([...expected].sort(byPath));
  });

  test("ids, git dirs, sorting, lock and prune states", async () => {
    const listed = await worktreesFrom(repo.root);
    // git turns the directory name into the id, replacing characters such as spaces.
    expect(listed.map((w) => w.id)).toEqual([
      "wt-branch",
      "wt-detached",
      "wt-gone",
      "wt-gone-locked",
      "wt-locked",
      "wt-with-spaces",
    ]);
    for (const worktree of listed) expect(worktree.gitDir).toBe(join(repo.root, ".git", "worktrees", worktree.id));
    const state = Object.fromEntries(listed.map((w) => [w.id, [w.locked, w.prunable]]));
    expect(state).toEqual({
      "wt-branch": [false, false],
      "wt-detached": [false, false],
      "wt-gone": [false, true],
      // git never prunes a locked worktree, even when its directory is gone.
      "wt-gone-locked": [true, false],
      "wt-locked": [true, false],
      "wt-with-spaces": [false, false],
    });
    expect(listed.find((w) => w.id === "wt-with-spaces")?.path).toBe(join(repo.sandbox, "wt with spaces"));
    const branch = listed.find((w) => w.id === "wt-branch");
    expect(branch?.head).toEqual({
      kind: "branch",
      branch: "feature/ünï",
      unborn: false,
      oid: repo.git("rev-parse", "feature/ünï"),
    });
  });

  test("listed the same from inside a linked worktree", async () => {
    const fromWorktree = await worktreesFrom(join(repo.sandbox, "wt-branch"));
    expect(fromWorktree).toEqual(await worktreesFrom(repo.root));
  });

  test("paths match the worktree directories", async () => {
    for (const worktree of await worktreesFrom(repo.root)) {
      if (worktree.prunable || worktree.id === "wt-gone-locked") continue;
      expect(realpathSync(worktree.path)).toBe(worktree.path);
      expect((await locate(worktree.path)).gitDir).toBe(worktree.gitDir);
    }
  });

  test("admin dirs without a gitdir file are skipped, a relative gitdir is resolved", async () => {
    const admin = join(repo.root, ".git", "worktrees");
    mkdirSync(join(admin, "zz-no-gitdir"));
    writeFileSync(join(admin, "stray-file"), "x");
    const relative = join(admin, "wt-detached", "gitdir");
    const original = await Bun.file(relative).text();
    writeFileSync(relative, "../../../../wt-detached/.git\n");
    try {
      const listed = await worktreesFrom(repo.root);
      expect(listed.map((w) => w.id)).not.toContain("zz-no-gitdir");
      expect(listed.map((w) => w.id)).not.toContain("stray-file");
      expect(listed.find((w) => w.id === "wt-detached")?.path).toBe(join(repo.sandbox, "wt-detached"));
    } finally {
      writeFileSync(relative, original);
      rmSync(join(admin, "zz-no-gitdir"), { recursive: true });
      rmSync(join(admin, "stray-file"));
    }
  });

  test("no worktrees/ directory means none", async () => {
    const plain = makeRepo({ commit: true });
    try {
      expect(await worktreesFrom(plain.root)).toEqual([]);
    } finally {
      plain.cleanup();
    }
  });
});

describe("listLinkedWorktrees with settled stamps (what it reads is reused until it changes)", () => {
  afterEach(() => setSystemTime());

  test("every change `git worktree` makes is seen on the next listing", async () => {
    const repo = makeRepo({ commit: true });
    try {
      // An hour ahead: every stamp taken counts as settled, so only the stamps decide.
      setSystemTime(new Date(Date.now() + 3_600_000));
      const reader = new CachedFileReader();
      const location = (await discoverRepository(repo.root, reader)) as { ok: true; value: RepoLocation };
      const porcelain = async () => {
        return (await withHeads(location.value, reader)).map(asPorcelain).sort(byPath);
      };
      const byPath = (a: { path: string }, b: { path: string }) => (a.path < b.path ? -1 : 1);
      const git = () => gitWorktrees(repo).sort(byPath);
      const at = (name: string) => join(repo.sandbox, name);
      expect(await porcelain()).toEqual([]);
      repo.git("worktree", "add", "-q", "-b", "one", at("wt-one"));
      expect(await porcelain()).toEqual(git());
      repo.git("worktree", "add", "-q", "--detach", at("wt-two"));
      expect(await porcelain()).toEqual(git());
      repo.git("worktree", "lock", at("wt-one"));
      expect(await porcelain()).toEqual(git());
      repo.git("worktree", "unlock", at("wt-one"));
      repo.git("worktree", "move", at("wt-two"), at("wt-moved"));
      expect(await porcelain()).toEqual(git());
      repo.git("worktree", "remove", at("wt-one"));
      expect(await porcelain()).toEqual(git());
      expect(await porcelain()).toHaveLength(1);
    } finally {
      repo.cleanup();
    }
  });
});

describe("listLinkedWorktrees and a symlinked admin dir", () => {
  test("is listed, as git reads each entry's gitdir through the link", async () => {
    const repo = makeRepo({ commit: true });
    try {
      repo.git("worktree", "add", "-q", "-b", "linked", join(repo.sandbox, "wt-linked"));
      const admin = repo.path(".git", "worktrees", "wt-linked");
      const moved = join(repo.sandbox, "admin-elsewhere");
      renameSync(admin, moved);
      symlinkSync(moved, admin);
      const listed = await worktreesFrom(repo.root);
      // git lists it too (its HEAD through the link comes out as zeros there; the branch is right).
      const git = gitWorktrees(repo);
      expect(listed.map((worktree) => [worktree.path, asPorcelain(worktree).branch])).toEqual(
        git.map((worktree) => [worktree.path, worktree.branch]),
      );
      expect(listed.map((worktree) => worktree.id)).toEqual(["wt-linked"]);
    } finally {
      repo.cleanup();
    }
  });
});

describe("listLinkedWorktrees in a hostile clone", () => {
  test("stops at 1,000 entries in worktrees/, with a structured error naming the way out", async () => {
    const repo = makeRepo({ commit: true });
    try {
      repo.git("worktree", "add", "-q", "-b", "real", join(repo.sandbox, "wt-real"));
      // Entries without a gitdir file are skipped by git and by the listing, but each is still visited.
      for (let i = 0; i < 999; i++) mkdirSync(repo.path(".git", "worktrees", `junk-${i}`));
      expect((await worktreesFrom(repo.root)).map((w) => w.id)).toEqual(["wt-real"]);
      mkdirSync(repo.path(".git", "worktrees", "junk-999"));
      const listed = await listLinkedWorktrees(await locate(repo.root), files);
      expect(listed.ok).toBe(false);
      if (listed.ok) return;
      expect(listed.error.code).toBe("unsupported_repo");
      expect(listed.error.message).toContain("holds more than 1000 worktree entries");
      expect(listed.error.hint).toContain("git worktree prune");
    } finally {
      repo.cleanup();
    }
  });
});
