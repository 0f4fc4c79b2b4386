/**
 * The compiled binary the end-to-end tests drive, so they test exactly what users install. Built
 * once per test run (all test files share one process), by the preload in test/support/prebuild.ts;
 * TWIG_MCP_BIN points at a prebuilt one.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { compileBinary } from "../../build.ts";

let built: Promise<string> | null = null;

export function binaryPath(): Promise<string> {
  const prebuilt = process.env.TWIG_MCP_BIN;
  if (prebuilt) return Promise.resolve(prebuilt);
  built ??= (async () => {
    const dir = join(import.meta.dir, "..", "..", "dist", "test");
    mkdirSync(dir, { recursive: true });
    const binary = join(dir, process.platform === "win32" ? "twig-mcp.exe" : "twig-mcp");
    await compileBinary({ outfile: binary });
    return binary;
  })();
  return built;
}

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
