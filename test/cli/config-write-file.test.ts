import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import {
  chmodSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readConfigFile, replaceConfigFile } from "../../src/cli/config-write-file.ts";

let dir: string;
beforeEach(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), "twig-mcp-write-file-")));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function read(path: string, inside: string | null = null) {
  const file = readConfigFile(path, inside);
  if (!file.ok) throw new Error(file.error.message);
  return file.value;
}

describe("replaceConfigFile", () => {
  test("keeps the file's mode on the new version and its backup; a new file is 0600", () => {
    const path = join(dir, "mcp.json");
    writeFileSync(path, "{}\n");
    chmodSync(path, 0o640);
    expect(replaceConfigFile(read(path), '{"a":1}\n')).toEqual({ ok: true, value: { backup: `${path}.bak` } });
    expect(readFileSync(path, "utf8")).toBe('{"a":1}\n');
    expect(statSync(path).mode & 0o777).toBe(0o640);
    expect(statSync(`${path}.bak`).mode & 0o777).toBe(0o640);
    expect(readFileSync(`${path}.bak`, "utf8")).toBe("{}\n");

    const fresh = join(dir, "sub", "new.json");
    expect(replaceConfigFile(read(fresh), "{}\n")).toEqual({ ok: true, value: { backup: null } });
    expect(statSync(fresh).mode & 0o777).toBe(0o600);
    expect(readdirSync(dir).sort()).toEqual(["mcp.json", "mcp.json.bak", "sub"]);
  });

  test.each([
    ["a symbolic link", (bak: string) => symlinkSync(join(dir, "victim"), bak)],
    ["a directory", (bak: string) => mkdirSync(bak)],
  ])("a backup name holding %s is refused; nothing is written through it", (what, plant) => {
    const path = join(dir, "mcp.json");
    writeFileSync(path, "{}\n");
    writeFileSync(join(dir, "victim"), "mine\n");
    plant(`${path}.bak`);
    const result = replaceConfigFile(read(path), '{"a":1}\n');
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.error.code).toBe("invalid_config");
      expect(result.error.message).toBe(`${path}.bak is ${what}, not a regular file; nothing was written`);
      expect(result.error.hint).toContain("Remove it");
    }
    expect(readFileSync(join(dir, "victim"), "utf8")).toBe("mine\n");
    expect(readFileSync(path, "utf8")).toBe("{}\n");
    expect(readdirSync(dir).filter((name) => name.endsWith(".tmp"))).toEqual([]);
  });

  test("a link planted at a predictable temporary name is neither written nor chmod-ed through", () => {
    const path = join(dir, "mcp.json");
    writeFileSync(path, "{}\n");
    writeFileSync(join(dir, "victim"), "mine\n");
    chmodSync(join(dir, "victim"), 0o600);
    chmodSync(path, 0o644);
    // The names a pid-based scheme would use.
    for (const name of [`${path}.twig-mcp-${process.pid}.tmp`, `${path}.tmp`, `${path}.new`]) {
      symlinkSync(join(dir, "victim"), name);
    }
    expect(replaceConfigFile(read(path), '{"a":1}\n').ok).toBe(true);
    expect(readFileSync(join(dir, "victim"), "utf8")).toBe("mine\n");
    expect(statSync(join(dir, "victim")).mode & 0o777).toBe(0o600);
    expect(readFileSync(path, "utf8")).toBe('{"a":1}\n');
  });

  test("a file changed since it was read is not overwritten", () => {
    const path = join(dir, "mcp.json");
    writeFileSync(path, "{}\n");
    const file = read(path);
    writeFileSync(path, '{"theirs":1}\n');
    const result = replaceConfigFile(file, '{"a":1}\n');
    expect(result.ok).toBe(false);
    expect(readFileSync(path, "utf8")).toBe('{"theirs":1}\n');
  });
});

describe("readConfigFile", () => {
  test("a symlinked user file is read (and later written) where it lives", () => {
    writeFileSync(join(dir, "real.json"), "{}\n");
    symlinkSync(join(dir, "real.json"), join(dir, "link.json"));
    const file = read(join(dir, "link.json"));
    expect(file.path).toBe(join(dir, "real.json"));
    expect(replaceConfigFile(file, "[]\n").ok).toBe(true);
    expect(lstatSync(join(dir, "link.json")).isSymbolicLink()).toBe(true);
    expect(readFileSync(join(dir, "real.json"), "utf8")).toBe("[]\n");
  });

  test("a project file may not lead out of its repository, through itself or a directory above it", () => {
    const repo = join(dir, "repo");
    mkdirSync(repo);
    writeFileSync(join(dir, "outside.json"), "{}\n");
    symlinkSync(join(dir, "outside.json"), join(repo, ".mcp.json"));
    symlinkSync(dir, join(repo, ".cursor"));
    for (const path of [join(repo, ".mcp.json"), join(repo, ".cursor", "mcp.json")]) {
      const result = readConfigFile(path, repo);
      expect(result.ok).toBe(false);
      if (!result.ok) expect(result.error.message).toContain("leads out of the repository");
    }
    // A link that stays inside is fine, and so is a file not there yet.
    writeFileSync(join(repo, "shared.json"), "{}\n");
    symlinkSync(join(repo, "shared.json"), join(repo, "inside.json"));
    expect(readConfigFile(join(repo, "inside.json"), repo).ok).toBe(true);
    expect(readConfigFile(join(repo, ".vscode", "mcp.json"), repo)).toMatchObject({ ok: true, value: { text: null } });
  });

  test("not UTF-8, or over 1 MiB: refused", () => {
    writeFileSync(join(dir, "bad.json"), Buffer.from([0x7b, 0xff, 0x7d]));
    expect(readConfigFile(join(dir, "bad.json"), null)).toMatchObject({ ok: false, error: { code: "invalid_config" } });
    writeFileSync(join(dir, "big.json"), " ".repeat(1024 * 1024 + 1));
    const big = readConfigFile(join(dir, "big.json"), null);
    expect(!big.ok && big.error.message).toContain("too large");
  });
});
