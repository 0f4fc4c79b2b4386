import { afterEach, describe, expect, setSystemTime, spyOn, test } from "bun:test";
import { mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as boundedRead from "../../src/fs/bounded-read.ts";
import { CachedFileReader } from "../../src/fs/cached-file.ts";
import * as localFs from "../../src/fs/local-fs.ts";
import { readLooseRef } from "../../src/git/refs.ts";

const dirs: string[] = [];
const spies: { mockRestore(): void }[] = [];
afterEach(() => {
  setSystemTime();
  for (const spy of spies.splice(0)) spy.mockRestore();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempFile(name: string, text: string): string {
  const dir = mkdtempSync(join(tmpdir(), "twig-mcp-fs-"));
  dirs.push(dir);
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

/** Makes every stat of `path` report the stamp it has now, as a second write in the same clock tick would. */
function freezeStamp(fn: "statIfExists" | "lstatIfExists", path: string) {
  const frozen = statSync(path);
  const original = fn === "statIfExists" ? localFs.statIfExists : localFs.lstatIfExists;
  const spy = spyOn(localFs, fn).mockImplementation(async (p: string) => (p === path ? frozen : original(p)));
  spies.push(spy);
  return frozen;
}

const HOUR = 3_600_000;

describe("CachedFileReader", () => {
  test("a file changed moments ago is read again on every call", async () => {
    const path = tempFile("state.json", '{"n":1}');
    const files = new CachedFileReader();
    const reads = spyOn(boundedRead, "readBounded");
    spies.push(reads);
    let parses = 0;
    const parse = (bytes: Uint8Array) => {
      parses++;
      return JSON.parse(new TextDecoder().decode(bytes));
    };
    const first = await files.read(path, "json", parse);
    const second = await files.read(path, "json", parse);
    expect(reads).toHaveBeenCalledTimes(2);
    expect(parses).toBe(2);
    expect(second).toEqual(first);
  });

  test("a same-size rewrite that leaves the stamp unchanged is seen while the stamp is recent", async () => {
    const path = tempFile("state.json", '{"pr":123}');
    freezeStamp("statIfExists", path);
    const files = new CachedFileReader();
    const parse = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
    expect(await files.read(path, "text", parse)).toEqual({ kind: "found", value: '{"pr":123}' });
    writeFileSync(path, '{"pr":456}');
    expect(await files.read(path, "text", parse)).toEqual({ kind: "found", value: '{"pr":456}' });
  });

  test("once the stamp is settled, an unchanged stamp is trusted and the file is not read", async () => {
    const path = tempFile("state.json", '{"pr":123}');
    const files = new CachedFileReader(256, () => Date.now() + HOUR);
    const parse = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
    await files.read(path, "text", parse);
    const reads = spyOn(boundedRead, "readBounded");
    spies.push(reads);
    expect(await files.read(path, "text", parse)).toEqual({ kind: "found", value: '{"pr":123}' });
    expect(reads).not.toHaveBeenCalled();
    writeFileSync(path, '{"pr":4567}');
    expect(await files.read(path, "text", parse)).toEqual({ kind: "found", value: '{"pr":4567}' });
  });
});

describe("readLooseRef", () => {
  const OID_A = "a".repeat(40);
  const OID_B = "b".repeat(40);

  test("a ref rewritten in place within one clock tick is seen while its stamp is recent", async () => {
    const path = tempFile("main", `${OID_A}\n`);
    freezeStamp("lstatIfExists", path);
    expect(await readLooseRef(path)).toEqual({ kind: "found", value: { kind: "oid", oid: OID_A } });
    writeFileSync(path, `${OID_B}\n`);
    expect(await readLooseRef(path)).toEqual({ kind: "found", value: { kind: "oid", oid: OID_B } });
  });
});
