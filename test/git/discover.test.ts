import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, realpathSync, symlinkSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { CachedFileReader } from "../../src/fs/cached-file.ts";
import { discoverRepository, type RepoLocation } from "../../src/git/discover.ts";
import { type GitRepo, makeRepo, makeSandbox, runGit, type Sandbox } from "../support/git-repo.ts";

const files = new CachedFileReader();

/** Where the repository is; HEAD as discovery read it is checked apart. */
async function discover(dir: string): Promise<RepoLocation> {
  const result = await discoverRepository(dir, files);
  if (!result.ok) throw new Error(`${result.error.code}: ${result.error.message}`);
  const { head: _, ...location } = result.value;
  return location;
}

async function discoverError(dir: string) {
  const result = await discoverRepository(dir, files);
  if (result.ok) throw new Error(`expected an error, found ${JSON.stringify(result.value)}`);
  return result.error;
}

/** What git itself finds from `cwd`, canonicalised. */
function gitLocation(repo: GitRepo, cwd: string): { gitDir: string; commonDir: string; workTree: string } {
  const [gitDir, commonDir, workTree] = repo
    .gitIn(cwd, "rev-parse", "--path-format=absolute", "--git-dir", "--git-common-dir", "--show-toplevel")
    .split("\n")
    .map((path) => realpathSync(path));
  return { gitDir: gitDir!, commonDir: commonDir!, workTree: workTree! };
}

describe("discoverRepository in a plain repository", () => {
  let repo: GitRepo;
  beforeAll(() => {
    repo = makeRepo({ commit: true });
    mkdirSync(repo.path("src", "deep", "er"), { recursive: true });
    mkdirSync(repo.path("vendor", "empty-dotgit", ".git"), { recursive: true });
  });
  afterAll(() => repo.cleanup());

  test("from the root", async () => {
    const found = await discover(repo.root);
    expect(found).toEqual({ ...gitLocation(repo, repo.root), isLinkedWorktree: false });
    expect(found.gitDir).toBe(join(repo.root, ".git"));
  });

  test("hands over HEAD as it read it", async () => {
    const found = await discoverRepository(repo.root, files);
    const branch = repo.git("symbolic-ref", "HEAD");
    expect(found.ok && found.value.head).toEqual({ kind: "symbolic", target: branch });
    const oid = repo.git("rev-parse", "HEAD");
    const detached = join(repo.sandbox, "detached");
    repo.git("worktree", "add", "-q", "--detach", detached, oid);
    // A linked worktree's own HEAD, not the main one's.
    const linked = await discoverRepository(detached, files);
    expect(linked.ok && linked.value.head).toEqual({ kind: "oid", oid });
  });

  test("from a nested subdirectory, and with a relative-looking path", async () => {
    const nested = repo.path("src", "deep", "er");
    expect(await discover(nested)).toEqual({ ...gitLocation(repo, nested), isLinkedWorktree: false });
    expect((await discover(`${nested}/../..`)).workTree).toBe(repo.root);
  });

  test("through a symlinked start directory", async () => {
    const link = join(repo.sandbox, "link-to-src");
    symlinkSync(repo.path("src"), link);
    const found = await discover(link);
    expect(found.workTree).toBe(repo.root);
    expect(found.gitDir).toBe(join(repo.root, ".git"));
  });

  test("a .git directory that is not a git dir is passed over, as git does", async () => {
    const dir = repo.path("vendor", "empty-dotgit");
    expect((await discover(dir)).workTree).toBe(gitLocation(repo, dir).workTree);
  });

  test("from inside the .git directory, the work tree is its parent", async () => {
    const found = await discover(repo.path(".git", "refs", "heads"));
    expect(found).toEqual({
      gitDir: join(repo.root, ".git"),
      commonDir: join(repo.root, ".git"),
      workTree: repo.root,
      isLinkedWorktree: false,
    });
  });

  test("a broken .git file stops the search with no_repo, as in git", async () => {
    const dir = repo.path("broken-gitfile");
    mkdirSync(dir);
    writeFileSync(join(dir, ".git"), "not a gitfile\n");
    expect(runGit(dir, ["rev-parse", "--git-dir"], repo.sandbox).exitCode).not.toBe(0);
    const error = await discoverError(dir);
    expect(error.code).toBe("no_repo");
    expect(error.message).toContain("gitdir: ");
  });

  test("a .git file pointing at a non-repository stops the search", async () => {
    const dir = repo.path("dangling-gitfile");
    mkdirSync(dir);
    writeFileSync(join(dir, ".git"), "gitdir: ../nowhere\n");
    expect(runGit(dir, ["rev-parse", "--git-dir"], repo.sandbox).exitCode).not.toBe(0);
    const error = await discoverError(dir);
    expect(error.code).toBe("no_repo");
    expect(error.message).toContain("not a git directory");
  });
});

describe("discoverRepository in linked worktrees, submodules and separate git dirs", () => {
  let repo: GitRepo;
  let worktree: string;
  let submodule: string;
  let separate: string;
  beforeAll(() => {
    repo = makeRepo({ commit: true });
    worktree = join(repo.sandbox, "wt");
    repo.git("worktree", "add", "-q", "-b", "wt-branch", worktree);
    mkdirSync(join(worktree, "nested"));

    const source = join(repo.sandbox, "sub-source");
    repo.gitIn(repo.sandbox, "init", "-q", "-b", "main", source);
    repo.gitIn(source, "commit", "-q", "--allow-empty", "-m", "sub");
    repo.git("-c", "protocol.file.allow=always", "submodule", "add", "-q", source, "modules/sub");
    submodule = repo.path("modules", "sub");

    separate = join(repo.sandbox, "separate");
    repo.gitIn(repo.sandbox, "init", "-q", "--separate-git-dir", join(repo.sandbox, "separate.git"), separate);
  });
  afterAll(() => repo.cleanup());

  test("a linked worktree: per-worktree git dir, shared common dir", async () => {
    for (const dir of [worktree, join(worktree, "nested")]) {
      const found = await discover(dir);
      expect(found).toEqual({ ...gitLocation(repo, dir), isLinkedWorktree: true });
      expect(found.gitDir).toBe(join(repo.root, ".git", "worktrees", "wt"));
      expect(found.commonDir).toBe(join(repo.root, ".git"));
      expect(found.workTree).toBe(worktree);
    }
  });

  test("from inside a linked worktree's admin dir, its work tree comes from the gitdir file", async () => {
    const found = await discover(join(repo.root, ".git", "worktrees", "wt"));
    expect(found).toEqual({ ...gitLocation(repo, worktree), isLinkedWorktree: true });
  });

  test("an absolute commondir works as well as git's relative one", async () => {
    const other = join(repo.sandbox, "wt-abs");
    repo.git("worktree", "add", "-q", "--detach", other);
    writeFileSync(join(repo.root, ".git", "worktrees", "wt-abs", "commondir"), `${join(repo.root, ".git")}\n`);
    expect(await discover(other)).toEqual({ ...gitLocation(repo, other), isLinkedWorktree: true });
  });

  test("a submodule's .git file (relative gitdir)", async () => {
    const found = await discover(submodule);
    expect(found).toEqual({ ...gitLocation(repo, submodule), isLinkedWorktree: false });
    expect(found.gitDir).toBe(join(repo.root, ".git", "modules", "modules", "sub"));
  });

  test("started inside a submodule's git dir, its core.worktree lies outside where it was found: refused", async () => {
    const error = await discoverError(join(repo.root, ".git", "modules", "modules", "sub"));
    expect(error.code).toBe("unsupported_repo");
    expect(error.message).toContain("core.worktree");
  });

  test("core.worktree may narrow the directory the repository was found in, never leave it", async () => {
    const dir = join(repo.sandbox, "narrowed");
    mkdirSync(join(dir, "inner"), { recursive: true });
    runGit(dir, ["init", "-q"], repo.sandbox);
    runGit(dir, ["config", "core.worktree", "../inner"], repo.sandbox);
    expect((await discover(dir)).workTree).toBe(join(dir, "inner"));
    for (const outside of ["/", "../..", "//host/share"]) {
      runGit(dir, ["config", "core.worktree", outside], repo.sandbox);
      const error = await discoverError(dir);
      expect(error.code).toBe("unsupported_repo");
    }
  });

  test("a symlinked .git directory resolves to its target", async () => {
    const dir = join(repo.sandbox, "linked-dotgit");
    mkdirSync(dir);
    symlinkSync(join(repo.sandbox, "separate.git"), join(dir, ".git"));
    const found = await discover(dir);
    expect(found).toEqual({ ...gitLocation(repo, dir), isLinkedWorktree: false });
    expect(found).toEqual({
      gitDir: join(repo.sandbox, "separate.git"),
      commonDir: join(repo.sandbox, "separate.git"),
      workTree: dir,
      isLinkedWorktree: false,
    });
  });

  test("a --separate-git-dir checkout, with the absolute path git writes and a relative one", async () => {
    expect(await discover(separate)).toEqual({ ...gitLocation(repo, separate), isLinkedWorktree: false });
    writeFileSync(join(separate, ".git"), `gitdir: ${relative(separate, join(repo.sandbox, "separate.git"))}\n`);
    const found = await discover(separate);
    expect(found).toEqual({ ...gitLocation(repo, separate), isLinkedWorktree: false });
    expect(found.gitDir).toBe(join(repo.sandbox, "separate.git"));
  });
});

describe("discoverRepository refusals", () => {
  let sandbox: Sandbox;
  let bare: GitRepo;
  beforeAll(() => {
    sandbox = makeSandbox();
    bare = makeRepo({ bare: true });
  });
  afterAll(() => {
    sandbox.cleanup();
    bare.cleanup();
  });

  test("a bare repository is no_repo, from its root and from inside it", async () => {
    expect(bare.git("rev-parse", "--is-bare-repository")).toBe("true");
    for (const dir of [bare.root, join(bare.root, "refs", "heads")]) {
      const error = await discoverError(dir);
      expect(error.code).toBe("no_repo");
      expect(error.message).toContain("is a bare repository (no working tree)");
      expect(error.hint).toBeDefined();
    }
  });

  test("a linked worktree of a bare repository is fine (core.bare describes the main worktree)", async () => {
    const source = makeRepo({ commit: true });
    try {
      bare.git("fetch", "-q", source.root, "main:main");
      const worktree = join(bare.sandbox, "bare-wt");
      bare.git("worktree", "add", "-q", worktree, "main");
      const found = await discover(worktree);
      expect(found).toEqual({ ...gitLocation(bare, worktree), isLinkedWorktree: true });
      expect(found.commonDir).toBe(bare.root);
    } finally {
      source.cleanup();
    }
  });

  test("core.bare = true in a .git directory is bare too", async () => {
    const repo = makeRepo();
    try {
      repo.git("config", "core.bare", "true");
      expect((await discoverError(repo.root)).message).toContain("bare repository");
    } finally {
      repo.cleanup();
    }
  });

  test("no repository above a directory", async () => {
    const dir = join(sandbox.dir, "plain", "dir");
    mkdirSync(dir, { recursive: true });
    expect(runGit(dir, ["rev-parse", "--git-dir"], sandbox.dir).exitCode).not.toBe(0);
    const error = await discoverError(dir);
    expect(error).toEqual({
      code: "no_repo",
      message: `No git repository found at or above ${dir}`,
      hint: "Run twig-mcp inside a git repository or pass --repo PATH.",
    });
  });

  test("a start directory that does not exist", async () => {
    const missing = join(sandbox.dir, "does", "not", "exist");
    const error = await discoverError(missing);
    expect(error.code).toBe("no_repo");
    expect(error.message).toContain(missing);
  });

  test("a start path that is a file", async () => {
    const file = join(sandbox.dir, "a-file");
    writeFileSync(file, "x");
    const error = await discoverError(file);
    expect(error.code).toBe("no_repo");
    expect(error.message).toContain(file);
  });

  test("a symlink loop ends in no_repo", async () => {
    symlinkSync(join(sandbox.dir, "loop-b"), join(sandbox.dir, "loop-a"));
    symlinkSync(join(sandbox.dir, "loop-a"), join(sandbox.dir, "loop-b"));
    const error = await discoverError(join(sandbox.dir, "loop-a"));
    expect(error.code).toBe("no_repo");
    expect(error.message).toContain("loop-a");
  });

  test("the filesystem root", async () => {
    const result = await discoverRepository("/", files);
    // `/` is not a repository on any sane test machine; what matters is that the walk ends.
    expect(result.ok ? result.value.workTree : result.error.code).toBe("no_repo");
  });

  test("reftable ref storage is unsupported_repo (key matched case-insensitively)", async () => {
    const repo = makeRepo({ commit: true });
    try {
      mkdirSync(repo.path("sub"));
      // git 2.39 predates `git init --ref-format=reftable`; the config is what marks such a repository.
      writeFileSync(
        repo.path(".git", "config"),
        "[core]\n\trepositoryformatversion = 1\n\tbare = false\n[extensions]\n\tRefStorage = reftable\n",
      );
      for (const dir of [repo.root, repo.path("sub")]) {
        const error = await discoverError(dir);
        expect(error.code).toBe("unsupported_repo");
        expect(error.message).toContain("reftable");
        expect(error.hint).toContain("git refs migrate --ref-format=files");
      }
      writeFileSync(
        repo.path(".git", "config"),
        "[core]\n\trepositoryformatversion = 1\n[extensions]\n\trefstorage = files\n",
      );
      expect((await discover(repo.root)).workTree).toBe(repo.root);
    } finally {
      repo.cleanup();
    }
  });

  test("an unknown repository format version is unsupported_repo", async () => {
    const repo = makeRepo();
    try {
      repo.git("config", "core.repositoryformatversion", "2");
      expect(repo.tryGit("status").exitCode).not.toBe(0);
      expect((await discoverError(repo.root)).code).toBe("unsupported_repo");
    } finally {
      repo.cleanup();
    }
  });
});
