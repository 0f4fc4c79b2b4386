import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  costsByGroup,
  MARKS_PREFIX,
  type Mark,
  packageOf,
  parseMarks,
  RUNTIME_START,
} from "../../bench/lib/module-marks.ts";
import { measureNetwork } from "../../bench/lib/network.ts";
import { type GeneratedRepo, generateRepo, gitEnv, planBranches, ROOTS } from "../../bench/lib/repo-gen.ts";
import { growthExponent, median, percentile, summarize } from "../../bench/lib/stats.ts";
import { formatBytes, formatMarkdownTable, formatMs, formatRatio, formatTable } from "../../bench/lib/table.ts";
import { outOfReach, type TargetResult, targetLines, targetSummary } from "../../bench/lib/targets.ts";
import { binaryPath } from "../support/binary.ts";

// These tests start processes (the compiled binary, git, builds); on a busy machine that takes longer than bun's 5 s default.
setDefaultTimeout(60_000);

/** The bench's pure helpers, its repository generator and floors, and its network set-up; no timings are asserted here. */

describe("stats", () => {
  test("percentile interpolates between the nearest ranks", () => {
    const sorted = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
    expect(percentile(sorted, 0)).toBe(1);
    expect(percentile(sorted, 100)).toBe(10);
    expect(percentile(sorted, 50)).toBe(5.5);
    expect(percentile(sorted, 90)).toBeCloseTo(9.1, 10);
    expect(percentile(sorted, 99)).toBeCloseTo(9.91, 10);
    expect(percentile([42], 99)).toBe(42);
    expect(percentile([], 50)).toBeNaN();
    expect(() => percentile(sorted, 101)).toThrow(RangeError);
  });

  test("summarize sorts a copy and leaves the samples alone", () => {
    const samples = [9, 1, 5, 3, 7];
    const summary = summarize(samples);
    expect(samples).toEqual([9, 1, 5, 3, 7]);
    expect(summary).toMatchObject({ n: 5, min: 1, p50: 5, max: 9, mean: 5 });
    expect(median([3, 1, 2, 10])).toBe(2.5);
  });

  test("growthExponent reads linear, sub-linear and quadratic growth", () => {
    expect(growthExponent(1_000, 5, 10_000, 50)).toBeCloseTo(1, 10);
    expect(growthExponent(1_000, 5, 10_000, 500)).toBeCloseTo(2, 10);
    expect(growthExponent(1_000, 5, 10_000, 5)).toBe(0);
  });
});

describe("table", () => {
  test("pads columns, aligns right on request, and counts box-drawing characters once", () => {
    const text = formatTable(
      ["tool", "p50"],
      [
        ["get_branch_tree", "5.11"],
        ["├── x", "0.312"],
      ],
      ["left", "right"],
    );
    expect(text.split("\n")).toEqual([
      "tool               p50",
      "---------------  -----",
      "get_branch_tree   5.11",
      "├── x            0.312",
    ]);
  });

  test("refuses a row with the wrong number of cells", () => {
    expect(() => formatTable(["a", "b"], [["1"]])).toThrow("row has 1 cells");
  });

  test("Markdown tables escape pipes and mark right-aligned columns", () => {
    expect(formatMarkdownTable(["a", "b"], [["x|y", "1"]], ["left", "right"])).toBe(
      "| a | b |\n| --- | ---: |\n| x\\|y | 1 |",
    );
  });

  test("number formats", () => {
    expect([0.1423, 3.567, 41.23, 1234.5].map(formatMs)).toEqual(["0.142", "3.57", "41.2", "1235"]);
    expect(formatMs(Number.NaN)).toBe("–");
    expect([1.066, 25.4].map(formatRatio)).toEqual(["1.07×", "25.4×"]);
    expect([812, 18626, 5 * 1024 * 1024].map(formatBytes)).toEqual(["812 B", "18.2 KB", "5.0 MB"]);
  });
});

describe("targets", () => {
  const met: TargetResult = { name: "get_current_branch p50 ≤ 1.5× floor (b) at 1000", pass: true, measured: "1.26×" };
  const missed: TargetResult = {
    name: "get_worktrees p50 ≤ 1.5× floor (b) at 1000",
    pass: false,
    measured: "1.67×",
    limit: 1.5,
  };
  const reachable: TargetResult = {
    name: "get_branch_tree p50 ≤ 2.0× floor (a) at 1000",
    pass: false,
    measured: "2.40×",
    limit: 2.0,
    floor: { ratio: 1.9, what: "floor (a) writing its 246.3 KB reply alone" },
  };
  const beyond: TargetResult = {
    name: "list_branches p50 ≤ 1.5× floor (b) at 1000",
    pass: false,
    measured: "2.25×",
    limit: 1.5,
    floor: { ratio: 1.857, what: "floor (a) writing its 245.3 KB reply alone" },
  };

  test("a miss is out of reach only when its floor alone is over the line", () => {
    expect([met, missed, reachable, beyond].map(outOfReach)).toEqual([false, false, false, true]);
    // A floor over the line cannot make a met target out of reach.
    expect(outOfReach({ ...beyond, pass: true })).toBe(false);
    expect(outOfReach({ ...beyond, limit: undefined })).toBe(false);
  });

  test("lines pad the names to one column and name the floor of an unreachable miss", () => {
    const lines = targetLines([met, beyond, missed]);
    expect(lines[0]).toBe("PASS  get_current_branch p50 ≤ 1.5× floor (b) at 1000  1.26×");
    expect(lines[1]).toBe(
      "MISS  list_branches p50 ≤ 1.5× floor (b) at 1000       2.25×; out of reach: floor (a) writing its 245.3 KB reply alone is 1.86×",
    );
    expect(lines[2]).toBe("MISS  get_worktrees p50 ≤ 1.5× floor (b) at 1000       1.67×");
    expect(targetLines([reachable])[0]?.endsWith("2.40×")).toBe(true);
  });

  test("the summary counts the misses out of reach", () => {
    expect(targetSummary([met, missed])).toBe("1 of 2 met");
    expect(targetSummary([met, missed, beyond])).toBe(
      "1 of 3 met; 1 of the 2 missed is out of reach (a floor measured in this run is over the line)",
    );
    expect(targetSummary([beyond, { ...beyond, name: "x" }])).toBe(
      "0 of 2 met; 2 of the 2 missed are out of reach (a floor measured in this run is over the line)",
    );
  });
});

describe("repository generator", () => {
  const repos: GeneratedRepo[] = [];
  afterAll(() => {
    for (const repo of repos) repo.cleanup();
  });

  const git = (repo: GeneratedRepo, ...args: string[]) => {
    const result = Bun.spawnSync(["git", ...args], { cwd: repo.root, env: gitEnv(repo.sandbox), stdout: "pipe" });
    expect(result.exitCode).toBe(0);
    return result.stdout.toString().trimEnd();
  };

  test("plans roots, chains and untracked branches", () => {
    const plans = planBranches(100);
    expect(plans).toHaveLength(100);
    expect(plans.slice(0, ROOTS.length).map((p) => p.name)).toEqual([...ROOTS]);
    expect(new Set(plans.map((p) => p.name)).size).toBe(100);
    const names = new Set(plans.map((p) => p.name));
    for (const plan of plans) for (const parent of plan.parents) expect(names.has(parent)).toBe(true);
    expect(plans.filter((p) => !p.root && !p.tracked).length).toBeGreaterThan(0);
    expect(plans.some((p) => p.parents.length > 1)).toBe(true);
    expect(() => planBranches(10)).toThrow(RangeError);
  });

  test("100 branches: git lists exactly the generated refs, packed and loose", () => {
    const repo = generateRepo({ branches: 100 });
    repos.push(repo);
    expect(repo.branches).toHaveLength(100);
    const listed = git(repo, "for-each-ref", "--format=%(refname) %(objectname)", "refs/heads/").split("\n");
    expect(listed).toEqual(repo.branches.map((name) => `refs/heads/${name} ${repo.commit}`));
    expect(git(repo, "symbolic-ref", "--short", "HEAD")).toBe(repo.current);
    expect(repo.packedRefs + repo.looseRefs).toBeGreaterThan(100);

    const packed = readFileSync(join(repo.root, ".git", "packed-refs"), "utf8")
      .trimEnd()
      .split("\n");
    expect(packed[0]).toStartWith("# pack-refs with:");
    const refs = packed.slice(1).map((line) => line.split(" ")[1] as string);
    expect(refs).toEqual([...refs].sort());
    expect(refs).toHaveLength(repo.packedRefs);
    expect(existsSync(join(repo.root, ".git", "refs", "heads", "main"))).toBe(true);

    const worktrees = git(repo, "worktree", "list", "--porcelain");
    expect(worktrees.match(/^worktree /gm)).toHaveLength(2);
  });

  test("100 branches: the twig state matches the branches", () => {
    const repo = repos[0] ?? generateRepo({ branches: 100 });
    if (repos.length === 0) repos.push(repo);
    const state = JSON.parse(readFileSync(join(repo.root, ".twig", "state.json"), "utf8"));
    const names = new Set(repo.branches);
    expect(Object.keys(state.branches).sort()).toEqual([...repo.tracked].sort());
    for (const dep of state.dependencies) {
      expect(names.has(dep.child)).toBe(true);
      expect(names.has(dep.parent)).toBe(true);
    }
    expect(state.root_branches.map((r: { branch: string }) => r.branch)).toEqual([...ROOTS]);
    expect(state.root_branches.filter((r: { is_default: boolean }) => r.is_default)).toHaveLength(1);
    expect(repo.tracked).toContain(repo.current);
    expect(repo.tracked).toContain(repo.sample);
    expect(state.worktrees).toHaveLength(2);
  });
});

describe("floor (a)", () => {
  const dir = mkdtempSync(join(tmpdir(), "twig-mcp-floor-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const bare = join(import.meta.dir, "..", "..", "bench", "floors", "bare.ts");

  async function ask(env: Record<string, string>, lines: object[]): Promise<string[]> {
    const proc = Bun.spawn([process.execPath, bare], {
      env: { ...process.env, ...env },
      stdin: "pipe",
      stdout: "pipe",
    });
    for (const line of lines) proc.stdin.write(`${JSON.stringify(line)}\n`);
    proc.stdin.end();
    const out = await new Response(proc.stdout).text();
    await proc.exited;
    return out.trimEnd().split("\n");
  }

  test("answers a tools/call with pong, or with the replayed result as it is", async () => {
    const call = { jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "ping" } };
    const [pong] = await ask({}, [call]);
    expect(JSON.parse(pong as string)).toMatchObject({ id: 7, result: { structuredContent: { pong: true } } });
    const result = '{"content":[{"type":"text","text":"└── a"}],"structuredContent":{"tree":"└── a"}}';
    writeFileSync(join(dir, "reply.json"), result);
    const replayed = await ask({ FLOOR_REPLAY_FILE: join(dir, "reply.json") }, [call, { ...call, id: "b" }]);
    expect(replayed).toEqual([
      `{"jsonrpc":"2.0","id":7,"result":${result}}`,
      `{"jsonrpc":"2.0","id":"b","result":${result}}`,
    ]);
  });
});

describe("network figures", () => {
  const home = mkdtempSync(join(tmpdir(), "twig-mcp-net-home-"));
  const outside = mkdtempSync(join(tmpdir(), "twig-mcp-net-cwd-"));
  afterAll(() => {
    rmSync(home, { recursive: true, force: true });
    rmSync(outside, { recursive: true, force: true });
  });

  // Structural, not timed: how many of a call's requests the fake GitHub had in flight at once.
  test("get_pr_status by number and from the PR's branch: the PR, then its lists, threads and base checks together", async () => {
    const latencyMs = 100;
    const figures = await measureNetwork({
      binary: await binaryPath(),
      cwd: outside,
      env: { PATH: process.env.PATH ?? "", HOME: home, XDG_CONFIG_HOME: join(home, ".config") },
      latencyMs,
      repeats: 1,
      sessions: 1,
    });
    const [byNumber, pushed] = figures.github;
    // Either way: the PR first (twig links the branch's), then together its three lists, the GraphQL thread count and
    // the base branch's head checks and statuses (whose a failure is).
    expect(byNumber?.firstRequests).toBe(7);
    expect(byNumber?.firstConcurrency).toBe(6);
    expect(pushed?.firstRequests).toBe(7);
    expect(pushed?.firstConcurrency).toBe(6);
    // Repeated: the same two rounds, and GitHub answers every GET 304 (a GraphQL POST has no ETag).
    for (const call of figures.github) {
      expect(call.maxConcurrency).toBe(6);
      expect(call.repeatRequests).toBe(7);
      expect(call.repeatNotModified).toBe(6);
    }
    expect(figures.jira.firstRequests).toBe(2);
    expect(figures.jira.repeatRequests).toBe(1);
  }, 30_000);
});

describe("module marks", () => {
  test("a file in node_modules counts for its package; any other file for itself", () => {
    expect(packageOf("/p/node_modules/zod/v3/types.js")).toBe("zod");
    expect(packageOf("/p/node_modules/@modelcontextprotocol/sdk/dist/esm/types.js")).toBe("@modelcontextprotocol/sdk");
    expect(packageOf("/p/node_modules/a/node_modules/b/index.js")).toBe("b");
    expect(packageOf("/p/src/main.ts")).toBeNull();
  });

  test("each mark is charged the time since the one before; the first interval is the runtime's", () => {
    const marks: Mark[] = [
      ["zod", 4],
      ["src/git/refs.ts", 5.5],
      ["@modelcontextprotocol/sdk", 15.5],
      ["src/git/head.ts", 16],
      ["src/main.ts", 17],
    ];
    const byDir = costsByGroup(marks, (label) => label.split("/").slice(0, 2).join("/"));
    expect(Object.fromEntries(byDir)).toEqual({
      [RUNTIME_START]: 4,
      "src/git": 2,
      "@modelcontextprotocol/sdk": 10,
      "src/main.ts": 1,
    });
    expect(parseMarks(`log line\n${MARKS_PREFIX}${JSON.stringify(marks)}\n`)).toEqual(marks);
    expect(parseMarks("no marks here\n")).toBeNull();
  });
});
