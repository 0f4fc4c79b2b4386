/**
 * Where twig-mcp's start-up goes, module by module: `bun run bench:startup`.
 *
 * Builds the host binary as build.ts does, with every module
 * marking when its body has run (bench/lib/module-marks.ts), starts it repeatedly through
 * `initialize` and `tools/list` in a small repository, and prints the median cost per package and
 * per source directory. The marks add a few microseconds per module; the point is the shares.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { buildExecutable } from "./lib/build.ts";
import { costsByGroup, type Mark, moduleMarksPlugin, parseMarks, RUNTIME_START } from "./lib/module-marks.ts";
import { median } from "./lib/stats.ts";
import { StdioServer } from "./lib/stdio-rpc.ts";
import { formatMs, formatTable } from "./lib/table.ts";

const ROOT = dirname(import.meta.dir);
const ENTRY = join(ROOT, "src", "main.ts");
const runs = Number(process.argv.find((a) => a.startsWith("--runs="))?.slice("--runs=".length) ?? 20);

/** A source file's directory under src/ (`src/github`), or the package it belongs to. */
function groupOf(label: string): string {
  if (!label.startsWith("src/")) return label;
  const parts = label.split("/");
  return parts.length > 2 ? `${parts[0]}/${parts[1]}` : "src (top level)";
}

const work = mkdtempSync(join(tmpdir(), "twig-mcp-startup-"));
try {
  console.error("building the host binary with module marks…");
  const binary = join(work, "twig-mcp-marked");
  await buildExecutable(binary, { plugins: [moduleMarksPlugin(ROOT, ENTRY)] });

  // An empty repository (made by hand: no git needed) and home, as a client starting the server in a fresh project.
  const repo = join(work, "repo");
  mkdirSync(join(repo, ".git", "objects"), { recursive: true });
  mkdirSync(join(repo, ".git", "refs", "heads"), { recursive: true });
  writeFileSync(join(repo, ".git", "HEAD"), "ref: refs/heads/main\n");
  writeFileSync(join(repo, ".git", "config"), "[core]\n\trepositoryformatversion = 0\n\tbare = false\n");
  const home = join(work, "home");
  mkdirSync(home, { recursive: true });
  const env = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: home,
    USERPROFILE: home,
    XDG_CONFIG_HOME: join(home, ".config"),
    XDG_DATA_HOME: join(home, ".local", "share"),
  };

  console.error(`starting it ${runs} times…`);
  const perRun: Array<{ marks: Mark[]; initMs: number; listMs: number }> = [];
  for (let i = 0; i < runs + 1; i++) {
    const server = StdioServer.spawn("twig-mcp", [binary], { cwd: repo, env, keepStderr: true });
    const init = await server.initialize();
    const list = await server.request("tools/list");
    await server.close();
    const marks = parseMarks(server.stderr());
    if (marks === null) throw new Error(`no module marks on stderr: ${server.stderr().slice(-500)}`);
    // The first start warms the file cache; it is not counted.
    if (i > 0) perRun.push({ marks, initMs: init.at - server.spawnedAt, listMs: list.at - server.spawnedAt });
  }

  const groups = perRun.map((run) => costsByGroup(run.marks, groupOf));
  const files = perRun.map((run) => costsByGroup(run.marks, (label) => label));
  const lastMark = median(perRun.map((run) => run.marks.at(-1)?.[1] ?? Number.NaN));
  const medianOf = (maps: Map<string, number>[], key: string) => median(maps.map((m) => m.get(key) ?? 0));
  const table = (maps: Map<string, number>[], limit: number) => {
    const keys = [...new Set(maps.flatMap((m) => [...m.keys()]))];
    const rows = keys
      .map((key) => ({ key, ms: medianOf(maps, key) }))
      .sort((a, b) => b.ms - a.ms)
      .slice(0, limit);
    return formatTable(
      ["", "ms", "share"],
      rows.map(({ key, ms }) => [key, formatMs(ms), `${((ms / lastMark) * 100).toFixed(1)} %`]),
      ["left", "right", "right"],
    );
  };

  console.log(`\nStart-up by package and source directory (median of ${runs} starts, ms in the process's clock)\n`);
  console.log(table(groups, 40));
  console.log(`\nThe 15 costliest marks (a module, with any unmarked code the bundle ran just before it)\n`);
  console.log(table(files, 15));
  const ours = median(
    groups.map((g) => [...g].filter(([key]) => key.startsWith("src")).reduce((sum, [, ms]) => sum + ms, 0)),
  );
  console.log(
    `\nAll modules evaluated: ${formatMs(lastMark)} ms after the process started (${RUNTIME_START}: ` +
      `${formatMs(medianOf(groups, RUNTIME_START))} ms; twig-mcp's own modules: ${formatMs(ours)} ms). ` +
      `Spawn → initialize reply: ${formatMs(median(perRun.map((r) => r.initMs)))} ms, ` +
      `→ tools/list reply: ${formatMs(median(perRun.map((r) => r.listMs)))} ms (the driver's clock).`,
  );
} finally {
  rmSync(work, { recursive: true, force: true });
}
