import { afterEach, describe, expect, test } from "bun:test";
import { appendFileSync, mkdirSync, renameSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { CachedFileReader } from "../../src/fs/cached-file.ts";
import { RACY_WINDOW_MS } from "../../src/fs/stamped-cache.ts";
import { discoverRepository } from "../../src/git/discover.ts";
import { discoverRepositoryCached } from "../../src/git/discovery-cache.ts";
import { type GitRepo, makeRepo } from "../support/git-repo.ts";

const repos: GitRepo[] = [];
afterEach(() => {
  for (const repo of repos.splice(0)) repo.cleanup();
});

function newRepo(): GitRepo {
  const repo = makeRepo({ commit: true });
  repos.push(repo);
  return repo;
}

/**
 * A reader whose clock runs an hour ahead, so every stamp counts as settled and the stamps alone
 * decide (a repository made a moment ago would otherwise never be answered from the cache).
 */
function settledReader(): CachedFileReader {
  return new CachedFileReader(256, () => Date.now() + 3_600_000);
}

/** The cached answer must always be the one a fresh discovery gives now. */
async function expectFresh(files: CachedFileReader, start: string) {
  const cached = await discoverRepositoryCached(start, files);
  const fresh = await discoverRepository(start, new CachedFileReader());
  expect(cached).toEqual(fresh);
  return cached;
}

describe("discoverRepositoryCached", () => {
  test("an unchanged repository is answered from the cache", async () => {
    const repo = newRepo();
    const files = settledReader();
    const first = await expectFresh(files, repo.root);
    const second = await discoverRepositoryCached(repo.root, files);
    if (!first.ok || !second.ok) throw new Error("expected a repository");
    // The same object: no new discovery ran.
    expect(second.value).toBe(first.value);
    expect(second.value.workTree).toBe(repo.root);
  });

  test("a repository changed moments ago is discovered afresh until its stamps settle", async () => {
    const repo = newRepo();
    let now = Date.now();
    const files = new CachedFileReader(256, () => now);
    const first = await expectFresh(files, repo.root);
    const second = await expectFresh(files, repo.root);
    if (!first.ok || !second.ok) throw new Error("expected a repository");
    // Written just now: the stamps could hide another change in the same clock tick.
    expect(second.value).not.toBe(first.value);
    now += RACY_WINDOW_MS + 1_000;
    const settled = await expectFresh(files, repo.root);
    const reused = await discoverRepositoryCached(repo.root, files);
    if (!settled.ok || !reused.ok) throw new Error("expected a repository");
    expect(reused.value).toBe(settled.value);
  });

  test("commits, checkouts and new branches do not change the answer", async () => {
    const repo = newRepo();
    const files = settledReader();
    await expectFresh(files, repo.root);
    repo.git("checkout", "-q", "-b", "feature/x");
    repo.commit("more");
    repo.git("pack-refs", "--all");
    await expectFresh(files, repo.root);
  });

  test("core.bare set by git config is seen", async () => {
    const repo = newRepo();
    const files = settledReader();
    await expectFresh(files, repo.root);
    repo.git("config", "core.bare", "true");
    const after = await expectFresh(files, repo.root);
    expect(after.ok).toBe(false);
  });

  test("a config edited in place (no rename) is seen", async () => {
    const repo = newRepo();
    const files = settledReader();
    await expectFresh(files, repo.root);
    const config = repo.path(".git", "config");
    writeFileSync(config, "[core]\n\trepositoryformatversion = 1\n[extensions]\n\trefStorage = reftable\n");
    const after = await expectFresh(files, repo.root);
    if (after.ok) throw new Error("expected unsupported_repo");
    expect(after.error.code).toBe("unsupported_repo");
  });

  test("a deleted .git is no_repo at once", async () => {
    const repo = newRepo();
    const files = settledReader();
    await expectFresh(files, repo.root);
    rmSync(repo.path(".git"), { recursive: true, force: true });
    const after = await expectFresh(files, repo.root);
    if (after.ok) throw new Error("expected no_repo");
    expect(after.error.code).toBe("no_repo");
  });

  test("a .git directory replaced by a gitfile points to the new git dir", async () => {
    const repo = newRepo();
    const files = settledReader();
    await expectFresh(files, repo.root);
    const moved = join(repo.sandbox, "separate.git");
    renameSync(repo.path(".git"), moved);
    writeFileSync(repo.path(".git"), `gitdir: ${moved}\n`);
    const after = await expectFresh(files, repo.root);
    if (!after.ok) throw new Error(after.error.message);
    expect(after.value.gitDir).toBe(moved);
  });

  test("a repository created below a cached start directory takes over", async () => {
    const repo = newRepo();
    const files = settledReader();
    const start = repo.path("packages", "app");
    mkdirSync(start, { recursive: true });
    const before = await expectFresh(files, start);
    if (!before.ok) throw new Error(before.error.message);
    expect(before.value.workTree).toBe(repo.root);
    repo.gitIn(repo.path("packages"), "init", "-q", "-b", "main", ".");
    const after = await expectFresh(files, start);
    if (!after.ok) throw new Error(after.error.message);
    expect(after.value.workTree).toBe(repo.path("packages"));
  });

  test("a repository deleted and re-created at the same path is discovered again", async () => {
    const repo = newRepo();
    const files = settledReader();
    const before = await expectFresh(files, repo.root);
    rmSync(repo.root, { recursive: true, force: true });
    repo.gitIn(repo.sandbox, "init", "-q", "-b", "main", "--separate-git-dir", join(repo.sandbox, "g.git"), "repo");
    const after = await expectFresh(files, repo.root);
    if (!before.ok || !after.ok) throw new Error("expected a repository");
    expect(after.value.gitDir).toBe(join(repo.sandbox, "g.git"));
  });

  test("a linked worktree, then its removal", async () => {
    const repo = newRepo();
    const files = settledReader();
    const linked = join(repo.sandbox, "linked");
    repo.git("worktree", "add", "-q", "-b", "side", linked);
    const before = await expectFresh(files, linked);
    if (!before.ok) throw new Error(before.error.message);
    expect(before.value.isLinkedWorktree).toBe(true);
    const again = await discoverRepositoryCached(linked, files);
    if (!again.ok) throw new Error(again.error.message);
    expect(again.value).toBe(before.value);
    repo.git("worktree", "remove", "--force", linked);
    const after = await expectFresh(files, linked);
    expect(after.ok).toBe(false);
  });

  test("a linked worktree whose admin dir is pruned while its directory stays", async () => {
    const repo = newRepo();
    const files = settledReader();
    const linked = join(repo.sandbox, "linked");
    repo.git("worktree", "add", "-q", "-b", "side", linked);
    await expectFresh(files, linked);
    rmSync(repo.path(".git", "worktrees", "linked"), { recursive: true, force: true });
    const after = await expectFresh(files, linked);
    expect(after.ok).toBe(false);
  });

  test("a symlinked start directory retargeted to another repository", async () => {
    const one = newRepo();
    const two = newRepo();
    const files = settledReader();
    const link = join(one.sandbox, "current");
    symlinkSync(one.root, link);
    const before = await expectFresh(files, link);
    if (!before.ok) throw new Error(before.error.message);
    expect(before.value.workTree).toBe(one.root);
    unlinkSync(link);
    symlinkSync(two.root, link);
    const after = await expectFresh(files, link);
    if (!after.ok) throw new Error(after.error.message);
    expect(after.value.workTree).toBe(two.root);
  });

  test("a core.worktree repository is answered correctly (and not cached)", async () => {
    const repo = newRepo();
    const files = settledReader();
    const elsewhere = join(repo.sandbox, "tree");
    mkdirSync(elsewhere);
    repo.git("config", "core.worktree", elsewhere);
    const first = await expectFresh(files, repo.root);
    appendFileSync(repo.path(".git", "config"), "");
    const second = await expectFresh(files, repo.root);
    if (!first.ok || !second.ok) throw new Error("expected a repository");
    expect(second.value.workTree).toBe(elsewhere);
    expect(second.value).not.toBe(first.value);
  });
});
