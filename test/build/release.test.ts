import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { copyFileSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildRelease, type ReleaseResult } from "../../build/release.ts";
import { hostTarget, type Target } from "../../build/targets.ts";
import pkg from "../../package.json" with { type: "json" };
import { sha256Hex as sha256 } from "../../src/core/sha256.ts";
import { binaryPath } from "../support/binary.ts";

// These tests start processes (the compiled binary, git, builds); on a busy machine that takes longer than bun's 5 s default.
setDefaultTimeout(60_000);

const host = hostTarget() as Target;
const outDir = mkdtempSync(join(tmpdir(), "twig-mcp-release-"));
/** `sha256sums.txt` as name → hex. */
const readSums = (dir: string) =>
  new Map(
    readFileSync(join(dir, "sha256sums.txt"), "utf8")
      .trim()
      .split("\n")
      .map((line) => line.split("  ").reverse() as [string, string]),
  );
const logs: string[] = [];
let result: ReleaseResult;

beforeAll(async () => {
  const built = await binaryPath();
  result = await buildRelease({
    targets: [host],
    outDir,
    info: {
      name: "twig-mcp",
      version: pkg.version,
      description: pkg.description,
      license: "MIT",
      homepage: "https://example.com",
    },
    urlPattern: "https://example.com/download/{tag}/{file}",
    npm: false,
    launcher: "",
    readme: "",
    // The suite's binary, compiled for the host target as a release compiles it (support/binary.ts):
    // a second compile of the same source would prove nothing more.
    compile: async (_target, outfile) => {
      copyFileSync(built, outfile);
      return { ok: true, value: undefined };
    },
    log: (line) => logs.push(line),
    level: 1,
  });
}, 60_000);
afterAll(() => rmSync(outDir, { recursive: true, force: true }));

describe("bun build.ts for the host", () => {
  test("names its binary and archive after the platform", () => {
    expect(result.failed).toEqual([]);
    expect(result.built.map((t) => t.id)).toEqual([host.id]);
    expect(result.files).toContain(host.binary);
    expect(result.files).toContain(host.archive);
    expect(result.files).toContain("sha256sums.txt");
  });

  test("the report ends with every file written, each with its exact size", () => {
    const listing = logs.at(-1) as string;
    expect(listing.split("\n")[0]).toBe(`wrote ${result.files.length} files in ${outDir}:`);
    for (const file of result.files) {
      const size = statSync(join(outDir, file)).size.toLocaleString("en-US");
      expect(listing).toMatch(new RegExp(`\\n  ${file.replace(/[.]/g, "\\.")} +${size} bytes`));
    }
    expect(listing.split("\n").length).toBe(result.files.length + 1);
    expect(logs.join("\n")).not.toContain("Decompressing");
  });

  test("the binary runs and reports the package version", () => {
    const binary = join(outDir, host.binary);
    const run = Bun.spawnSync([binary, "--version"], {
      stdout: "pipe",
      stderr: "pipe",
      env: { PATH: process.env.PATH ?? "" },
    });
    expect(run.exitCode).toBe(0);
    expect(run.stdout.toString()).toBe(`twig-mcp ${pkg.version}\n`);
  });

  test("sha256sums.txt lists the binary and the archive with their real checksums", async () => {
    const sums = readSums(outDir);
    expect([...sums.keys()]).toEqual([host.archive, host.binary].sort());
    for (const [name, hex] of sums) expect(sha256(await Bun.file(join(outDir, name)).bytes())).toBe(hex);
    if (Bun.which("sha256sum")) {
      const check = Bun.spawnSync(["sha256sum", "-c", "sha256sums.txt"], { cwd: outDir, stdout: "pipe" });
      expect(check.exitCode).toBe(0);
    }
  });

  test("the archive holds the same binary, executable, under its installed name", async () => {
    const files = await new Bun.Archive(await Bun.file(join(outDir, host.archive)).bytes()).files();
    const inside = files.get(host.installed);
    expect(inside).toBeDefined();
    expect(sha256(await (inside as File).bytes())).toBe(sha256(await Bun.file(join(outDir, host.binary)).bytes()));
    expect(statSync(join(outDir, host.binary)).mode & 0o111).not.toBe(0);
  });

  test.skipIf(!["linux-x64", "linux-arm64", "darwin-x64", "darwin-arm64"].includes(host.id))(
    "the Homebrew formula points at the host archive with its checksum",
    () => {
      const formula = readFileSync(join(outDir, "homebrew", "twig-mcp.rb"), "utf8");
      const sums = readSums(outDir);
      expect(formula).toContain(`url "https://example.com/download/v${pkg.version}/${host.archive}"`);
      expect(formula).toContain(`sha256 "${sums.get(host.archive)}"`);
    },
  );
});
