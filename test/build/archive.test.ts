import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { tarGz, zip } from "../../build/archive.ts";
import { sha256Hex as sha256 } from "../../src/core/sha256.ts";

// These tests start processes (the compiled binary, git, builds); on a busy machine that takes longer than bun's 5 s default.
setDefaultTimeout(60_000);

const dir = mkdtempSync(join(tmpdir(), "twig-mcp-archive-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const encoder = new TextEncoder();
const executable = encoder.encode("#!/bin/sh\necho hello\n");
const notes = encoder.encode("x".repeat(1500));
const mtime = new Date("2025-06-01T12:00:00Z");
const longName = `${"deep/".repeat(25)}file.txt`;

function run(argv: string[], cwd = dir) {
  const result = Bun.spawnSync(argv, { cwd, stdout: "pipe", stderr: "pipe" });
  return { code: result.exitCode, stdout: result.stdout.toString(), stderr: result.stderr.toString() };
}

describe("tar.gz", () => {
  const bytes = tarGz(
    [
      { name: "twig-mcp", data: executable, mode: 0o755 },
      { name: "docs/notes.txt", data: notes, mode: 0o644 },
      { name: longName, data: notes, mode: 0o644 },
    ],
    mtime,
    1,
  );

  test("Bun reads back every file with its content", async () => {
    const files = await new Bun.Archive(bytes).files();
    expect([...files.keys()].sort()).toEqual(["docs/notes.txt", longName, "twig-mcp"].sort());
    expect(await files.get("twig-mcp")?.text()).toBe("#!/bin/sh\necho hello\n");
    expect((await files.get(longName)?.text())?.length).toBe(1500);
  });

  test.skipIf(!Bun.which("tar"))("tar lists modes, sizes and times, and extracts an executable", () => {
    const path = join(dir, "a.tar.gz");
    writeFileSync(path, bytes);
    const listing = run(["tar", "-tvzf", path]);
    expect(listing.code).toBe(0);
    expect(listing.stdout).toMatch(/^-rwxr-xr-x .* 21 2025-06-01 \d\d:\d\d twig-mcp$/m);
    expect(listing.stdout).toMatch(/^-rw-r--r-- .* 1500 .* docs\/notes\.txt$/m);
    const out = join(dir, "tar-out");
    run(["mkdir", "-p", out]);
    expect(run(["tar", "-xzf", path, "-C", out]).code).toBe(0);
    expect(statSync(join(out, "twig-mcp")).mode & 0o777).toBe(0o755);
    expect(run([join(out, "twig-mcp")]).stdout).toBe("hello\n");
    expect(statSync(join(out, longName)).size).toBe(1500);
  });

  test("the same input gives the same bytes", () => {
    const again = tarGz([{ name: "twig-mcp", data: executable, mode: 0o755 }], mtime, 1);
    expect(sha256(again)).toBe(sha256(tarGz([{ name: "twig-mcp", data: executable, mode: 0o755 }], mtime, 1)));
  });
});

describe("zip", () => {
  const bytes = zip(
    [
      { name: "twig-mcp.exe", data: executable, mode: 0o755 },
      { name: "notes.txt", data: notes, mode: 0o644 },
    ],
    mtime,
    1,
  );

  test.skipIf(!Bun.which("unzip"))("unzip verifies the CRCs and restores content and the executable bit", () => {
    const path = join(dir, "a.zip");
    writeFileSync(path, bytes);
    const check = run(["unzip", "-t", path]);
    expect(check.code).toBe(0);
    expect(check.stdout).toContain("No errors detected");
    const out = join(dir, "zip-out");
    expect(run(["unzip", "-q", path, "-d", out]).code).toBe(0);
    expect(statSync(join(out, "twig-mcp.exe")).mode & 0o777).toBe(0o755);
    expect(Bun.file(join(out, "notes.txt")).size).toBe(1500);
  });

  test("the layout is a local header per entry, a central directory and its end record", () => {
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    expect(view.getUint32(0, true)).toBe(0x04034b50);
    const end = bytes.byteLength - 22;
    expect(view.getUint32(end, true)).toBe(0x06054b50);
    expect(view.getUint16(end + 10, true)).toBe(2);
    const centralAt = view.getUint32(end + 16, true);
    expect(view.getUint32(centralAt, true)).toBe(0x02014b50);
  });
});
