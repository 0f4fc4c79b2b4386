/**
 * Histories built to make one call's commit walks take minutes (issue #38): each must come back with
 * an answer (exact counts, or counts marked as stopped by the budget, or a warning), the rest of the
 * call still answered.
 */
import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { readdirSync, writeFileSync } from "node:fs";
import { CachedFileReader } from "../../src/fs/cached-file.ts";
import { type BranchPair, readBranchCommits } from "../../src/git/commits/branch-commits.ts";
import { discoverRepository } from "../../src/git/discover.ts";
import { ObjectStore } from "../../src/git/objects/object-store.ts";
import { type GitRepo, makeRepo } from "../support/git-repo.ts";
import {
  commitText,
  deltaChainHistory,
  objectId,
  packPerCommit,
  writeCommitGraph,
  writeLoose,
} from "../support/hostile-git.ts";

setDefaultTimeout(60_000);

const repos: GitRepo[] = [];
afterAll(() => {
  for (const repo of repos) repo.cleanup();
});

function newRepo(): GitRepo {
  const repo = makeRepo({ commit: true });
  repos.push(repo);
  return repo;
}

async function read(repo: GitRepo, pairs: BranchPair[], signal?: AbortSignal) {
  const files = new CachedFileReader();
  const found = await discoverRepository(repo.root, files);
  if (!found.ok) throw new Error(found.error.message);
  const result = await readBranchCommits(found.value, pairs, files, { signal });
  if (!result.ok) throw new Error(result.error.message);
  return result.value;
}

function setBranch(repo: GitRepo, name: string, oid: string): void {
  writeFileSync(repo.path(".git", "refs", "heads", name), `${oid}\n`);
}

describe("deep delta chains under every walked commit", () => {
  test("3,000 commits each a delta of the one before: every base is built once, counts exact", async () => {
    const repo = newRepo();
    const tip = deltaChainHistory(repo.path(".git", "objects"), 3000, Number.POSITIVE_INFINITY, 0);
    setBranch(repo, "evil", tip);
    // Without the cache of resolved bases: 4.5 million delta applications.
    const [entry] = await read(repo, [{ branch: "evil", base: "main" }]);
    expect(entry).toMatchObject({ head: { sha: tip, subject: "c2999" }, ahead: 3000, behind: 1 });
    expect(entry?.counts_limited_by).toBeUndefined();
    expect(entry?.commit_warnings).toBeUndefined();
  });

  test("chains of objects too large to keep: the budget stops the counts, the rest of the call is answered", async () => {
    const repo = newRepo();
    repo.git("branch", "feat");
    // 300 KiB commits in chains 150 deep: about 22 MiB built for each commit read.
    const tip = deltaChainHistory(repo.path(".git", "objects"), 300, 150, 300 * 1024);
    setBranch(repo, "evil", tip);
    const [evil, main, feat] = await read(repo, [
      { branch: "evil", base: "main" },
      { branch: "main", base: null },
      { branch: "feat", base: "main" },
    ]);
    expect(evil?.head?.subject).toBe("c299");
    expect(evil?.counts_limited_by).toBe("budget");
    expect(evil?.ahead).toBeLessThan(300);
    expect(main?.head?.sha).toBe(repo.git("rev-parse", "main"));
    expect(feat?.head?.sha).toBe(repo.git("rev-parse", "feat"));
  });

  test("a cancelled call stops its walk", async () => {
    const repo = newRepo();
    setBranch(repo, "evil", deltaChainHistory(repo.path(".git", "objects"), 300, 150, 300 * 1024));
    const controller = new AbortController();
    // Runs at the walk's first yield to the event loop.
    setImmediate(() => controller.abort(new Error("cancelled by the test")));
    expect(read(repo, [{ branch: "evil", base: "main" }], controller.signal)).rejects.toThrow("cancelled by the test");
  });
});

describe("thousands of packs (issue #47.3)", () => {
  test.skipIf(process.platform !== "linux")(
    "500 one-commit packs: every commit read, at most 64 descriptors open while the store is",
    () => {
      const repo = newRepo();
      const main = repo.git("rev-parse", "HEAD");
      const tip = packPerCommit(repo.path(".git", "objects"), 500, main);
      const before = readdirSync("/proc/self/fd").length;
      using store = ObjectStore.open(repo.path(".git", "objects"), [repo.root], true);
      const walked: string[] = [];
      for (let oid = tip; oid !== main; oid = store.readCommit(oid).parents[0] as string) walked.push(oid);
      expect(walked).toHaveLength(500);
      expect(store.readCommit(tip).subject).toBe("p499");
      // Two files a pack: 1,000 descriptors when every pack stays open.
      expect(readdirSync("/proc/self/fd").length - before).toBeLessThanOrEqual(64 + 2);
      expect(store.notes).toEqual([]);
    },
  );

  test("30 broken packs are five notes and a count in the branch's warnings", async () => {
    const repo = newRepo();
    for (let i = 0; i < 30; i++) {
      const broken = repo.path(".git", "objects", "pack", `pack-${String(i).padStart(40, "e")}`);
      writeFileSync(`${broken}.idx`, "not an index");
      writeFileSync(`${broken}.pack`, "not a pack");
    }
    const [main] = await read(repo, [{ branch: "main", base: null }]);
    expect(main?.commit_warnings).toHaveLength(6);
    expect(main?.commit_warnings?.[0]).toContain("is truncated");
    expect(main?.commit_warnings?.at(-1)).toBe("25 more object files not read");
  });
});

describe("a commit-graph whose commits share one 100,000-entry octopus edge list", () => {
  test("a commit past 256 parents is that branch's warning", async () => {
    const repo = newRepo();
    const main = repo.git("rev-parse", "main");
    const tip = writeLoose(repo.path(".git", "objects"), "commit", commitText({ parents: [main], message: "octopus" }));
    const fakes = Array.from({ length: 2000 }, (_, i) => objectId("commit", Buffer.from(`fake ${i}`)));
    const oids = [...fakes, tip].sort();
    const commits = oids.map((oid) => ({ oid, parents: [0], octopus: 0, generation: 2, time: 1_700_000_000 }));
    const edges = Array.from({ length: 100_000 }, (_, i) => i % oids.length);
    edges[edges.length - 1] = ((edges.at(-1) as number) | 0x80000000) >>> 0;
    writeCommitGraph(repo.path(".git", "objects"), commits, edges);
    setBranch(repo, "evil", tip);
    const [entry, mainEntry] = await read(repo, [
      { branch: "evil", base: "main" },
      { branch: "main", base: null },
    ]);
    expect(entry?.head?.subject).toBe("octopus");
    expect(entry?.ahead).toBeUndefined();
    expect(entry?.commit_warnings?.join("\n")).toContain("more than 256 parents");
    expect(mainEntry?.head?.sha).toBe(main);
  });
});

describe("commits with megabytes of extra header lines", () => {
  test("headers after the committer are never parsed: 40 commits of 1 MiB headers count exactly", async () => {
    const repo = newRepo();
    const objects = repo.path(".git", "objects");
    const extraHeaders = "x\n".repeat(512 * 1024);
    let tip = repo.git("rev-parse", "main");
    for (let i = 0; i < 40; i++) {
      tip = writeLoose(objects, "commit", commitText({ parents: [tip], message: `h${i}`, extraHeaders }));
    }
    setBranch(repo, "evil", tip);
    const [entry] = await read(repo, [{ branch: "evil", base: "main" }]);
    expect(entry).toMatchObject({ head: { subject: "h39" }, ahead: 40, behind: 0 });
    expect(entry?.commit_warnings).toBeUndefined();
  });

  test("over 64 KiB of headers before the committer, or over 256 parents, is a warning", async () => {
    const repo = newRepo();
    const objects = repo.path(".git", "objects");
    const main = repo.git("rev-parse", "main");
    const long = commitText({ parents: [main], message: "long" }).toString("latin1");
    const padded = writeLoose(
      objects,
      "commit",
      Buffer.from(long.replace("committer ", `${"x\n".repeat(40_000)}committer `), "latin1"),
    );
    const parents = Array.from({ length: 300 }, () => main);
    const octopus = writeLoose(objects, "commit", commitText({ parents, message: "octopus" }));
    for (const [name, oid] of [
      ["padded", padded],
      ["octopus", octopus],
    ] as const) {
      setBranch(repo, name, oid);
    }
    const [paddedEntry, octopusEntry] = await read(repo, [
      { branch: "padded", base: "main" },
      { branch: "octopus", base: "main" },
    ]);
    expect(paddedEntry?.commit_warnings?.join("\n")).toContain("bytes of headers before its committer");
    expect(octopusEntry?.commit_warnings?.join("\n")).toContain("more than 256 parents");
  });
});
