/**
 * How long the commit reader takes to count ahead/behind for a 10-branch stack, against git
 * itself in the same run: `bun bench/commits.ts [--commits=N] [--per-branch=N] [--behind=N] [--runs=N]`.
 *
 * The repository (made with `git fast-import`, then repacked) has a linear main of N commits; the
 * stack's first branch forks `--behind` commits below main's tip, each later branch forks from its
 * parent (every third from the middle of its parent, so that it too needs a restack), each
 * `--per-branch` commits long: by default 10,000 + 10 × 2,000 = 30,000 commits. git's side is what a
 * caller with a shell pays: `git rev-list --left-right --count parent...branch` once per pair.
 * Both are timed with and without a commit-graph; the counts must agree or the bench fails.
 * The table goes to docs/performance.md between its `bench:commits` markers.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { CachedFileReader } from "../src/fs/cached-file.ts";
import { type BranchPair, readBranchCommits } from "../src/git/commits/branch-commits.ts";
import { discoverRepository } from "../src/git/discover.ts";
import { type HistoryCommit, importHistory } from "./lib/history-gen.ts";
import { writePerformanceSection } from "./lib/performance-page.ts";
import { gitEnv } from "./lib/repo-gen.ts";
import { median } from "./lib/stats.ts";
import { formatMs, formatRatio, formatTable } from "./lib/table.ts";

const { values } = parseArgs({
  options: {
    commits: { type: "string", default: "10000" },
    "per-branch": { type: "string", default: "2000" },
    behind: { type: "string", default: "200" },
    runs: { type: "string", default: "9" },
  },
});
const COMMITS = Number(values.commits);
const BEHIND = Number(values.behind);
const RUNS = Number(values.runs);
const STACK = 10;
/** get_stack_status's counts at most this many times git's own, with a commit-graph (issue #38). */
const TARGET_RATIO = 1.5;
const PER_BRANCH = Number(values["per-branch"]);

const sandbox = realpathSync(mkdtempSync(join(tmpdir(), "twig-mcp-bench-commits-")));
const dir = join(sandbox, "repo");
const env = gitEnv(sandbox);
const git = (...args: string[]) => {
  const result = spawnSync("git", args, { cwd: dir, env, encoding: "utf8" });
  if (result.status !== 0) throw new Error(`git ${args.join(" ")}: ${result.stderr}`);
  return result.stdout.trim();
};

try {
  spawnSync("git", ["init", "-q", "-b", "main", dir], { env });
  const commits: HistoryCommit[] = [];
  const add = (parent: number | undefined) => {
    commits.push({ parents: parent === undefined ? [] : [parent], time: 1_600_000_000 + commits.length * 60 });
    return commits.length - 1;
  };
  let tip: number | undefined;
  for (let i = 0; i < COMMITS; i++) tip = add(tip);
  const refs: Record<string, number> = { main: tip as number };
  const pairs: BranchPair[] = [];
  let forkFrom = COMMITS - 1 - BEHIND;
  let previous = "main";
  for (let b = 1; b <= STACK; b++) {
    let at = forkFrom;
    const made: number[] = [];
    for (let i = 0; i < PER_BRANCH; i++) {
      at = add(at);
      made.push(at);
    }
    const name = `stack/b${b}`;
    refs[name] = at;
    pairs.push({ branch: name, base: previous });
    previous = name;
    // Every third branch forks from the middle of its parent, so it lacks its parent's last commits.
    forkFrom = b % 3 === 0 ? (made[Math.floor(PER_BRANCH / 2)] as number) : at;
  }
  const started = performance.now();
  importHistory(dir, commits, refs, env);
  git("repack", "-a", "-d", "-q");
  console.log(
    `${commits.length.toLocaleString("en-US")}-commit repository built in ${formatMs(performance.now() - started)} ms`,
  );

  const found = await discoverRepository(dir, new CachedFileReader());
  if (!found.ok) throw new Error(found.error.message);
  const repo = found.value;

  const expected = pairs.map(({ branch, base }) => {
    const [behind, ahead] = git("rev-list", "--left-right", "--count", `${base}...${branch}`).split("\t").map(Number);
    return [ahead, behind];
  });

  const measure = async (label: string) => {
    const gitTimes: number[] = [];
    const ourTimes: number[] = [];
    for (let run = 0; run < RUNS; run++) {
      let start = performance.now();
      for (const { branch, base } of pairs) git("rev-list", "--left-right", "--count", `${base}...${branch}`);
      gitTimes.push(performance.now() - start);
      start = performance.now();
      const read = await readBranchCommits(repo, pairs, new CachedFileReader());
      ourTimes.push(performance.now() - start);
      if (!read.ok) throw new Error(read.error.message);
      const counts = read.value.map((entry) => [entry.ahead, entry.behind]);
      if (JSON.stringify(counts) !== JSON.stringify(expected)) {
        throw new Error(`counts differ from git's: ${JSON.stringify(counts)} vs ${JSON.stringify(expected)}`);
      }
    }
    const [ours, theirs] = [median(ourTimes), median(gitTimes)];
    return { row: [label, formatMs(ours), formatMs(theirs), formatRatio(ours / theirs)], ratio: ours / theirs };
  };

  const plain = await measure("no commit-graph");
  git("commit-graph", "write", "--reachable");
  const graphed = await measure("commit-graph");
  const rows = [plain.row, graphed.row];
  console.log(
    `\n${STACK} pairs (${pairs.map((p) => `${p.base}...${p.branch}`).join(", ")}), ${BEHIND} commits behind at the bottom, median of ${RUNS} runs\n`,
  );
  console.log(formatTable(["ms", "twig-mcp", "git rev-list ×10", "ratio"], rows, ["left", "right", "right", "right"]));
  const pass = graphed.ratio <= TARGET_RATIO;
  const section = [
    "## Commit counts: readBranchCommits against git rev-list",
    "",
    `Written by \`bun run bench:commits\` on ${new Date().toISOString().slice(0, 10)}: a ${commits.length.toLocaleString("en-US")}-commit repository ` +
      `(main of ${COMMITS.toLocaleString("en-US")}, then ${STACK} stacked branches ${PER_BRANCH.toLocaleString("en-US")} commits apart), ` +
      `the ${STACK} pairs get_stack_status counts, read in one call, against \`git rev-list --left-right --count\` once per pair ` +
      `(a process each, as a caller with a shell pays); median of ${RUNS} runs, side by side in one run; the counts agree.`,
    "",
    "| ms | twig-mcp | git rev-list ×10 | ratio |",
    "| --- | ---: | ---: | ---: |",
    ...rows.map((row) => `| ${row.join(" | ")} |`),
    "",
    `Target with a commit-graph ≤ ${TARGET_RATIO}× git: ${formatRatio(graphed.ratio)}, ${pass ? "PASS" : "MISS"}.`,
  ].join("\n");
  writePerformanceSection("commits", section);
} finally {
  rmSync(sandbox, { recursive: true, force: true });
}
