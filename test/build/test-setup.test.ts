/**
 * How the suite itself is set up: unit tests run without the compiled binary, so a single unit test
 * file starts at once, and the build happens only for files that drive the binary.
 */
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

// Runs `bun test` in a child process; on a busy machine that alone takes seconds.
setDefaultTimeout(120_000);

const ROOT = resolve(import.meta.dir, "..", "..");
const TEST_DIR = join(ROOT, "test");
const BINARY_MODULE = join(TEST_DIR, "support", "binary.ts");

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === "fixtures" || entry.name === "__snapshots__" ? [] : testFiles(path);
    return entry.name.endsWith(".test.ts") ? [path] : [];
  });
}

/** Whether `file` imports the binary module, directly or through other modules under test/ (type imports aside). */
function drivesBinary(file: string, seen = new Set<string>()): boolean {
  if (file === BINARY_MODULE) return true;
  if (seen.has(file)) return false;
  seen.add(file);
  const source = readFileSync(file, "utf8");
  for (const match of source.matchAll(/^import (?!type )[^;]*?from "(\.{1,2}\/[^"]+)"/gms)) {
    const target = resolve(dirname(file), match[1] as string);
    if (target.startsWith(TEST_DIR) && drivesBinary(target, seen)) return true;
  }
  return false;
}

describe("the test suite", () => {
  test("has no preload: nothing is built before a file asks for it", () => {
    const bunfig = readFileSync(join(ROOT, "bunfig.toml"), "utf8");
    expect(bunfig).not.toMatch(/^\s*preload\s*=/m);
  });

  test("only end-to-end, build, hardening, command-line and benchmark tests drive the binary", () => {
    const driving = testFiles(TEST_DIR)
      .filter((file) => drivesBinary(file))
      .map((file) => relative(TEST_DIR, file));
    expect(driving.length).toBeGreaterThan(10);
    const allowed = /^(e2e|build|hardening|cli|bench)\/|^github\/e2e\.test\.ts$/;
    expect(driving.filter((file) => !allowed.test(file))).toEqual([]);
    // The import walk does see the harness: these drive the binary through mcp-harness.ts.
    expect(driving).toContain("e2e/server.test.ts");
    expect(driving).not.toContain("git/refs.test.ts");
  });

  test("a unit test file runs without building the binary", async () => {
    const binary = join(ROOT, "dist", "test", process.platform === "win32" ? "twig-mcp.exe" : "twig-mcp");
    const stamp = () => {
      try {
        const info = statSync(binary);
        return `${info.ino}:${info.mtimeMs}`;
      } catch {
        return "absent";
      }
    };
    const before = stamp();
    const env: Record<string, string> = { ...(process.env as Record<string, string>) };
    delete env.TWIG_MCP_BIN;
    // Under `bun test --parallel` a worker would build into a folder of its own (binary.ts), not the one stamped above.
    delete env.BUN_TEST_WORKER_ID;
    const child = Bun.spawn([process.execPath, "test", "test/git/bytewise.test.ts"], {
      cwd: ROOT,
      env,
      stdout: "pipe",
      stderr: "pipe",
    });
    const [output, code] = await Promise.all([new Response(child.stderr).text(), child.exited]);
    expect(output).toContain(" 0 fail");
    expect(code).toBe(0);
    expect(stamp()).toBe(before);
  });
});
