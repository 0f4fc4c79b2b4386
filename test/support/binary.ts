/**
 * The compiled binary the end-to-end, build and hardening tests drive, so they test exactly what
 * users install. Built at most once per test process (plain `bun test` runs every file in one), and only when
 * a test file that drives it runs: importing this module (directly or through mcp-harness.ts)
 * registers a `beforeAll` that builds it, under a hook limit of its own. Unit tests never import
 * it, so `bun test test/git/refs.test.ts` builds nothing. TWIG_MCP_BIN points at a prebuilt binary.
 */

import { beforeAll } from "bun:test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { hostTarget } from "../../build/targets.ts";
import { compileBinary } from "../../build.ts";

/**
 * A build takes seconds on a quiet machine and can take minutes on a busy 2-core CI runner. Inside
 * a test it counted against that test's 5 s limit and failed whichever file ran first; the hook
 * below has this limit instead.
 */
const BUILD_TIMEOUT_MS = 10 * 60_000;

let built: Promise<string> | null = null;

export function binaryPath(): Promise<string> {
  const prebuilt = process.env.TWIG_MCP_BIN;
  if (prebuilt) return Promise.resolve(prebuilt);
  built ??= (async () => {
    // Under `bun test --parallel` each worker process builds its own: a binary replaced while
    // another process runs it reports its own path as deleted.
    const worker = process.env.BUN_TEST_WORKER_ID;
    const dir = join(import.meta.dir, "..", "..", "dist", "test", ...(worker ? [`worker-${worker}`] : []));
    mkdirSync(dir, { recursive: true });
    const binary = join(dir, process.platform === "win32" ? "twig-mcp.exe" : "twig-mcp");
    // For the host target, as a release builds it (compileTarget's first try), so that
    // test/build/release.test.ts and mcpb.test.ts package this binary instead of building their own.
    await compileBinary({ outfile: binary, target: hostTarget()?.bun });
    return binary;
  })();
  return built;
}

// Module code runs once per process, while the first file that imports this module is loading: the
// hook belongs to that file and runs before its tests and its own hooks (imports are evaluated
// first). Later files find the binary built.
beforeAll(() => binaryPath(), BUILD_TIMEOUT_MS);

export interface BinaryRun {
  stdout: string;
  stderr: string;
  code: number;
}

/** Runs the compiled binary to completion with `stdin` as its whole input (none by default). */
export async function runBinary(
  args: string[],
  options: { cwd: string; env: Record<string, string>; stdin?: string },
): Promise<BinaryRun> {
  const proc = Bun.spawn([await binaryPath(), ...args], {
    cwd: options.cwd,
    env: options.env,
    stdin: options.stdin === undefined ? "ignore" : new TextEncoder().encode(options.stdin),
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  return { stdout, stderr, code };
}
