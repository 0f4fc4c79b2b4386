import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { checkNetrc } from "../../src/cli/doctor.ts";

// These tests start processes (the compiled binary, git, builds); on a busy machine that takes longer than bun's 5 s default.
setDefaultTimeout(60_000);

describe("doctor's .netrc check", () => {
  const home = mkdtempSync(join(tmpdir(), "twig-doctor-netrc-"));
  afterAll(() => rmSync(home, { recursive: true, force: true }));

  test("a FIFO in place of .netrc fails fast instead of hanging", async () => {
    const fifo = Bun.spawnSync(["mkfifo", join(home, ".netrc")]);
    expect(fifo.exitCode).toBe(0);
    const result = await checkNetrc({ home, platform: "linux" });
    expect(result).toMatchObject({ status: "fail" });
    expect(JSON.stringify(result)).toContain("not a regular file");
    rmSync(join(home, ".netrc"));
  });

  test("an oversized .netrc is refused without reading it", async () => {
    writeFileSync(join(home, ".netrc"), "x".repeat(2 * 1024 * 1024));
    const result = await checkNetrc({ home, platform: "linux" });
    expect(result).toMatchObject({ status: "fail" });
    rmSync(join(home, ".netrc"));
  });
});
