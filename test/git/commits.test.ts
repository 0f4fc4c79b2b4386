import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, rmSync, symlinkSync, truncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { deflateSync } from "node:zlib";
import fc from "fast-check";
import { importHistory } from "../../bench/lib/history-gen.ts";
import { CachedFileReader } from "../../src/fs/cached-file.ts";
import { type BranchPair, readBranchCommits } from "../../src/git/commits/branch-commits.ts";
import { discoverRepository } from "../../src/git/discover.ts";
import { copyRepo, type GitRepo, gitEnv, makeRepo } from "../support/git-repo.ts";
import { entryHeader, writePack as writeHostilePack } from "../support/hostile-git.ts";

// Each test runs git a few dozen times; on a busy two-core machine that can take longer than 5 s.
setDefaultTimeout(30_000);

const files = new CachedFileReader();
const repos: GitRepo[] = [];
afterAll(() => {
  for (const repo of repos) repo.cleanup();
});

function newRepo(options: Parameters<typeof makeRepo>[0] = {}): GitRepo {
  const repo = makeRepo(options);
  repos.push(repo);
  return repo;
}

/** `build()` runs git dozens of times: it runs once per file, and each call gets a copy to change. */
function copied(build: () => GitRepo): () => GitRepo {
  let template: GitRepo | undefined;
  return () => {
    template ??= build();
    const repo = copyRepo(template);
    repos.push(repo);
    return repo;
  };
}

async function read(dir: string, pairs: BranchPair[], limit?: number) {
  const found = await discoverRepository(dir, files);
  if (!found.ok) throw new Error(found.error.message);
  return readBranchCommits(found.value, pairs, files, { limit });
}

async function readOk(dir: string, pairs: BranchPair[], limit?: number) {
  const result = await read(dir, pairs, limit);
  if (!result.ok) throw new Error(result.error.message);
  return result.value;
}

/** git's own answer: `[ahead, behind]` of `branch` against `base`. */
function gitCounts(repo: GitRepo, base: string, branch: string, cwd = repo.root): [number, number] {
  const [behind, ahead] = repo.gitIn(cwd, "rev-list", "--left-right", "--count", `${base}...${branch}`).split("\t");
  return [Number(ahead), Number(behind)];
}

/** Every ordered pair of `branches` agrees with `git rev-list --left-right --count`. */
async function expectGitCounts(repo: GitRepo, branches: string[], cwd = repo.root) {
  const pairs = branches.flatMap((branch) => branches.map((base) => ({ branch, base })));
  const entries = await readOk(cwd, pairs);
  entries.forEach((entry, i) => {
    const { branch, base } = pairs[i] as BranchPair;
    expect({
      pair: `${base}...${branch}`,
      counts: [entry.ahead, entry.behind],
      warnings: entry.commit_warnings,
    }).toEqual({
      pair: `${base}...${branch}`,
      counts: gitCounts(repo, base as string, branch, cwd),
      warnings: undefined,
    });
    expect(entry.needs_restack).toBe((entry.behind ?? 0) > 0);
  });
}

/** main with a feature branch, a merge of it, a second feature and a branch from a merge. */
const mergedHistory = copied(() => {
  const repo = newRepo({ commit: true });
  // Long, similar messages, so that a repack stores most commits as deltas of each other.
  const body = Array.from({ length: 80 }, (_, i) => `line ${i} of a long commit message body`).join("\n");
  const commit = (subject: string) => repo.git("commit", "-q", "--allow-empty", "-m", `${subject}\n\n${body}`);
  for (let i = 0; i < 3; i++) commit(`main ${i}`);
  repo.git("checkout", "-q", "-b", "feat");
  for (let i = 0; i < 4; i++) commit(`feat ${i}`);
  repo.git("checkout", "-q", "main");
  commit("main 3");
  repo.git("merge", "-q", "--no-ff", "feat", "-m", "merge feat");
  repo.git("checkout", "-q", "-b", "feat2", "HEAD~1");
  commit("feat2 0");
  repo.git("checkout", "-q", "feat");
  commit("feat 4");
  repo.git("checkout", "-q", "-b", "after-merge", "main");
  commit("after merge");
  repo.git("checkout", "-q", "main");
  return repo;
});

const BRANCHES = ["main", "feat", "feat2", "after-merge"];

describe("readBranchCommits", () => {
  test("loose objects: head, subject, committer date, and git's counts for every pair, merges included", async () => {
    const repo = mergedHistory();
    expect(readdirSync(repo.path(".git", "objects", "pack"))).toEqual([]);
    const [entry] = await readOk(repo.root, [{ branch: "feat", base: "main" }]);
    const [sha, subject, date] = repo.git("log", "-1", "--format=%H%n%s%n%cI", "feat").split("\n");
    expect(entry?.head).toEqual({ sha: sha as string, subject: subject as string, committed_at: date as string });
    expect(entry?.base).toBe("main");
    await expectGitCounts(repo, BRANCHES);
  });

  test("packed with deltas (gc and an aggressive repack)", async () => {
    const repo = mergedHistory();
    repo.git("gc", "-q");
    repo.git("repack", "-q", "-a", "-d", "-f", "--depth=50", "--window=50");
    const pack = readdirSync(repo.path(".git", "objects", "pack")).find((name) => name.endsWith(".idx")) as string;
    const verify = repo.git("verify-pack", "-v", repo.path(".git", "objects", "pack", pack));
    // `<oid> commit <size> <packed> <offset> <depth> <base>`: some commits are deltas.
    expect(verify.split("\n").some((line) => /^[0-9a-f]{40} commit .* [0-9a-f]{40}$/.test(line))).toBe(true);
    await expectGitCounts(repo, BRANCHES);
  });

  test("with a commit-graph, single and split into layers", async () => {
    const repo = mergedHistory();
    repo.git("gc", "-q");
    repo.git("commit-graph", "write", "--reachable");
    await expectGitCounts(repo, BRANCHES);
    repo.git("checkout", "-q", "feat2");
    repo.commit("feat2 1");
    repo.git("commit-graph", "write", "--reachable", "--split=no-merge");
    repo.commit("feat2 2");
    repo.git("commit-graph", "write", "--reachable", "--split=no-merge");
    const chain = readFileSync(repo.path(".git", "objects", "info", "commit-graphs", "commit-graph-chain"), "utf8");
    expect(chain.trim().split("\n").length).toBeGreaterThanOrEqual(2);
    // One commit newer than every layer: read from its object, the rest from the graph.
    repo.commit("feat2 3");
    await expectGitCounts(repo, BRANCHES);
  });

  test("committer dates running backwards, with no graph and with graphs of generation v1 and v2", async () => {
    const repo = newRepo({ commit: true });
    const commit = (time: number, message: string) => {
      const env = { ...gitEnv(repo.sandbox), GIT_COMMITTER_DATE: `@${time} +0000` };
      const done = Bun.spawnSync(["git", "commit", "-q", "--allow-empty", "-m", message], { cwd: repo.root, env });
      if (done.exitCode !== 0) throw new Error(done.stderr.toString());
    };
    for (let i = 0; i < 5; i++) commit(1_600_000_000 + i, `main ${i}`);
    repo.git("checkout", "-q", "-b", "feat");
    // Each child older than its parent, and all older than main's commits.
    for (let i = 0; i < 6; i++) commit(1_500_000_000 - i * 1000, `feat ${i}`);
    repo.git("checkout", "-q", "main");
    for (let i = 0; i < 3; i++) commit(1_700_000_000 + i, `main again ${i}`);
    repo.git("merge", "-q", "--no-ff", "feat", "-m", "merge feat");
    repo.git("checkout", "-q", "feat");
    commit(1_000_000_000, "feat after the merge");
    await expectGitCounts(repo, ["main", "feat"]);
    for (const version of ["1", "2"]) {
      repo.git("-c", `commitGraph.generationVersion=${version}`, "commit-graph", "write", "--reachable");
      await expectGitCounts(repo, ["main", "feat"]);
    }
  });

  test("a shallow clone counts what it has, as git does, and says the counts stop at its boundary", async () => {
    const source = mergedHistory();
    const clone = join(source.sandbox, "shallow");
    source.gitIn(source.sandbox, "clone", "-q", "--depth", "2", "--no-single-branch", `file://${source.root}`, clone);
    for (const branch of BRANCHES.slice(1)) source.gitIn(clone, "branch", "-q", branch, `origin/${branch}`);
    await expectGitCounts(source, BRANCHES, clone);
    const [entry] = await readOk(clone, [{ branch: "feat2", base: "main" }]);
    expect(entry?.counts_limited_by).toBe("shallow");
  });

  test("a linked worktree reads the shared objects, its own commits included", async () => {
    const repo = mergedHistory();
    const worktree = join(repo.sandbox, "linked");
    repo.git("worktree", "add", "-q", "-b", "linked", worktree, "feat");
    repo.gitIn(worktree, "commit", "-q", "--allow-empty", "-m", "in the worktree");
    await expectGitCounts(repo, ["main", "feat", "linked"], worktree);
    const [entry] = await readOk(worktree, [{ branch: "linked", base: "feat" }]);
    expect(entry).toMatchObject({ head: { subject: "in the worktree" }, ahead: 1, behind: 0, needs_restack: false });
  });

  test("an alternate object directory outside the repository is not read", async () => {
    const source = mergedHistory();
    const clone = join(source.sandbox, "shared");
    source.gitIn(source.sandbox, "clone", "-q", "--shared", source.root, clone);
    const [entry] = await readOk(clone, [{ branch: "main", base: null }]);
    expect(entry?.head).toBeUndefined();
    expect(entry?.commit_warnings?.join("\n")).toContain("is outside the repository, not read");
  });

  test("a pack directory or loose fan-out directory that is a link out of the repository is not read", async () => {
    const source = mergedHistory();
    const oid = source.git("rev-parse", "main");
    const looseSource = mergedHistory();
    const looseOid = looseSource.git("rev-parse", "main");
    source.git("gc", "-q");
    const repo = newRepo({ commit: true });
    const objects = repo.path(".git", "objects");
    rmSync(join(objects, "pack"), { recursive: true, force: true });
    symlinkSync(source.path(".git", "objects", "pack"), join(objects, "pack"));
    symlinkSync(looseSource.path(".git", "objects", looseOid.slice(0, 2)), join(objects, looseOid.slice(0, 2)));
    for (const [name, target] of [
      ["packed", oid],
      ["loose", looseOid],
    ] as const) {
      writeFileSync(repo.path(".git", "refs", "heads", name), `${target}\n`);
      const [entry] = await readOk(repo.root, [{ branch: name, base: null }]);
      expect(entry?.head).toBeUndefined();
      expect(entry?.commit_warnings?.join("\n")).toContain("is a link");
    }
  });

  test("a commit-graph reached through a linked info directory is not used", async () => {
    const source = mergedHistory();
    source.git("commit-graph", "write", "--reachable");
    const repo = mergedHistory();
    rmSync(repo.path(".git", "objects", "info"), { recursive: true, force: true });
    symlinkSync(source.path(".git", "objects", "info"), repo.path(".git", "objects", "info"));
    const [entry] = await readOk(repo.root, [{ branch: "feat", base: "main" }]);
    expect(entry?.commit_warnings?.join("\n")).toContain("commit-graph not used");
    expect([entry?.ahead, entry?.behind]).toEqual(gitCounts(repo, "main", "feat"));
  });

  test("a missing branch and a branch without a base", async () => {
    const repo = mergedHistory();
    const [missing, alone, missingBase] = await readOk(repo.root, [
      { branch: "gone", base: "main" },
      { branch: "feat", base: null },
      { branch: "feat", base: "gone" },
    ]);
    expect(missing).toEqual({ commit_warnings: ["Branch 'gone' does not exist or has no commits"] });
    expect(alone?.head?.subject).toBe("feat 4");
    expect(alone?.ahead).toBeUndefined();
    expect(missingBase?.head?.subject).toBe("feat 4");
    expect(missingBase?.commit_warnings).toEqual(["Branch 'gone' does not exist or has no commits"]);
  });

  test("the walk stops at its limit and reports lower bounds", async () => {
    const repo = newRepo({ commit: true });
    repo.git("checkout", "-q", "-b", "long");
    for (let i = 0; i < 30; i++) repo.git("commit", "-q", "--allow-empty", "-m", `c${i}`);
    repo.git("commit-graph", "write", "--reachable");
    const [limited] = await readOk(repo.root, [{ branch: "long", base: "main" }], 10);
    expect(limited?.counts_limited_by).toBe("walk_limit");
    expect(limited?.ahead).toBeGreaterThan(0);
    expect(limited?.ahead).toBeLessThanOrEqual(30);
    const [full] = await readOk(repo.root, [{ branch: "long", base: "main" }]);
    expect(full).toMatchObject({ ahead: 30, behind: 0 });
    expect(full?.counts_limited_by).toBeUndefined();
  });

  test("a subject is one line of plain text", async () => {
    const repo = newRepo({ commit: true });
    repo.git(
      "commit",
      "-q",
      "--allow-empty",
      "--cleanup=verbatim",
      "-m",
      "\n\nfix \u001b]52;c;payload\u0007 \u202eevil\u202c\nsecond line",
    );
    const [entry] = await readOk(repo.root, [{ branch: "main", base: null }]);
    expect(entry?.head?.subject).toBe("fix ]52;c;payload \\u{202E}evil\\u{202C}");
  });

  test("a SHA-256 repository is a structured error", async () => {
    const repo = newRepo({ commit: true, initArgs: ["--object-format=sha256"] });
    const result = await read(repo.root, [{ branch: "main", base: null }]);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error.code).toBe("unsupported_repo");
  });
});

describe("hostile object stores give that branch a warning", () => {
  const writePack = (repo: GitRepo, entries: { oid: string; bytes: Uint8Array }[]) =>
    writeHostilePack(repo.path(".git", "objects"), entries);

  async function warningsFor(repo: GitRepo, oid: string): Promise<string[]> {
    writeFileSync(repo.path(".git", "refs", "heads", "evil"), `${oid}\n`);
    const [entry] = await readOk(repo.root, [{ branch: "evil", base: "main" }]);
    expect(entry?.head).toBeUndefined();
    return entry?.commit_warnings ?? [];
  }

  const A = "11".repeat(20);
  const B = "22".repeat(20);

  test("a REF_DELTA loop", async () => {
    const repo = newRepo({ commit: true });
    const delta = deflateSync(Buffer.from([5, 5, 5, 0, 1, 2, 3, 4, 5]));
    const refDelta = (base: string) => new Uint8Array([...entryHeader(7, 9), ...Buffer.from(base, "hex"), ...delta]);
    writePack(repo, [
      { oid: A, bytes: refDelta(B) },
      { oid: B, bytes: refDelta(A) },
    ]);
    expect((await warningsFor(repo, A)).join("\n")).toContain("delta loop");
  });

  test("an object declaring a huge size is refused before it is read", async () => {
    const repo = newRepo({ commit: true });
    writePack(repo, [{ oid: A, bytes: new Uint8Array([...entryHeader(1, 2 ** 40), ...deflateSync("tree x\n")]) }]);
    expect((await warningsFor(repo, A)).join("\n")).toContain("over the 4194304-byte limit");
  });

  test("a zlib bomb: a small stream that inflates far past its declared size", async () => {
    const repo = newRepo({ commit: true });
    // 64 KiB of zeros deflate to a few dozen bytes, well within what a 200-byte object may take.
    const bomb = deflateSync(Buffer.alloc(64 * 1024));
    expect(bomb.length).toBeLessThan(200);
    writePack(repo, [{ oid: A, bytes: new Uint8Array([...entryHeader(1, 200), ...bomb]) }]);
    expect((await warningsFor(repo, A)).join("\n")).toContain("not the 200 it declares");
    // A stream longer than its declared size allows is cut, and fails to inflate.
    writePack(repo, [
      { oid: A, bytes: new Uint8Array([...entryHeader(1, 10), ...deflateSync(Buffer.alloc(8 * 1024 * 1024))]) },
    ]);
    expect((await warningsFor(repo, A)).join("\n")).toContain("does not inflate");
  });

  test("an OFS_DELTA whose base lies before the pack", async () => {
    const repo = newRepo({ commit: true });
    writePack(repo, [{ oid: A, bytes: new Uint8Array([...entryHeader(6, 9), 0x7f, ...deflateSync("x")]) }]);
    expect((await warningsFor(repo, A)).join("\n")).toContain("base outside the pack");
  });

  test("a delta chain of small deltas that each rebuild a large object is refused by what it builds", async () => {
    const repo = newRepo({ commit: true });
    const size = 1024 * 1024;
    const varint = (n: number) => {
      const bytes: number[] = [];
      for (; n >= 0x80; n = Math.floor(n / 128)) bytes.push((n & 0x7f) | 0x80);
      return [...bytes, n];
    };
    // Copy the whole 1 MiB base (offset 0, size byte 2 = 0x10): 8 bytes that build 1 MiB.
    const raw = Buffer.from([...varint(size), ...varint(size), 0xc0, 0x10]);
    const delta = deflateSync(raw);
    const base = new Uint8Array([...entryHeader(1, size), ...deflateSync(Buffer.alloc(size, "a"))]);
    const entries = [{ oid: "00".repeat(20), bytes: base }];
    let previous = base.length;
    for (let i = 1; i <= 80; i++) {
      // OFS_DELTA distance, in git's encoding (each continuation byte adds one).
      let distance = previous;
      const offset = [distance & 0x7f];
      for (distance = Math.floor(distance / 128); distance > 0; distance = Math.floor(distance / 128)) {
        distance--;
        offset.unshift(0x80 | (distance & 0x7f));
      }
      const bytes = new Uint8Array([...entryHeader(6, raw.length), ...offset, ...delta]);
      entries.push({ oid: i === 80 ? A : (0x80 + i).toString(16).repeat(20), bytes });
      previous = bytes.length;
    }
    // 80 MiB built from under 3 KiB of deltas: the chain's declared delta sizes alone stay tiny.
    writePack(repo, entries);
    expect((await warningsFor(repo, A)).join("\n")).toContain("delta chain");
  });

  test("a corrupt commit-graph is passed over: counts from the objects, and a warning", async () => {
    const repo = mergedHistory();
    repo.git("commit-graph", "write", "--reachable");
    const graph = repo.path(".git", "objects", "info", "commit-graph");
    const bytes = readFileSync(graph);
    // The chunk table's second offset points far past the end of the file.
    bytes.fill(0xff, 8 + 12 + 4, 8 + 12 + 12);
    writeFileSync(graph, bytes);
    const [entry] = await readOk(repo.root, [{ branch: "feat", base: "main" }]);
    expect([entry?.ahead, entry?.behind]).toEqual(gitCounts(repo, "main", "feat"));
    expect(entry?.commit_warnings?.join("\n")).toContain("commit-graph not used");
  });

  test("a corrupt and a truncated pack of a real repository", async () => {
    const repo = mergedHistory();
    repo.git("gc", "-q");
    const dir = repo.path(".git", "objects", "pack");
    const packName = readdirSync(dir).find((name) => name.endsWith(".pack")) as string;
    const tip = repo.git("rev-parse", "feat");
    const offset = Number(
      repo
        .git("verify-pack", "-v", join(dir, packName.replace(/\.pack$/, ".idx")))
        .split("\n")
        .find((line) => line.startsWith(tip))
        ?.split(/\s+/)[4],
    );
    const bytes = readFileSync(join(dir, packName));
    // Garbage in the middle of the tip's zlib stream.
    bytes.fill(0xff, offset + 4, offset + 12);
    writeFileSync(join(dir, packName), bytes);
    const [corrupt] = await readOk(repo.root, [{ branch: "feat", base: "main" }]);
    expect(corrupt?.commit_warnings?.join("\n")).toContain("Commits of 'feat' could not be read");
    truncateSync(join(dir, packName), offset + 2);
    const [truncated] = await readOk(repo.root, [{ branch: "feat", base: "main" }]);
    expect(truncated?.commit_warnings?.join("\n")).toContain("could not be read");
  });
});

describe("property: counts equal git rev-list --left-right --count on random histories", () => {
  const history = fc
    .array(fc.tuple(fc.nat(), fc.nat(), fc.boolean(), fc.boolean()), { minLength: 1, maxLength: 40 })
    .map((raw) =>
      raw.map(([first, second, root, merge], i) => {
        if (i === 0 || (root && i % 7 === 0)) return [];
        const parents = [first % i];
        if (merge && second % i !== first % i) parents.push(second % i);
        return parents;
      }),
    );

  test(
    "with and without a commit-graph, dates rising or all equal",
    async () => {
      await fc.assert(
        fc.asyncProperty(
          history,
          fc.array(fc.tuple(fc.nat(), fc.nat()), { minLength: 1, maxLength: 4 }),
          fc.boolean(),
          fc.boolean(),
          async (parents, picks, graph, equalDates) => {
            const repo = makeRepo();
            try {
              const commits = parents.map((list, i) => ({ parents: list, time: 1_700_000_000 + (equalDates ? 0 : i) }));
              const refs: Record<string, number> = {};
              for (let i = 0; i < commits.length; i++) refs[`c${i}`] = i;
              importHistory(repo.root, commits, refs, gitEnv(repo.sandbox));
              if (graph) repo.git("commit-graph", "write", "--reachable");
              const pairs = picks.map(([a, b]) => ({
                branch: `c${a % commits.length}`,
                base: `c${b % commits.length}`,
              }));
              const entries = await readOk(repo.root, pairs);
              entries.forEach((entry, i) => {
                const { branch, base } = pairs[i] as BranchPair;
                expect([entry.ahead, entry.behind]).toEqual(gitCounts(repo, base as string, branch));
              });
            } finally {
              repo.cleanup();
            }
          },
        ),
        { numRuns: 25, interruptAfterTimeLimit: 60_000 },
      );
    },
    { timeout: 120_000 },
  );
});

describe("a branch's own commits, its upstream and its PR head", () => {
  /** main, and `feature` 25 commits ahead of it; a pushed copy of `feature` 3 commits back, plus one from elsewhere. */
  const pushedHistory = copied(() => {
    const repo = newRepo({ commit: true });
    repo.commit("main 1");
    repo.git("checkout", "-q", "-b", "feature");
    for (let i = 0; i < 25; i++) repo.commit(`feature ${i}`);
    repo.git("checkout", "-q", "-b", "pushed", "feature~3");
    repo.commit("pushed by a colleague");
    repo.git("update-ref", "refs/remotes/origin/feature", "pushed");
    repo.git("checkout", "-q", "feature");
    repo.git("branch", "-q", "-D", "pushed");
    return repo;
  });

  test("newest first, 20 listed and the rest counted, as git rev-list lists them", async () => {
    const repo = pushedHistory();
    const [entry] = await readOk(repo.root, [{ branch: "feature", base: "main" }]);
    const listed = repo.git("log", "-20", "--format=%H %s", "main..feature").split("\n");
    expect(entry?.commits?.map(({ sha, subject }) => `${sha} ${subject}`)).toEqual(listed);
    expect(entry?.commits_omitted).toBe(5);
    const [none] = await readOk(repo.root, [{ branch: "main", base: "feature" }]);
    expect(none?.commits).toBeUndefined();
    expect(none?.commits_omitted).toBeUndefined();
  });

  test("unpushed and unpulled against the upstream, loose and packed, equal git's counts", async () => {
    const repo = pushedHistory();
    const upstream = "refs/remotes/origin/feature";
    const [unpushed, unpulled] = gitCounts(repo, upstream, "feature");
    expect([unpushed, unpulled]).toEqual([3, 1]);
    const pair = { branch: "feature", base: "main", upstream };
    const [loose] = await readOk(repo.root, [pair]);
    expect(loose?.push).toEqual({ remote_ref: upstream, unpushed: 3, unpulled: 1 });
    repo.git("pack-refs", "--all");
    expect(existsSync(repo.path(".git", ...upstream.split("/")))).toBe(false);
    const [packed] = await readOk(repo.root, [pair]);
    expect(packed?.push).toEqual({ remote_ref: upstream, unpushed: 3, unpulled: 1 });
    expect(packed?.commit_warnings).toBeUndefined();
  });

  test("a branch never pushed: its remote ref is missing", async () => {
    const repo = pushedHistory();
    const [entry] = await readOk(repo.root, [
      { branch: "feature", base: "main", upstream: "refs/remotes/origin/never" },
    ]);
    expect(entry?.push).toEqual({ remote_ref: "refs/remotes/origin/never", missing: true });
    expect(entry?.commit_warnings).toBeUndefined();
    expect(entry?.ahead).toBe(25);
  });

  test("a PR head behind the local branch, one that diverged, one equal, and one not fetched", async () => {
    const repo = pushedHistory();
    const behindHead = repo.git("rev-parse", "feature~4");
    const divergedHead = repo.git("rev-parse", "refs/remotes/origin/feature");
    const tip = repo.git("rev-parse", "feature");
    const missing = "ab".repeat(20);
    const entries = await readOk(
      repo.root,
      [behindHead, divergedHead, tip, missing].map((prHead) => ({ branch: "feature", base: "main", prHead })),
    );
    const [behind, diverged, equal, absent] = entries;
    const [localAhead, localBehind] = gitCounts(repo, behindHead, "feature");
    expect(behind?.pr_head).toEqual({ sha: behindHead, local_ahead: localAhead, local_behind: localBehind });
    expect(behind?.pr_head).toMatchObject({ local_ahead: 4, local_behind: 0 });
    const [divergedAhead, divergedBehind] = gitCounts(repo, divergedHead, "feature");
    expect(diverged?.pr_head).toEqual({ sha: divergedHead, local_ahead: divergedAhead, local_behind: divergedBehind });
    expect(diverged?.pr_head).toMatchObject({ local_ahead: 3, local_behind: 1 });
    expect(equal?.pr_head).toBeUndefined();
    expect(equal?.commit_warnings).toBeUndefined();
    expect(absent?.pr_head).toBeUndefined();
    expect(absent?.commit_warnings?.join("\n")).toContain(`The PR head ${missing} is not in the local repository`);
    expect(absent?.ahead).toBe(25);
  });
});
