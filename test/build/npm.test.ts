import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { mainPackage, type PackageInfo, platformPackage } from "../../build/npm.ts";
import { hostTarget, TARGETS, type Target } from "../../build/targets.ts";
import pkg from "../../package.json" with { type: "json" };
import { binaryPath } from "../support/binary.ts";
import { type HermeticHome, makeHermeticHome } from "../support/hermetic-env.ts";

// These tests start processes (the compiled binary, git, builds); on a busy machine that takes longer than bun's 5 s default.
setDefaultTimeout(60_000);

const host = hostTarget();
const info: PackageInfo = { name: "twig-mcp", version: pkg.version, description: pkg.description, license: "MIT" };
const launcher = readFileSync(join(import.meta.dir, "..", "..", "build", "npm-launcher.cjs"), "utf8");
const dir = mkdtempSync(join(tmpdir(), "twig-mcp-npm-"));
const mainFile = join(dir, `twig-mcp-${pkg.version}.tgz`);
let platformFile = "";
let home: HermeticHome;
/** Nothing may reach a registry: these tests install local tarballs only. */
const offline = { BUN_CONFIG_REGISTRY: "http://127.0.0.1:9/", npm_config_registry: "http://127.0.0.1:9/" };

beforeAll(async () => {
  home = makeHermeticHome(offline);
  const main = mainPackage(info, launcher, "# twig-mcp\n");
  writeFileSync(mainFile, main.bytes);
  if (host) {
    // Level 0: the tarball is stored, not compressed; what is tested is what npm and bun install from it.
    const platform = platformPackage(info, host, await Bun.file(await binaryPath()).bytes(), 0);
    platformFile = join(dir, platform.file);
    writeFileSync(platformFile, platform.bytes);
  }
}, 60_000);
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
  home.cleanup();
});

function project(name: string): string {
  const path = join(dir, name);
  mkdirSync(path);
  writeFileSync(join(path, "package.json"), JSON.stringify({ name, version: "1.0.0", private: true }));
  return path;
}

/** Runs `argv` to completion without blocking: the bun and npm installs below run side by side. */
async function run(argv: string[], cwd: string, env: Record<string, string> = {}) {
  const proc = Bun.spawn(argv, { cwd, env: { ...home.env, ...env }, stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  return { code, stdout, stderr };
}

async function handshake(command: string, args: string[], cwd: string): Promise<string | undefined> {
  const transport = new StdioClientTransport({ command, args, cwd, env: home.env, stderr: "pipe" });
  const client = new Client({ name: "npm-test", version: "0.0.0" });
  await client.connect(transport);
  try {
    const tools = await client.listTools();
    expect(tools.tools.map((t) => t.name)).toContain("get_current_branch");
    return client.getServerVersion()?.version;
  } finally {
    await client.close();
  }
}

describe("the npm packages", () => {
  test("twig-mcp depends on every platform package at its own version, and runs a launcher", async () => {
    const files = await new Bun.Archive(await Bun.file(mainFile).bytes()).files();
    const manifest = JSON.parse((await files.get("package/package.json")?.text()) ?? "{}");
    expect(manifest.bin).toEqual({ "twig-mcp": "bin/twig-mcp.js" });
    const published = TARGETS.filter((t) => t.npm !== null).map((t) => `twig-mcp-${t.id}`);
    expect(Object.keys(manifest.optionalDependencies).sort()).toEqual(published.sort());
    expect(new Set(Object.values(manifest.optionalDependencies))).toEqual(new Set([pkg.version]));
    expect(await files.get("package/bin/twig-mcp.js")?.text()).toStartWith("#!/usr/bin/env node\n");
  });

  test.skipIf(host === null)(
    "a platform package declares its os, cpu and libc and ships the binary executable",
    async () => {
      const target = host as Target;
      const small = platformPackage(info, target, new TextEncoder().encode("binary"), 1);
      const files = await new Bun.Archive(small.bytes).files();
      const manifest = JSON.parse((await files.get("package/package.json")?.text()) ?? "{}");
      expect(manifest.name).toBe(`twig-mcp-${target.id}`);
      expect(manifest.os).toEqual([target.npm?.os]);
      expect(manifest.cpu).toEqual([target.npm?.cpu]);
      if (target.npm?.libc) expect(manifest.libc).toEqual([target.npm.libc]);
      expect(manifest.bin).toBeUndefined();
      expect(files.has(`package/bin/${target.installed}`)).toBe(true);
    },
  );

  test.concurrent.skipIf(host === null)(
    "bun installs the tarballs offline; twig-mcp runs through the launcher on Bun and on Node",
    async () => {
      const cwd = project("with-bun");
      const install = await run(["bun", "add", mainFile, platformFile], cwd, {
        BUN_INSTALL_CACHE_DIR: join(dir, "bun-cache"),
      });
      expect(install.code).toBe(0);
      const installed = join(cwd, "node_modules", `twig-mcp-${(host as Target).id}`, "bin", (host as Target).installed);
      if (process.platform !== "win32") expect(statSync(installed).mode & 0o111).not.toBe(0);
      const bin = join(cwd, "node_modules", ".bin", process.platform === "win32" ? "twig-mcp.exe" : "twig-mcp");
      const launcherPath = join(cwd, "node_modules", "twig-mcp", "bin", "twig-mcp.js");
      // bunx runs a package's bin with Bun when Node is absent (or with --bun); npx runs it with Node.
      expect((await run(["bun", launcherPath, "--version"], cwd)).stdout).toBe(`twig-mcp ${pkg.version}\n`);
      expect(await handshake("bun", [launcherPath], cwd)).toBe(pkg.version);
      if (Bun.which("node") && process.platform !== "win32") {
        expect((await run([bin, "--version"], cwd)).stdout).toBe(`twig-mcp ${pkg.version}\n`);
        expect(await handshake(bin, [], cwd)).toBe(pkg.version);
      }
    },
    60_000,
  );

  test.concurrent.skipIf(host === null || !Bun.which("npm"))(
    "npm installs the tarballs offline and npx runs twig-mcp",
    async () => {
      const cwd = project("with-npm");
      const install = await run(
        [
          "npm",
          "install",
          "--offline",
          "--no-audit",
          "--no-fund",
          "--cache",
          join(dir, "npm-cache"),
          mainFile,
          platformFile,
        ],
        cwd,
      );
      expect(install.code).toBe(0);
      const npx = await run(["npx", "--offline", "--cache", join(dir, "npm-cache"), "twig-mcp", "--version"], cwd);
      expect(npx.stdout).toBe(`twig-mcp ${pkg.version}\n`);
      expect(await handshake("npx", ["--offline", "--cache", join(dir, "npm-cache"), "twig-mcp"], cwd)).toBe(
        pkg.version,
      );
    },
    60_000,
  );

  test("the launcher explains a missing platform package", async () => {
    const cwd = project("no-binary");
    mkdirSync(join(cwd, "node_modules", "twig-mcp", "bin"), { recursive: true });
    const path = join(cwd, "node_modules", "twig-mcp", "bin", "twig-mcp.js");
    writeFileSync(path, launcher);
    const result = await run(["bun", path, "--version"], cwd);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("no prebuilt binary");
    expect(result.stderr).toContain("TWIG_MCP_BINARY");
  });
});
