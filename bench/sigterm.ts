/**
 * How long the compiled server takes to end on SIGTERM while a call holds the CPU:
 * `bun bench/sigterm.ts [--runs=N]`. The target is 200 ms (issue 19.2).
 *
 * Each run starts the server on a repository whose state file is 60 MB of valid JSON, sends a
 * call that parses it, waits until the server is seen running on the CPU (Linux: the state letter
 * in /proc/<pid>/stat), sends SIGTERM, and times the exit.
 */
import { cpSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { RawServer } from "../test/hardening/support/raw-server.ts";
import { makeWorld } from "../test/hardening/support/world.ts";
import { EXAMPLE_STATE } from "../test/support/fixtures.ts";
import { median } from "./lib/stats.ts";

const TARGET_MS = 200;
const runs = Number(process.argv.find((a) => a.startsWith("--runs="))?.slice("--runs=".length) ?? 10);

function running(pid: number): boolean {
  try {
    // The state letter follows the command name in parentheses.
    return readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.startsWith("R") ?? false;
  } catch {
    return false;
  }
}

const world = makeWorld();
const busy = join(world.repo.sandbox, "busy");
cpSync(world.root, busy, { recursive: true });
writeFileSync(
  join(busy, ".twig", "state.json"),
  JSON.stringify({ ...EXAMPLE_STATE, padding: "x".repeat(60 * 1024 * 1024) }),
);
const times: number[] = [];
let caughtBusy = 0;
try {
  for (let run = 0; run < runs; run++) {
    const server = await RawServer.start({ cwd: world.root, env: world.env });
    await server.initialize();
    server.send({
      jsonrpc: "2.0",
      id: "busy",
      method: "tools/call",
      params: { name: "list_branches", arguments: { repo: busy } },
    });
    let seen = false;
    for (let i = 0; i < 2000 && !seen; i++) {
      seen = running(server.pid);
      if (!seen) await Bun.sleep(1);
    }
    if (seen) caughtBusy++;
    const started = performance.now();
    server.kill("SIGTERM");
    await server.exited;
    times.push(performance.now() - started);
    await server.close();
  }
} finally {
  world.cleanup();
}
const mid = median(times);
const worst = Math.max(...times);
console.log(
  `SIGTERM to exit while busy: median ${mid.toFixed(1)} ms, worst ${worst.toFixed(1)} ms over ${runs} runs ` +
    `(${caughtBusy} caught on the CPU); target ${TARGET_MS} ms: ${worst <= TARGET_MS ? "PASS" : "MISS"}`,
);
