import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { compileProfiled, recordStartupOrder } from "../../build.ts";
import { binaryPath } from "../support/binary.ts";

setDefaultTimeout(120_000);

const work = mkdtempSync(join(tmpdir(), "twig-mcp-order-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe("profile-guided bytecode layout", () => {
  test("a start-up run records which functions it used", async () => {
    const dir = join(work, "record");
    const profile = await recordStartupOrder(await binaryPath(), dir);
    expect(profile).not.toBeNull();
    const text = readFileSync(profile as string, "utf8");
    // One line per function the run loaded: initialize, tools/list and a tool call use hundreds.
    expect(text.split("\n").length).toBeGreaterThan(500);
  });

  test("a binary that cannot serve records nothing, and the build goes on without a profile", async () => {
    const dir = join(work, "broken");
    expect(await recordStartupOrder("/bin/false", dir)).toBeNull();
  });

  test("the released host binary is built with the profile and still serves", async () => {
    const outfile = join(work, "twig-mcp");
    const { profiled } = await compileProfiled({ outfile, workDir: join(work, "stages") });
    expect(profiled).toBe(true);
    expect(statSync(outfile).size).toBeGreaterThan(1_000_000);
    // The profiled build answers the same start-up session the profile came from.
    const again = await recordStartupOrder(outfile, join(work, "again"));
    expect(again).not.toBeNull();
  });
});
