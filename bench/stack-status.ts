/**
 * How long the compiled server takes to answer `stack-status` over a huge twig state:
 * `bun bench/stack-status.ts [--runs=N] [--branches=N]`. Issue 19.9 found 30 s at 500,000
 * branches; the prompt now reads a bounded number of records, so the time is mostly the first
 * parse of the file (later runs hit the file cache). Target: 5 s for the first answer, 1 s after.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { RawServer } from "../test/hardening/support/raw-server.ts";
import { makeWorld } from "../test/hardening/support/world.ts";
import { EXAMPLE_STATE } from "../test/support/fixtures.ts";
import { median } from "./lib/stats.ts";

const FIRST_TARGET_MS = 5_000;
const WARM_TARGET_MS = 1_000;
const arg = (name: string, fallback: number) =>
  Number(process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback);
const runs = arg("runs", 5);
const BRANCHES = arg("branches", 500_000);

const world = makeWorld();
const branches: Record<string, unknown> = {};
for (let i = 0; i < BRANCHES; i++) {
  branches[`feature/b${i}`] = { jira_issue: `SHOP-${i}`, github_pr: i + 1, created_at: "2025-06-01T10:00:00+00:00" };
}
writeFileSync(join(world.root, ".twig", "state.json"), JSON.stringify({ ...EXAMPLE_STATE, branches }));
const server = await RawServer.start({ cwd: world.root, env: world.env });
const times: number[] = [];
try {
  await server.initialize();
  for (let run = 0; run < runs + 1; run++) {
    const started = performance.now();
    const response = await server.request("prompts/get", { name: "stack-status" }, { timeoutMs: 120_000 });
    if (response.error) throw new Error(`stack-status failed: ${response.error.message}`);
    times.push(performance.now() - started);
  }
} finally {
  await server.close();
  world.cleanup();
}
const [first, ...warm] = times as [number, ...number[]];
const mid = median(warm);
console.log(
  `stack-status over ${BRANCHES.toLocaleString("en-US")} branches: first ${first.toFixed(0)} ms ` +
    `(target ${FIRST_TARGET_MS}), then median ${mid.toFixed(0)} ms over ${runs} runs (target ${WARM_TARGET_MS}): ` +
    `${first <= FIRST_TARGET_MS && mid <= WARM_TARGET_MS ? "PASS" : "MISS"}`,
);
