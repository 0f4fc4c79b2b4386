/**
 * The compiled binary the end-to-end tests drive, so they test exactly what users install. Built
 * once per test run (all test files share one process); TWIG_MCP_BIN points at a prebuilt one.
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
