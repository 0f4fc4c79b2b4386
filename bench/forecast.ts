/**
 * How long the restack forecast takes for a 10-branch stack, against git itself in the same run:
 * `bun bench/forecast.ts [--files=N] [--commits=N] [--per-branch=N] [--behind=N] [--runs=N]`.
 *
 * The repository (made with `git fast-import`, then repacked, with a commit-graph) has N files of 20
 * lines in directories of 100, a linear main of `--commits` commits, and 10 stacked branches of
 * `--per-branch` commits (every third forks from the middle of its parent), the first forking
 * `--behind` commits below main's tip: by default 5,000 files and 10,000 + 10 × 2,000 = 30,000 commits.
 * Every commit rewrites one line of one file, so each branch shares hundreds of changed files with
 * main, and some lines conflict. Each pair is a branch and main: git's side is
 * `git merge-tree --write-tree --name-only main <branch>` once per pair (a process each, as a caller
 * with a shell pays); ours is `forecastRestack` with the same merge base, all 10 in one call. The
 * conflicted files must agree or the bench fails. The table goes to docs/performance.md between its
 * `bench:forecast` markers.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { type ForecastLink, forecastRestack, openForecastContext } from "../src/git/merge/forecast.ts";
import { writePerformanceSection } from "./lib/performance-page.ts";
import { gitEnv } from "./lib/repo-gen.ts";
import { median } from "./lib/stats.ts";
import { formatMs, formatRatio, formatTable } from "./lib/table.ts";

const { values } = parseArgs({
  options: {
    files: { type: "string", default: "5000" },
    commits: { type: "string", default: "10000" },
    "per-branch": { type: "string", default: "2000" },
    behind: { type: "string", default: "200" },
    runs: { type: "string", default: "9" },
    keep: { type: "boolean", default: false },
  },
});
const FILES = Number(values.files);
const COMMITS = Number(values.commits);
const PER_BRANCH = Number(values["per-branch"]);
const BEHIND = Number(values.behind);
const RUNS = Number(values.runs);
const STACK = 10;
const LINES = 20;
/** Issue #44: the forecast at most this many times git's own merge-tree. */
const TARGET_RATIO = 1.5;

const sandbox = realpathSync(mkdtempSync(join(tmpdir(), "twig-mcp-bench-forecast-")));
const dir = join(sandbox, "repo");
const env = gitEnv(sandbox);
const git = (...args: string[]) => {
  const result = spawnSync("git", args, { cwd: dir, env, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
  if (result.status !== 0 && result.status !== 1) throw new Error(`git ${args.join(" ")}: ${result.stderr}`);
  return result.stdout.trim();
};

/** A file's lines, shared until a branch changes them (copy on write). */
type Files = Map<number, string[]>;
const pathOf = (file: number) => `dir${Math.floor(file / 100)}/file${file % 100}.txt`;
const baseLines = (file: number) => Array.from({ length: LINES }, (_, i) => `${pathOf(file)} line ${i + 1}`);

try {
  spawnSync("git", ["init", "-q", "-b", "main", dir], { env });
  let seed = 1;
  const random = (n: number) => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed % n;
  };
  const stream: string[] = [];
  let mark = 0;
  const commit = (files: Files, from: number | undefined, label: string, all = false) => {
    mark++;
    const message = `${label} ${mark}`;
    stream.push(
      `commit refs/heads/scratch\nmark :${mark}\ncommitter Bench <b@example.com> ${1_600_000_000 + mark * 60} +0000\n`,
    );
    stream.push(`data ${message.length}\n${message}\n`, from === undefined ? "" : `from :${from}\n`);
    const write = (file: number) => {
      const data = `${(files.get(file) ?? baseLines(file)).join("\n")}\n`;
      stream.push(`M 100644 inline ${pathOf(file)}\ndata ${Buffer.byteLength(data)}\n${data}\n`);
    };
    if (all) for (let file = 0; file < FILES; file++) write(file);
    else {
      const file = random(FILES);
      const lines = [...(files.get(file) ?? baseLines(file))];
      lines[random(LINES)] = `${label} edit ${mark}`;
      files.set(file, lines);
      write(file);
    }
    stream.push("\n");
    return mark;
  };
  const mainFiles: Files = new Map();
  let tip = commit(mainFiles, undefined, "base", true);
  let fork = { mark: 0, files: new Map() as Files };
  for (let i = 1; i < COMMITS; i++) {
    tip = commit(mainFiles, tip, "main");
    if (i === COMMITS - 1 - BEHIND) fork = { mark: tip, files: new Map(mainFiles) };
  }
  const refs: Record<string, number> = { main: tip };
  const branches: string[] = [];
  for (let b = 1; b <= STACK; b++) {
    const files = new Map(fork.files);
    let at = fork.mark;
    let middle = fork;
    for (let i = 0; i < PER_BRANCH; i++) {
      at = commit(files, at, `b${b}`);
      if (i === PER_BRANCH / 2) middle = { mark: at, files: new Map(files) };
    }
    const name = `stack/b${b}`;
    refs[name] = at;
    branches.push(name);
    fork = b % 3 === 0 ? middle : { mark: at, files };
  }
  for (const [name, at] of Object.entries(refs)) stream.push(`reset refs/heads/${name}\nfrom :${at}\n\n`);
  stream.push("reset refs/heads/scratch\nfrom 0000000000000000000000000000000000000000\n\n");
  const started = performance.now();
  const imported = spawnSync("git", ["fast-import", "--quiet"], { cwd: dir, env, input: stream.join("") });
  if (imported.status !== 0) throw new Error(`git fast-import: ${imported.stderr}`);
  // The generator's strings and maps (tens of MB) would otherwise be live through every timed run.
  stream.length = 0;
  mainFiles.clear();
  fork = { mark: 0, files: new Map() };
  git("repack", "-a", "-d", "-q");
  git("commit-graph", "write", "--reachable");
  console.log(
    `${mark.toLocaleString("en-US")}-commit, ${FILES}-file repository built in ${formatMs(performance.now() - started)} ms`,
  );

  const mainTip = git("rev-parse", "main");
  const pairs = branches.map((branch) => ({
    branch,
    tip: git("rev-parse", branch),
    oldBase: git("merge-base", "main", branch),
  }));
  const gitAnswer = (branch: string) => {
    const [, ...rest] =
      git("merge-tree", "--write-tree", "--name-only", "main", branch).split("\n\n")[0]?.split("\n") ?? [];
    return rest.sort();
  };
  const expected = branches.map(gitAnswer);
  const ours = async (chained: boolean) => {
    using context = openForecastContext({ commonDir: join(dir, ".git"), workTree: dir });
    const links: ForecastLink[] = [];
    for (const [i, pair] of pairs.entries()) {
      const parent = links.at(-1);
      const onto = chained && parent !== undefined ? parent : mainTip;
      const oldBase = chained && i > 0 ? (pairs[i - 1]?.tip as string) : pair.oldBase;
      links.push(await forecastRestack(context, { ...pair, oldBase, onto }));
    }
    return links;
  };

  const gitTimes: number[] = [];
  const ourTimes: number[] = [];
  const chainTimes: number[] = [];
  // One untimed round first: the server is long-lived, so the forecast runs with its code compiled.
  for (let run = -1; run < RUNS; run++) {
    let start = performance.now();
    for (const branch of branches) git("merge-tree", "--write-tree", "--name-only", "main", branch);
    if (run >= 0) gitTimes.push(performance.now() - start);
    start = performance.now();
    const links = await ours(false);
    if (run >= 0) ourTimes.push(performance.now() - start);
    start = performance.now();
    await ours(true);
    if (run >= 0) chainTimes.push(performance.now() - start);
    const got = links.map((link) => link.forecast.files.map((file) => file.path).sort());
    const counts = links.map((link) => link.forecast.files.length + link.forecast.files_omitted);
    const want = expected.map((files) => files.slice(0, 20));
    if (JSON.stringify(got) !== JSON.stringify(want) || counts.some((n, i) => n !== expected[i]?.length)) {
      throw new Error(`conflicts differ from git's:\n${JSON.stringify(got)}\n${JSON.stringify(want)}`);
    }
  }
  const [mine, theirs, chain] = [median(ourTimes), median(gitTimes), median(chainTimes)];
  const ratio = mine / theirs;
  const rows = [
    ["10 pairs (branch onto main)", formatMs(mine), formatMs(theirs), formatRatio(ratio)],
    ["10 steps chained down the stack", formatMs(chain), "–", "–"],
  ];
  const conflicting = expected.filter((files) => files.length > 0).length;
  console.log(
    `\n${STACK} branches, ${conflicting} with conflicts (${expected.map((f) => f.length).join(", ")} files), median of ${RUNS} runs\n`,
  );
  console.log(
    formatTable(["ms", "twig-mcp", "git merge-tree ×10", "ratio"], rows, ["left", "right", "right", "right"]),
  );
  const pass = ratio <= TARGET_RATIO;
  const section = [
    "## Restack forecast: forecastRestack against git merge-tree",
    "",
    `Written by \`bun run bench:forecast\` on ${new Date().toISOString().slice(0, 10)}: a ${mark.toLocaleString("en-US")}-commit repository of ` +
      `${FILES.toLocaleString("en-US")} files (main of ${COMMITS.toLocaleString("en-US")} commits, then ${STACK} stacked branches of ` +
      `${PER_BRANCH.toLocaleString("en-US")}, each commit rewriting one line), each branch forecast onto main in one call, against ` +
      `\`git merge-tree --write-tree --name-only main <branch>\` once per branch (a process each); median of ${RUNS} runs after an untimed one, side by ` +
      `side in one run; the conflicted files agree (${conflicting} of ${STACK} branches conflict). The chained row forecasts each ` +
      "branch onto its parent's forecast result, as a restack of the whole stack runs; git has no equivalent.",
    "",
    "| ms | twig-mcp | git merge-tree ×10 | ratio |",
    "| --- | ---: | ---: | ---: |",
    ...rows.map((row) => `| ${row.join(" | ")} |`),
    "",
    `Target ≤ ${TARGET_RATIO}× git: ${formatRatio(ratio)}, ${pass ? "PASS" : "MISS"}.`,
  ].join("\n");
  writePerformanceSection("forecast", section);
} finally {
  if (values.keep) console.log(`kept ${dir}`);
  else rmSync(sandbox, { recursive: true, force: true });
}
