import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { CachedFileReader } from "../../src/fs/cached-file.ts";
import { compareBytewise } from "../../src/git/bytewise.ts";
import { discoverRepository, type RepoLocation } from "../../src/git/discover.ts";
import { listLocalBranches, resolveRef } from "../../src/git/refs.ts";
import { type GitRepo, makeRepo } from "../support/git-repo.ts";

async function locate(repo: GitRepo, files: CachedFileReader): Promise<RepoLocation> {
  const found = await discoverRepository(repo.root, files);
  if (!found.ok) throw new Error(found.error.message);
  return found.value;
}

async function branches(repo: GitRepo, files = new CachedFileReader()): Promise<string[]> {
  const listed = await listLocalBranches(await locate(repo, files));
  if (!listed.ok) throw new Error(listed.error.message);
  return listed.value;
}

/** `git for-each-ref refs/heads`, in git's own (byte-wise) order. */
function gitBranches(repo: GitRepo): string[] {
  const out = repo.git("for-each-ref", "--format=%(refname)", "refs/heads");
  return out === "" ? [] : out.split("\n").map((refname) => refname.slice("refs/heads/".length));
}

const NAMES = [
  "main",
  "feature/a/b",
  "feature/a-c",
  "feature-x",
  "fix/ünïcødé",
  "日本",
  "Zeta",
  "alpha",
  "ALPHA",
  "🚀/x",
];

describe("listLocalBranches and resolveRef against git", () => {
  let repo: GitRepo;
  const files = new CachedFileReader();
  beforeAll(() => {
    repo = makeRepo({ commit: true });
  });
  afterAll(() => repo.cleanup());

  async function expectAgreement(): Promise<void> {
    const listed = await branches(repo, files);
    const expected = gitBranches(repo);
    expect(listed).toEqual(expected);
    expect([...expected].sort(compareBytewise)).toEqual(expected);
    const location = await locate(repo, files);
    for (const name of listed) {
      expect(await resolveRef(location, `refs/heads/${name}`)).toEqual({
        ok: true,
        value: repo.git("rev-parse", "--verify", `refs/heads/${name}`),
      });
    }
  }

  test("loose refs only", async () => {
    for (const name of NAMES.slice(1)) repo.git("branch", name);
    expect(await Bun.file(repo.path(".git", "packed-refs")).exists()).toBe(false);
    await expectAgreement();
    expect(await branches(repo, files)).toHaveLength(NAMES.length);
  });

  test("packed refs only", async () => {
    repo.git("pack-refs", "--all");
    expect(gitBranches(repo).length).toBe(NAMES.length);
    await expectAgreement();
  });

  test("loose overriding packed after new commits", async () => {
    repo.commit("newer main");
    repo.git("checkout", "-q", "feature/a/b");
    repo.commit("newer feature");
    repo.git("checkout", "-q", "main");
    repo.git("branch", "loose/only");
    await expectAgreement();
  });

  test("a branch deleted after packing disappears", async () => {
    repo.git("branch", "-D", "Zeta", "feature/a-c", "loose/only");
    await expectAgreement();
    expect(await branches(repo, files)).not.toContain("Zeta");
  });

  test("lock files, dotfiles and empty directories are not branches", async () => {
    writeFileSync(repo.path(".git", "refs", "heads", "main.lock"), "x");
    writeFileSync(repo.path(".git", "refs", "heads", ".DS_Store"), "x");
    mkdirSync(repo.path(".git", "refs", "heads", "empty", "dir"), { recursive: true });
    mkdirSync(repo.path(".git", "refs", "heads", ".hidden"));
    writeFileSync(repo.path(".git", "refs", "heads", ".hidden", "x"), repo.git("rev-parse", "main"));
    await expectAgreement();
  });

  test("file names that are not UTF-8 are skipped, a real U+FFFD is kept", async () => {
    repo.git("branch", "odd/\uFFFD");
    const headsDir = Buffer.from(repo.path(".git", "refs", "heads"));
    writeFileSync(
      Buffer.concat([headsDir, Buffer.from([0x2f, 0x62, 0x61, 0x64, 0xff])]),
      repo.git("rev-parse", "main"),
    );
    const listed = await branches(repo, files);
    expect(listed).toContain("odd/\uFFFD");
    expect(listed.filter((name) => name.includes("\uFFFD"))).toEqual(["odd/\uFFFD"]);
    expect(listed).toEqual(gitBranches(repo).filter((name) => !name.includes("\uFFFD") || name === "odd/\uFFFD"));
  });

  test("resolveRef: HEAD, absent refs, tags, and refused names", async () => {
    const location = await locate(repo, files);
    expect(await resolveRef(location, "HEAD")).toEqual({ ok: true, value: repo.git("rev-parse", "HEAD") });
    expect(await resolveRef(location, "refs/heads/nope")).toEqual({ ok: true, value: null });
    expect(await resolveRef(location, "refs/heads/feature")).toEqual({ ok: true, value: null });
    repo.git("tag", "-a", "-m", "t", "v1");
    expect(await resolveRef(location, "refs/tags/v1")).toEqual({
      ok: true,
      value: repo.git("rev-parse", "refs/tags/v1"),
    });
    for (const bad of ["refs/heads/../../config", "config", "../HEAD", "refs/heads/a..b", ""]) {
      const result = await resolveRef(location, bad);
      expect(result.ok ? result.value : result.error.code).toBe("invalid_params");
    }
  });

  test("a loose ref that is corrupt is an error value", async () => {
    const location = await locate(repo, files);
    writeFileSync(repo.path(".git", "refs", "heads", "corrupt"), "not an oid\n");
    const result = await resolveRef(location, "refs/heads/corrupt");
    expect(result.ok ? result.value : result.error.code).toBe("internal");
  });

  test("a loose ref that is a link to a file, not a `refs/` name, is not read through", async () => {
    const location = await locate(repo, files);
    // Another repository's branch, say: its object id must not become this repository's.
    const outside = join(repo.sandbox, "other-ref");
    writeFileSync(outside, `${"ab".repeat(20)}\n`);
    symlinkSync(outside, repo.path(".git", "refs", "heads", "linked"));
    const result = await resolveRef(location, "refs/heads/linked");
    expect(result.ok ? result.value : result.error.code).toBe("internal");
    rmSync(repo.path(".git", "refs", "heads", "linked"));
  });
});

describe("listLocalBranches edge repositories", () => {
  test("symbolic links are not followed: a linked refs/heads is an error, links inside it are skipped", async () => {
    const repo = makeRepo({ commit: true });
    try {
      const heads = repo.path(".git", "refs", "heads");
      symlinkSync(".", join(heads, "loop"));
      symlinkSync("/", join(heads, "root"));
      expect(await branches(repo)).toEqual(["main"]);
      // git itself would walk into them.
      rmSync(join(heads, "loop"));
      rmSync(join(heads, "root"));
      const outside = join(repo.sandbox, "outside");
      mkdirSync(outside);
      writeFileSync(join(outside, "secret"), "");
      repo.git("pack-refs", "--all");
      rmSync(heads, { recursive: true });
      symlinkSync(outside, heads);
      const files = new CachedFileReader();
      const listed = await listLocalBranches(await locate(repo, files));
      expect(listed.ok).toBe(false);
      if (!listed.ok) expect(listed.error.code).toBe("unsupported_repo");
    } finally {
      repo.cleanup();
    }
  });

  test("a fresh repository has no branches", async () => {
    const repo = makeRepo();
    try {
      expect(await branches(repo)).toEqual([]);
      expect(gitBranches(repo)).toEqual([]);
    } finally {
      repo.cleanup();
    }
  });

  // Writing 5,000 files and running git over them takes seconds on a busy machine.
  test("10,000 branches, half loose in nested folders, half packed, listed as git lists them", async () => {
    const repo = makeRepo({ commit: true });
    try {
      const oid = repo.git("rev-parse", "HEAD");
      const packed = ["# pack-refs with: peeled fully-peeled sorted "];
      const names: string[] = ["main"];
      for (let i = 0; i < 5000; i++) {
        const name = `packed/${i % 50}/b-${i}`;
        packed.push(`${oid} refs/heads/${name}`);
        names.push(name);
      }
      writeFileSync(repo.path(".git", "packed-refs"), `${packed.sort().join("\n")}\n`);
      for (let i = 0; i < 5000; i++) {
        const dir = repo.path(".git", "refs", "heads", "loose", String(i % 50));
        if (i < 50) mkdirSync(dir, { recursive: true });
        writeFileSync(join(dir, `b-${i}`), `${oid}\n`);
        names.push(`loose/${i % 50}/b-${i}`);
      }
      const files = new CachedFileReader();
      // How fast is the bench's business (list_branches at 10,000 branches); here, only what is listed.
      const listed = await branches(repo, files);
      expect(listed).toEqual(names.sort(compareBytewise));
      expect(listed).toEqual(gitBranches(repo));
    } finally {
      repo.cleanup();
    }
  }, 60_000);
});

describe("the listing of local branches", () => {
  test("every change git makes to the branches is seen on the next listing", async () => {
    const repo = makeRepo({ commit: true });
    try {
      const files = new CachedFileReader();
      const expectGit = async () => expect(await branches(repo, files)).toEqual(gitBranches(repo));
      await expectGit();
      repo.git("branch", "topic");
      await expectGit();
      repo.git("branch", "user/deep/nested");
      await expectGit();
      repo.git("branch", "user/deep/other");
      await expectGit();
      repo.git("branch", "-D", "user/deep/nested");
      await expectGit();
      repo.git("branch", "-m", "user/deep/other", "renamed");
      await expectGit();
      repo.git("pack-refs", "--all");
      await expectGit();
      repo.git("branch", "-D", "topic");
      await expectGit();
      repo.git("checkout", "-q", "-b", "work/item");
      repo.commit("on work/item");
      await expectGit();
      writeFileSync(repo.path(".git", "refs", "heads", "work", "by-hand"), `${repo.git("rev-parse", "HEAD")}\n`);
      await expectGit();
    } finally {
      repo.cleanup();
    }
  });
});
