import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { deflateSync } from "node:zlib";
import {
  type ForecastLink,
  forecastRestack,
  openForecastContext,
  type RestackStep,
} from "../../../src/git/merge/forecast.ts";
import { findSquashedBase } from "../../../src/git/merge/squash-base.ts";
import { DIR_MODE, entryTree, type TreeEntry } from "../../../src/git/merge/trees.ts";
import { WorkBudget } from "../../../src/git/objects/budget.ts";
import { type GitRepo, gitEnv, makeRepo } from "../../support/git-repo.ts";

// Each case runs git a few dozen times; on a busy two-core machine that can take longer than 5 s.
setDefaultTimeout(30_000);

const repos: GitRepo[] = [];
afterAll(() => {
  for (const repo of repos) repo.cleanup();
});

const lines = (count: number, label = "line") => Array.from({ length: count }, (_, i) => `${label} ${i + 1}\n`);
const text = (all: string[], changes: Record<number, string> = {}) =>
  all.map((line, i) => changes[i + 1] ?? line).join("");

/** A repository with `base` committed on main, then `branch` (from main) and main moved by `main`. */
function scenario(
  base: Record<string, string | Buffer>,
  main: Record<string, string | Buffer | null>,
  branch: Record<string, string | Buffer | null>,
) {
  const repo = makeRepo();
  repos.push(repo);
  const apply = (files: Record<string, string | Buffer | null>, message: string) => {
    for (const [path, content] of Object.entries(files)) {
      if (content === null) rmSync(repo.path(path));
      else {
        repo.write(path, "");
        writeFileSync(repo.path(path), content);
      }
    }
    return repo.commit(message);
  };
  const old = apply(base, "base");
  repo.git("checkout", "-q", "-b", "topic");
  const tip = apply(branch, "branch");
  repo.git("checkout", "-q", "main");
  const onto = apply(main, "main");
  return { repo, old, tip, onto };
}

/** git's answer: `git rebase --onto onto old tip` in a scratch clone; the conflicted paths, sorted. */
function gitRebase(repo: GitRepo, steps: { onto: string; old: string; tip: string }[]): string[][] {
  const scratch = join(repo.sandbox, `scratch-${Math.random().toString(36).slice(2)}`);
  repo.git("clone", "-q", "--no-checkout", repo.root, scratch);
  const answers: string[][] = [];
  let previous: string | undefined;
  for (const { onto, old, tip } of steps) {
    repo.gitIn(scratch, "checkout", "-q", "--detach", tip);
    const result = Bun.spawnSync(["git", "rebase", "-q", "--onto", previous ?? onto, old], {
      cwd: scratch,
      env: gitEnv(repo.sandbox),
      stderr: "pipe",
      stdout: "pipe",
    });
    const conflicted = repo
      .gitIn(scratch, "-c", "core.quotePath=false", "diff", "--name-only", "--diff-filter=U")
      .split("\n")
      .filter(Boolean);
    answers.push(conflicted.sort());
    if (result.exitCode !== 0) {
      repo.gitIn(scratch, "rebase", "--abort");
      previous = undefined;
    } else previous = repo.gitIn(scratch, "rev-parse", "HEAD");
  }
  return answers;
}

async function forecast(repo: GitRepo, steps: Omit<RestackStep, "onto">[], onto: string, budget?: WorkBudget) {
  using context = openForecastContext({ commonDir: repo.path(".git"), workTree: repo.root }, { budget });
  const links: ForecastLink[] = [];
  for (const step of steps) links.push(await forecastRestack(context, { ...step, onto: links.at(-1) ?? onto }));
  return links;
}

async function one(s: ReturnType<typeof scenario>, budget?: WorkBudget) {
  const [link] = await forecast(s.repo, [{ branch: "topic", tip: s.tip, oldBase: s.old }], s.onto, budget);
  return link as ForecastLink;
}

/** The forecast's merged bytes at `path`, read through the in-memory tree. */
async function mergedFile(repo: GitRepo, tree: TreeEntry, path: string): Promise<string> {
  using context = openForecastContext({ commonDir: repo.path(".git"), workTree: repo.root });
  let entry: TreeEntry | undefined = tree;
  for (const name of path.split("/")) entry = entryTree(context.store, entry).get(name);
  if (entry === undefined) throw new Error(`${path} is not in the merged tree`);
  return Buffer.from(entry.data ?? context.store.readObject(entry.oid as string).data).toString("latin1");
}

const conflictedPaths = (link: ForecastLink) => link.forecast.files.map((file) => file.path).sort();

describe("forecastRestack against git rebase --onto", () => {
  test("changes far apart merge clean, to git's bytes", async () => {
    const s = scenario(
      { "f.txt": text(lines(10)) },
      { "f.txt": text(lines(10), { 2: "main\n" }) },
      {
        "f.txt": text(lines(10), { 8: "topic\n" }),
      },
    );
    const link = await one(s);
    expect(link.forecast.result).toBe("clean");
    expect(gitRebase(s.repo, [{ onto: s.onto, old: s.old, tip: s.tip }])).toEqual([[]]);
    expect(await mergedFile(s.repo, link.tree as TreeEntry, "f.txt")).toBe(
      text(lines(10), { 2: "main\n", 8: "topic\n" }),
    );
  });

  test("one content conflict, its lines in the branch's version", async () => {
    const s = scenario(
      { "src/café.txt": text(lines(10)) },
      { "src/café.txt": text(lines(10), { 5: "main\n" }) },
      {
        "src/café.txt": text(lines(10), { 5: "topic a\ntopic b\n" }),
      },
    );
    const link = await one(s);
    expect(link.forecast.result).toBe("conflicts");
    expect(link.forecast.files).toEqual([{ path: "src/café.txt", kind: "content", lines: [{ start: 5, end: 6 }] }]);
    expect(gitRebase(s.repo, [{ onto: s.onto, old: s.old, tip: s.tip }])).toEqual([conflictedPaths(link)]);
  });

  test("changes to adjacent lines conflict; the same change on both sides does not", async () => {
    const adjacent = scenario(
      { "f.txt": text(lines(10)) },
      { "f.txt": text(lines(10), { 4: "main\n" }) },
      {
        "f.txt": text(lines(10), { 5: "topic\n" }),
      },
    );
    expect((await one(adjacent)).forecast.result).toBe("conflicts");
    expect(gitRebase(adjacent.repo, [{ onto: adjacent.onto, old: adjacent.old, tip: adjacent.tip }])).toEqual([
      ["f.txt"],
    ]);
    const same = scenario(
      { "f.txt": text(lines(10)) },
      { "f.txt": text(lines(10), { 4: "both\n" }), "g.txt": "x\n" },
      {
        "f.txt": text(lines(10), { 4: "both\n" }),
      },
    );
    expect((await one(same)).forecast.result).toBe("clean");
    expect(gitRebase(same.repo, [{ onto: same.onto, old: same.old, tip: same.tip }])).toEqual([[]]);
  });

  test("whitespace counts, and CRLF lines are compared byte for byte", async () => {
    const crlf = (changes: Record<number, string> = {}) =>
      text(
        lines(10).map((line) => line.replace("\n", "\r\n")),
        changes,
      );
    const clean = scenario(
      { "w.txt": crlf() },
      { "w.txt": crlf({ 2: "main\r\n" }) },
      { "w.txt": crlf({ 9: "topic\r\n" }) },
    );
    const link = await one(clean);
    expect(link.forecast.result).toBe("clean");
    expect(await mergedFile(clean.repo, link.tree as TreeEntry, "w.txt")).toBe(crlf({ 2: "main\r\n", 9: "topic\r\n" }));
    // main turns line 5's CRLF into LF, the branch edits the next line: adjacent, so git conflicts.
    const endings = scenario(
      { "w.txt": crlf() },
      { "w.txt": crlf({ 5: "line 5\n" }) },
      { "w.txt": crlf({ 6: "topic\r\n" }) },
    );
    expect((await one(endings)).forecast.result).toBe("conflicts");
    expect(gitRebase(endings.repo, [{ onto: endings.onto, old: endings.old, tip: endings.tip }])).toEqual([["w.txt"]]);
  });

  test("modify/delete, add/add and binary files conflict with their kinds", async () => {
    const s = scenario(
      { "gone.txt": text(lines(5)), "bin.dat": Buffer.from([0, 1, 2, 3]) },
      { "gone.txt": null, "both.txt": "main's\n", "bin.dat": Buffer.from([0, 1, 2, 4]) },
      { "gone.txt": text(lines(5), { 3: "topic\n" }), "both.txt": "topic's\n", "bin.dat": Buffer.from([0, 1, 2, 5]) },
    );
    const link = await one(s);
    expect(link.forecast.result).toBe("conflicts");
    const kinds = Object.fromEntries(link.forecast.files.map((file) => [file.path, file.kind]));
    expect(kinds).toEqual({ "gone.txt": "modify/delete", "both.txt": "add/add", "bin.dat": "binary" });
    expect(gitRebase(s.repo, [{ onto: s.onto, old: s.old, tip: s.tip }])).toEqual([conflictedPaths(link)]);
  });

  test("a mode change on one side merges with an edit on the other", async () => {
    const s = scenario({ "run.sh": "echo\n" }, { "run.sh": "echo main\n" }, { "run.sh": "echo\n" });
    s.repo.git("checkout", "-q", "topic");
    s.repo.git("update-index", "--chmod=+x", "run.sh");
    s.repo.git("commit", "-q", "-m", "exec");
    const tip = s.repo.git("rev-parse", "HEAD");
    const link = await one({ ...s, tip });
    expect(link.forecast.result).toBe("clean");
    expect(gitRebase(s.repo, [{ onto: s.onto, old: s.old, tip }])).toEqual([[]]);
  });

  test("a rename on one side and an edit on the other is undecided, not a conflict", async () => {
    const s = scenario(
      { "old/name.txt": text(lines(20)) },
      { "old/name.txt": null, "new/name.txt": text(lines(20)) },
      {
        "old/name.txt": text(lines(20), { 10: "topic\n" }),
      },
    );
    const link = await one(s);
    expect(link.forecast.result).toBe("unknown");
    expect(link.forecast.unknown?.reason).toBe("undecided_files");
    expect(link.forecast.undecided.map((file) => file.path)).toEqual(["old/name.txt"]);
    // git follows the rename and is clean.
    expect(gitRebase(s.repo, [{ onto: s.onto, old: s.old, tip: s.tip }])).toEqual([[]]);
  });

  test("a file over 1 MiB changed on both sides is undecided", async () => {
    const big = (fill: string) => `${fill.repeat(1024 * 1024)}\n`;
    const s = scenario({ "big.txt": big("a") }, { "big.txt": big("b") }, { "big.txt": big("c") });
    const link = await one(s);
    expect(link.forecast.result).toBe("unknown");
    expect(link.forecast.undecided).toEqual([{ path: "big.txt", reason: "over 1 MiB, not merged" }]);
  });
});

describe("chained forecasts", () => {
  test("a three-level stack where only the grandchild conflicts", async () => {
    const repo = makeRepo();
    repos.push(repo);
    repo.write("shared.txt", text(lines(10)));
    const old = repo.commit("base");
    const branch = (name: string, from: string, path: string, content: string) => {
      repo.git("checkout", "-q", "-b", name, from);
      repo.write(path, content);
      return repo.commit(name);
    };
    const a = branch("a", old, "a.txt", "a\n");
    const b = branch("b", a, "b.txt", "b\n");
    const c = branch("c", b, "shared.txt", text(lines(10), { 1: "c\n" }));
    repo.git("checkout", "-q", "main");
    repo.write("shared.txt", text(lines(10), { 1: "main\n" }));
    const onto = repo.commit("main");
    const links = await forecast(
      repo,
      [
        { branch: "a", tip: a, oldBase: old },
        { branch: "b", tip: b, oldBase: a },
        { branch: "c", tip: c, oldBase: b },
      ],
      onto,
    );
    expect(links.map((link) => link.forecast.result)).toEqual(["clean", "clean", "conflicts"]);
    expect(conflictedPaths(links[2] as ForecastLink)).toEqual(["shared.txt"]);
    const steps = [
      { onto, old, tip: a },
      { onto, old: a, tip: b },
      { onto, old: b, tip: c },
    ];
    expect(gitRebase(repo, steps)).toEqual([[], [], ["shared.txt"]]);

    // A child of a conflicting step waits on it.
    using context = openForecastContext({ commonDir: repo.path(".git"), workTree: repo.root });
    repo.git("checkout", "-q", "-b", "d", c);
    repo.write("d.txt", "d\n");
    const d = repo.commit("d");
    const child = await forecastRestack(context, { branch: "d", tip: d, oldBase: c, onto: links[2] as ForecastLink });
    expect(child.forecast.unknown).toEqual({ reason: "waits_on_parent", message: "waits on c's conflicts" });
  });
});

describe("a squash-merged parent", () => {
  /** main ← parent (its commits) ← child (one commit); the parent squash-merged into main and deleted. */
  function squashed(parentCommits: number) {
    const repo = makeRepo();
    repos.push(repo);
    repo.write("app.txt", text(lines(10)));
    repo.commit("base");
    repo.git("checkout", "-q", "-b", "parent");
    const parent: string[] = [];
    for (let i = 1; i <= parentCommits; i++) {
      repo.write(`parent-${i}.txt`, `${i}\n`);
      repo.write(
        "app.txt",
        text(lines(10), Object.fromEntries(Array.from({ length: i }, (_, j) => [j + 1, `p${j + 1}\n`]))),
      );
      parent.push(repo.commit(`parent ${i}`));
    }
    repo.git("checkout", "-q", "-b", "child");
    repo.write("app.txt", text(lines(10), { 1: "p1\n", 9: "child\n" }));
    const tip = repo.commit("child");
    repo.git("checkout", "-q", "main");
    repo.write("other.txt", "main moved\n");
    repo.commit("unrelated");
    repo.git("merge", "-q", "--squash", "parent");
    repo.git("commit", "-q", "-m", "parent (#1)");
    repo.write("later.txt", "later\n");
    const onto = repo.commit("later");
    repo.git("branch", "-q", "-D", "parent");
    return { repo, parent, tip, onto };
  }

  for (const count of [1, 3]) {
    test(`the old base is found by content (a squash of ${count}), and the parent's commits are dropped`, async () => {
      const { repo, parent, tip, onto } = squashed(count);
      using context = openForecastContext({ commonDir: repo.path(".git"), workTree: repo.root });
      const oldBase = await findSquashedBase(context, { branchTip: tip, newBase: onto });
      expect(oldBase).toBe(parent.at(-1) as string);
      const link = await forecastRestack(context, { branch: "child", tip, oldBase: oldBase as string, onto });
      expect(link.forecast.result).toBe(
        gitRebase(repo, [{ onto, old: oldBase as string, tip }])[0]?.length ? "conflicts" : "clean",
      );
      expect(link.forecast.dropped).toEqual(parent.toReversed());
      expect(link.forecast.dropped_omitted).toBe(0);
    });
  }

  test("no squash on the new base: no old base", async () => {
    const { repo, tip } = squashed(2);
    repo.git("checkout", "-q", "-b", "bare-main", "main~3");
    const onto = repo.commit("nothing squashed");
    using context = openForecastContext({ commonDir: repo.path(".git"), workTree: repo.root });
    expect(await findSquashedBase(context, { branchTip: tip, newBase: onto })).toBeUndefined();
  });
});

describe("bounded on a hostile repository", () => {
  test("deep trees and long delta chains stop at the call's budget with `unknown`", async () => {
    const repo = makeRepo();
    repos.push(repo);
    const deep = Array.from({ length: 200 }, (_, i) => `d${i}`).join("/");
    repo.write(`${deep}/f.txt`, text(lines(50)));
    repo.write("chain.txt", text(lines(400)));
    const old = repo.commit("base");
    // Many versions of one file, repacked as one long delta chain.
    for (let i = 0; i < 60; i++) {
      repo.write("chain.txt", text(lines(400), { [i + 1]: `v${i}\n` }));
      repo.commit(`v${i}`);
    }
    repo.write(`${deep}/f.txt`, text(lines(50), { 1: "main\n" }));
    const onto = repo.commit("main");
    repo.git("checkout", "-q", "-b", "topic", old);
    repo.write(`${deep}/f.txt`, text(lines(50), { 50: "topic\n" }));
    repo.write("chain.txt", text(lines(400), { 200: "topic\n" }));
    const tip = repo.commit("topic");
    repo.git("repack", "-a", "-d", "-q", "--depth=4095", "--window=250");
    const s = { repo, old, tip, onto };

    const ample = await one(s);
    expect(ample.forecast.result).toBe("clean");
    expect(gitRebase(repo, [{ onto, old, tip }])).toEqual([[]]);

    const tight = new WorkBudget({ inflatedBytes: 4096, deltaApplications: 1_000_000, parentEdges: 4_000_000 });
    const spent = await one(s, tight);
    expect(spent.forecast.unknown?.reason).toBe("budget");
    // It stopped close to the limit: one object past it at most.
    expect(tight.inflatedBytes).toBeLessThan(4096 + 64 * 1024);
  });

  /**
   * A commit whose tree names one subtree twice at each of `depth` levels: 2^depth paths from `depth` trees. `leaf`
   * is the bottom directory's entries, as `git mktree` reads them.
   */
  function dagCommit(repo: GitRepo, leaf: (blob: string) => string, content: string, parent?: string) {
    const git = (args: string[], input: string) => {
      const run = Bun.spawnSync(["git", ...args], {
        cwd: repo.root,
        env: gitEnv(repo.sandbox),
        stdin: Buffer.from(input),
      });
      if (run.exitCode !== 0) throw new Error(run.stderr.toString());
      return run.stdout.toString().trim();
    };
    let tree = git(["mktree"], leaf(git(["hash-object", "-w", "--stdin"], content)));
    for (let level = 0; level < 40; level++) tree = git(["mktree"], `040000 tree ${tree}\ta\n040000 tree ${tree}\tb\n`);
    return repo.git("commit-tree", tree, "-m", content.trim(), ...(parent === undefined ? [] : ["-p", parent]));
  }
  const twoFiles = (blob: string) => `100644 blob ${blob}\tx\n100644 blob ${blob}\ty\n`;
  const budgetOf = (treeEntries: number) => new WorkBudget({ treeEntries });

  test("a tree of 2^40 paths, changed on both sides, stops at the call's budget with `unknown`", async () => {
    const repo = makeRepo();
    repos.push(repo);
    const old = dagCommit(repo, twoFiles, "base\n");
    // Every file changed on both sides: a content conflict at each path; deleted on one: a modify/delete at each.
    const onto = dagCommit(repo, twoFiles, "main\n", old);
    for (const theirs of [twoFiles, (blob: string) => `100644 blob ${blob}\tz\n`]) {
      const tip = dagCommit(repo, theirs, "topic\n", old);
      const budget = budgetOf(20_000);
      const [link] = await forecast(repo, [{ branch: "topic", tip, oldBase: old }], onto, budget);
      expect(link?.forecast.unknown?.reason).toBe("budget");
      // Stopped within one directory's entries of the limit.
      expect(budget.treeEntries).toBeLessThanOrEqual(20_000 + 4);
    }
  });

  test("one costly file at 2^41 paths (700 equal lines: 0.2 s a merge) stops at the budget's merge work", async () => {
    const repo = makeRepo();
    repos.push(repo);
    const equal = "x\n".repeat(700);
    const old = dagCommit(repo, twoFiles, `${equal}o\n`);
    const onto = dagCommit(repo, twoFiles, `a\n${equal}a\n`, old);
    const tip = dagCommit(repo, twoFiles, `b\n${equal}b\n`, old);
    const budget = new WorkBudget({ mergeLinePairs: 3_000_000 });
    const [link] = await forecast(repo, [{ branch: "topic", tip, oldBase: old }], onto, budget);
    expect(link?.forecast.unknown?.reason).toBe("budget");
    // 980,000 equal-line pairs and 2,105 lines a merge: stopped within one file of the limit.
    expect(budget.mergeLinePairs).toBeLessThanOrEqual(3_000_000 + 982_105);
  });

  test("the squash search stops at the budget on a new base whose commit names 2^40 paths", async () => {
    const repo = makeRepo({ commit: true });
    repos.push(repo);
    const fork = repo.git("rev-parse", "HEAD");
    repo.write("own.txt", "own\n");
    const tip = repo.commit("own");
    const newBase = dagCommit(repo, twoFiles, "main\n", fork);
    const budget = budgetOf(20_000);
    using context = openForecastContext({ commonDir: repo.path(".git"), workTree: repo.root }, { budget });
    expect(await findSquashedBase(context, { branchTip: tip, newBase })).toBeUndefined();
    expect(budget.spent).toBe(true);
    expect(budget.treeEntries).toBeLessThanOrEqual(20_000 + 4);
  });

  test("a tree stored under an id it names itself by (depth without end): `unknown`, in the merge and the squash search", async () => {
    const repo = makeRepo({ commit: true });
    repos.push(repo);
    const object = (type: string, body: Buffer, oid?: string) => {
      const raw = Buffer.concat([Buffer.from(`${type} ${body.length}\0`), body]);
      const id = oid ?? new Bun.CryptoHasher("sha1").update(raw).digest("hex");
      mkdirSync(repo.path(".git", "objects", id.slice(0, 2)), { recursive: true });
      writeFileSync(repo.path(".git", "objects", id.slice(0, 2), id.slice(2)), deflateSync(raw));
      return id;
    };
    const fork = repo.git("rev-parse", "HEAD");
    /** A commit whose tree `d` names itself, beside a file `f` of `content`. */
    const looped = (digit: string, content: string, parent: string) => {
      const [tree, blob] = [digit.repeat(40), object("blob", Buffer.from(content))];
      const entry = (mode: string, name: string, id: string) => [
        Buffer.from(`${mode} ${name}\0`),
        Buffer.from(id, "hex"),
      ];
      object("tree", Buffer.concat([...entry("40000", "d", tree), ...entry("100644", "f", blob)]), tree);
      return object(
        "commit",
        Buffer.from(`tree ${tree}\nparent ${parent}\nauthor a <a@b> 0 +0000\ncommitter a <a@b> 0 +0000\n\nx\n`),
      );
    };
    const old = looped("1", "base\n", fork);
    const [onto, tip] = [looped("2", "main\n", old), looped("3", "topic\n", old)];
    const [link] = await forecast(repo, [{ branch: "topic", tip, oldBase: old }], onto);
    expect(link?.forecast.unknown).toEqual({
      reason: "object_missing",
      message: "a tree is over 2048 directories deep",
    });
    repo.write("own.txt", "own\n");
    const own = repo.commit("own");
    using context = openForecastContext({ commonDir: repo.path(".git"), workTree: repo.root });
    expect(await findSquashedBase(context, { branchTip: own, newBase: looped("4", "main\n", fork) })).toBeUndefined();
  });

  test("a cancelled call stops", async () => {
    const s = scenario({ "f.txt": "a\n" }, { "f.txt": "b\n" }, { "f.txt": "c\n" });
    const controller = new AbortController();
    controller.abort();
    using context = openForecastContext(
      { commonDir: s.repo.path(".git"), workTree: s.repo.root },
      { signal: controller.signal },
    );
    await expect(
      forecastRestack(context, { branch: "topic", tip: s.tip, oldBase: s.old, onto: s.onto }),
    ).rejects.toThrow();
  });

  test("a missing object gives `unknown`, not a throw", async () => {
    const s = scenario({ "f.txt": "a\n" }, { "f.txt": "b\n" }, { "f.txt": "c\n" });
    const blob = s.repo.git("rev-parse", `${s.tip}:f.txt`);
    rmSync(s.repo.path(".git", "objects", blob.slice(0, 2), blob.slice(2)));
    const link = await one(s);
    expect(link.forecast.unknown?.reason).toBe("object_missing");
  });
});

test("the root entry of a forecast is a directory", async () => {
  const s = scenario({ "f.txt": "a\n" }, { "g.txt": "b\n" }, { "h.txt": "c\n" });
  const link = await one(s);
  expect(link.tree?.mode).toBe(DIR_MODE);
});
