import { afterEach, describe, expect, spyOn, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readBounded } from "../../src/fs/bounded-read.ts";
import { CachedFileReader } from "../../src/fs/cached-file.ts";
import * as localFs from "../../src/fs/local-fs.ts";

const dirs: string[] = [];
const spies: { mockRestore(): void }[] = [];
afterEach(() => {
  for (const spy of spies.splice(0)) spy.mockRestore();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "twig-mcp-bounded-"));
  dirs.push(dir);
  return dir;
}

function mkfifo(path: string): void {
  if (Bun.spawnSync(["mkfifo", path]).exitCode !== 0) throw new Error(`mkfifo ${path} failed`);
}

describe("readBounded", () => {
  test("a file of exactly the cap is read; one byte more is too large", () => {
    const dir = tempDir();
    writeFileSync(join(dir, "fits"), "x".repeat(100));
    writeFileSync(join(dir, "over"), "x".repeat(101));
    const fits = readBounded(join(dir, "fits"), 100);
    expect(fits.kind).toBe("found");
    if (fits.kind === "found") expect(fits.bytes.length).toBe(100);
    expect(readBounded(join(dir, "over"), 100)).toEqual({ kind: "too-large", limit: 100 });
  });

  test("a /proc file that says size 0 and never ends is cut at the cap", () => {
    expect(statSync("/proc/self/pagemap").size).toBe(0);
    expect(readBounded("/proc/self/pagemap", 1024 * 1024)).toEqual({ kind: "too-large", limit: 1024 * 1024 });
    // A short one is read whole.
    const status = readBounded("/proc/self/status", 1024 * 1024);
    expect(status.kind).toBe("found");
    if (status.kind === "found") expect(new TextDecoder().decode(status.bytes)).toContain("Pid:");
  });

  test("a FIFO is refused without waiting for a writer, directly or through a symlink", () => {
    const dir = tempDir();
    mkfifo(join(dir, "fifo"));
    symlinkSync(join(dir, "fifo"), join(dir, "link"));
    expect(readBounded(join(dir, "fifo"), 100)).toEqual({ kind: "special" });
    expect(readBounded(join(dir, "link"), 100)).toEqual({ kind: "special" });
  });

  test("devices, directories and absent paths", () => {
    const dir = tempDir();
    mkdirSync(join(dir, "sub"));
    expect(readBounded("/dev/zero", 100)).toEqual({ kind: "special" });
    expect(readBounded(join(dir, "sub"), 100)).toEqual({ kind: "directory" });
    expect(readBounded(join(dir, "absent"), 100)).toEqual({ kind: "missing" });
    expect(readBounded(join(dir, "absent", "deeper"), 100)).toEqual({ kind: "missing" });
  });
});

describe("CachedFileReader over a file swapped between stat and open", () => {
  test("a FIFO swapped in after the stat said 'regular file' is refused, not read", async () => {
    const dir = tempDir();
    const path = join(dir, "state.json");
    writeFileSync(path, "{}");
    const regular = statSync(path);
    rmSync(path);
    mkfifo(path);
    // The stat is answered for the file that was there; the open meets the FIFO.
    const spy = spyOn(localFs, "statIfExists").mockImplementation(async (p: string) =>
      p === path ? regular : statSync(p, { throwIfNoEntry: false }),
    );
    spies.push(spy);
    const read = await new CachedFileReader().read(path, "text", (bytes) => bytes.length);
    expect(read).toEqual({ kind: "unreadable", cause: "is not a regular file" });
  });

  test("a /proc file linked in place of state.json is refused as over the limit", async () => {
    const dir = tempDir();
    symlinkSync("/proc/self/pagemap", join(dir, "state.json"));
    const read = await new CachedFileReader().read(join(dir, "state.json"), "text", (bytes) => bytes.length, {
      maxBytes: 1024 * 1024,
    });
    expect(read).toEqual({ kind: "unreadable", cause: "file is over the 1048576-byte limit" });
  });
});
