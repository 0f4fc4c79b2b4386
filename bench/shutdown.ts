/**
 * How fast the compiled binary shuts down: `bun bench/shutdown.ts [--runs N]`.
 *
 * The target is 200 ms from stdin EOF, SIGINT or SIGTERM to the process's exit, idle and with a
 * GitHub request hanging mid-flight. The test suite checks only that each of these ends the server
 * with its exit code and leaves no process (test/hardening/shutdown.test.ts); the time lives here,
 * where a busy machine shows up as a slow figure instead of a failed test. Prints one line per
 * case (median and slowest of N runs, PASS/MISS against the target) and one JSON line per case.
 */
import { parseArgs } from "node:util";
import { RawServer } from "../test/hardening/support/raw-server.ts";
import { makeWorld } from "../test/hardening/support/world.ts";
import { binaryPath } from "../test/support/binary.ts";
import { FakeGitHub } from "../test/support/fake-github.ts";
import { FaultProxy } from "../test/support/fault-proxy.ts";
import { median } from "./lib/stats.ts";

const TARGET_MS = 200;
const { values } = parseArgs({ options: { runs: { type: "string", default: "15" } } });
const runs = Math.max(1, Number(values.runs) || 15);

const STOPS = {
  "stdin EOF": (server: RawServer) => server.proc.stdin.end(),
  SIGINT: (server: RawServer) => server.proc.kill("SIGINT"),
  SIGTERM: (server: RawServer) => server.proc.kill("SIGTERM"),
};

await binaryPath();
const github = await FakeGitHub.start({ token: "ghp_shutdown_bench" });
github.addPull({ owner: "octo", repo: "shop", number: 43 });
const proxy = await FaultProxy.start(github.url);
proxy.add({ path: /\/pulls\/43$/, times: Number.POSITIVE_INFINITY, fault: { kind: "hang" } });
const world = makeWorld({
  GITHUB_API_URL: proxy.url,
  GH_TOKEN: "ghp_shutdown_bench",
  TWIG_MCP_HTTP_TIMEOUT_MS: "60000",
});

let missed = false;
try {
  for (const midRequest of [false, true]) {
    for (const [how, stop] of Object.entries(STOPS)) {
      const times: number[] = [];
      const codes = new Set<number>();
      for (let run = 0; run < runs; run++) {
        const server = await RawServer.start({ cwd: world.root, env: world.env });
        await server.initialize();
        await server.call("get_current_branch");
        if (midRequest) {
          const before = proxy.requests.length;
          server.send({
            jsonrpc: "2.0",
            id: "in-flight",
            method: "tools/call",
            params: { name: "get_pull_request", arguments: { pr_number: 43 } },
          });
          await proxy.until(() => proxy.requests.length > before);
        }
        const started = performance.now();
        stop(server);
        const code = await server.exited;
        times.push(performance.now() - started);
        codes.add(code);
        await server.close();
      }
      const label = `${how}, ${midRequest ? "mid-request" : "idle"}`;
      const p50 = median(times);
      const slowest = Math.max(...times);
      const pass = slowest < TARGET_MS;
      missed ||= !pass;
      console.log(
        `${label.padEnd(24)} p50 ${p50.toFixed(1).padStart(6)} ms  max ${slowest.toFixed(1).padStart(6)} ms  exit ${[...codes].join("/")}  ${pass ? "PASS" : "MISS"} (< ${TARGET_MS} ms)`,
      );
      console.log(
        JSON.stringify({
          bench: "shutdown",
          case: label,
          runs,
          p50Ms: p50,
          maxMs: slowest,
          exitCodes: [...codes],
          targetMs: TARGET_MS,
        }),
      );
    }
  }
} finally {
  await proxy.stop();
  await github.stop();
  world.cleanup();
}
process.exitCode = missed ? 1 : 0;
