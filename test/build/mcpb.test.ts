import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { getMcpConfigForManifest, type McpbManifestAny } from "@anthropic-ai/mcpb";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { BUNDLE_ICON, type BundleInfo, bundleEntryPoint, bundleManifest, bundleTargets } from "../../build/mcpb.ts";
import { buildRelease, type ReleaseResult } from "../../build/release.ts";
import { hostTarget, type Target } from "../../build/targets.ts";
import { bundleInfo, mcpbValidator, projectUrls, registryInfo } from "../../build.ts";
import pkg from "../../package.json" with { type: "json" };
import { createToolRegistry } from "../../src/cli/runtime.ts";
import { sha256Hex as sha256 } from "../../src/core/sha256.ts";
import { PROMPTS } from "../../src/mcp/prompts.ts";
import { binaryPath } from "../support/binary.ts";
import { EXAMPLE_STATE, twigJson } from "../support/fixtures.ts";
import { type GitRepo, makeRepo } from "../support/git-repo.ts";
import { type HermeticHome, makeHermeticHome } from "../support/hermetic-env.ts";

// The package's own script run by this Bun: node_modules/.bin shims differ on Windows.
const MCPB = join(import.meta.dir, "..", "..", "node_modules", "@anthropic-ai", "mcpb", "dist", "cli", "cli.js");
const host = hostTarget() as Target;
const hostBundled = bundleTargets().includes(host);

let info: BundleInfo;
let outDir: string;
let result: ReleaseResult;
let home: HermeticHome;
let outside: string;
let repo: GitRepo;

beforeAll(async () => {
  const urls = projectUrls(pkg);
  if (!urls.ok) throw new Error(urls.error);
  info = await bundleInfo(urls.value);
  outDir = mkdtempSync(join(tmpdir(), "twig-mcp-mcpb-"));
  const prebuilt = await binaryPath();
  result = await buildRelease({
    targets: [host],
    outDir,
    info: { name: pkg.name, version: pkg.version, description: pkg.description, license: pkg.license },
    urlPattern: "https://example.com/{tag}/{file}",
    npm: false,
    launcher: "",
    readme: "",
    // The binary the other end-to-end tests drive, compiled for the host as a release compiles it (support/binary.ts).
    compile: async (_target, outfile) => {
      copyFileSync(prebuilt, outfile);
      return { ok: true, value: undefined };
    },
    log: () => {},
    // Stored, not deflated: deflating the binary in JavaScript (fflate) took most of this file's
    // time, and what is tested here is the bundle's content. archive.test.ts proves the deflated zip.
    level: 0,
    bundles: { info, license: readFileSync(join(import.meta.dir, "..", "..", "LICENSE"), "utf8") },
    registry: registryInfo(urls.value),
  });
  home = makeHermeticHome();
  outside = mkdtempSync(join(tmpdir(), "twig-mcp-outside-"));
  repo = makeRepo({ commit: true });
  repo.git("branch", "feature/auth");
  repo.git("checkout", "-q", "feature/auth");
  repo.write(".twig/state.json", twigJson(EXAMPLE_STATE));
  // Compressing a 60 MB binary is slow on a busy machine; nothing here waits on a clock.
}, 120_000);

afterAll(() => {
  if (outDir) rmSync(outDir, { recursive: true, force: true });
  if (outside) rmSync(outside, { recursive: true, force: true });
  home?.cleanup();
  repo?.cleanup();
});

async function mcpb(...args: string[]): Promise<{ code: number; output: string }> {
  const proc = Bun.spawn([process.execPath, MCPB, ...args], {
    stdout: "pipe",
    stderr: "pipe",
    env: { ...home.env, NO_COLOR: "1" },
  });
  const [stdout, stderr, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  return { code, output: stdout + stderr };
}

describe("manifests", () => {
  test("one bundle each for the three Claude Desktop platforms and linux-x64", () => {
    expect(bundleTargets().map((t) => t.id)).toEqual(["linux-x64", "darwin-x64", "darwin-arm64", "windows-x64"]);
  });

  test.each(bundleTargets().map((t) => [t.id, t] as const))(
    "the %s manifest passes mcpb validate",
    async (_id, target) => {
      const dir = mkdtempSync(join(outDir, "manifest-"));
      const path = join(dir, "manifest.json");
      writeFileSync(path, JSON.stringify(bundleManifest(info, target), null, 2));
      // The validator reads the icon the manifest names, beside it as in the bundle.
      writeFileSync(join(dir, BUNDLE_ICON), info.icon);
      const { code, output } = await mcpb("validate", path);
      expect(output).toContain("Manifest schema validation passes");
      expect(output).toContain("Icon validation passed");
      expect(code).toBe(0);
    },
  );

  test("build:release's own check is mcpb validate's schema: every manifest passes, a broken one names its field", async () => {
    const validator = await mcpbValidator();
    for (const target of bundleTargets()) expect(validator.problems(bundleManifest(info, target))).toEqual([]);
    const { name: _, ...nameless } = bundleManifest(info, host);
    expect(validator.problems(nameless).join("\n")).toStartWith("name: ");
    expect(validator.problems({ ...nameless, manifest_version: "9.9" })).toEqual([
      "manifest_version 9.9 is not one mcpb knows",
    ]);
  });

  test.skipIf(!hostBundled)(
    "a manifest that fails the check: no bundle is written, and the target is reported as failed",
    async () => {
      const dir = mkdtempSync(join(outDir, "rejected-"));
      copyFileSync(join(outDir, host.binary), join(dir, host.binary));
      const logs: string[] = [];
      const rejected = await buildRelease({
        targets: [],
        outDir: dir,
        info: { name: pkg.name, version: pkg.version, description: pkg.description, license: pkg.license },
        urlPattern: "https://example.com/{tag}/{file}",
        npm: false,
        launcher: "",
        readme: "",
        compile: async () => ({ ok: true, value: undefined }),
        log: (line) => logs.push(line),
        level: 1,
        bundles: { info, license: "", validate: { by: "the test's check", problems: () => ["name: Required"] } },
      });
      expect(existsSync(join(dir, host.bundle))).toBe(false);
      expect(rejected.failed.map((f) => f.error)).toEqual([`${host.bundle}'s manifest.json: name: Required`]);
      expect(logs).toContain(`FAILED ${host.bundle}: its manifest.json does not pass the test's check: name: Required`);
    },
  );

  test("a binary server at its entry point, for its platform, at package.json's version", () => {
    const mac = bundleManifest(info, bundleTargets().find((t) => t.id === "darwin-arm64") as Target);
    const windows = bundleManifest(info, bundleTargets().find((t) => t.id === "windows-x64") as Target);
    expect(mac.version).toBe(pkg.version);
    expect(mac.server).toMatchObject({
      type: "binary",
      entry_point: "server/twig-mcp",
      mcp_config: { command: `\${__dirname}/server/twig-mcp`, args: [] },
    });
    expect(windows.server).toMatchObject({
      entry_point: "server/twig-mcp.exe",
      mcp_config: { command: `\${__dirname}/server/twig-mcp.exe` },
    });
    expect(mac.compatibility).toEqual({ platforms: ["darwin"] });
    expect(windows.compatibility).toEqual({ platforms: ["win32"] });
  });

  test("tools and prompts are the ones the server publishes", () => {
    const manifest = bundleManifest(info, host);
    const published = createToolRegistry(new Set()).list();
    expect(manifest.tools).toEqual(published.map((t) => ({ name: t.name, description: t.description })));
    expect((manifest.prompts as Array<{ name: string }>).map((p) => p.name)).toEqual(PROMPTS.map((p) => p.name));
  });

  test("tokens are sensitive and the repository is a directory", () => {
    const config = bundleManifest(info, host).user_config as Record<string, { type: string; sensitive?: boolean }>;
    expect(config.repository?.type).toBe("directory");
    for (const key of ["github_token", "jira_api_token", "jira_personal_token"]) {
      expect(config[key]?.sensitive).toBe(true);
    }
    for (const key of ["repository", "jira_host", "jira_email", "disable"]) {
      expect(config[key]?.sensitive).toBeUndefined();
    }
  });
});

describe.if(hostBundled)("the bundle for this host", () => {
  const file = () => join(outDir, host.bundle);

  test("mcpb info reads it", async () => {
    const { code, output } = await mcpb("info", file());
    expect(output).toContain(`File: ${host.bundle}`);
    expect(code).toBe(0);
  });

  test("sha256sums.txt and server.json carry its checksum", () => {
    const hex = sha256(readFileSync(file()));
    expect(result.files).toContain(host.bundle);
    expect(
      new Map(
        readFileSync(join(outDir, "sha256sums.txt"), "utf8")
          .trim()
          .split("\n")
          .map((l) => l.split("  ").reverse() as [string, string]),
      ).get(host.bundle),
    ).toBe(hex);
    const entry = JSON.parse(readFileSync(join(outDir, "server.json"), "utf8")) as {
      packages: Array<{ identifier: string; fileSha256?: string }>;
    };
    const own = entry.packages.find((p) => p.identifier.endsWith(`/${host.bundle}`));
    expect(own?.fileSha256).toBe(hex);
    // Bundles not built get no checksum rather than a wrong one.
    expect(entry.packages.filter((p) => p.fileSha256 !== undefined)).toHaveLength(1);
  });

  let dir = "";
  // Installing is unpacking, as Claude Desktop does it; slow for a 60 MB binary, so once.
  beforeAll(async () => {
    dir = mkdtempSync(join(outDir, "installed-"));
    const unpacked = await mcpb("unpack", file(), dir);
    if (unpacked.code !== 0) throw new Error(`mcpb unpack failed: ${unpacked.output}`);
  }, 120_000);

  test("it holds only the manifest, the icon, the binary and the licence", () => {
    const listed = [...new Bun.Glob("**/*").scanSync({ cwd: dir, dot: true })].sort();
    expect(listed).toEqual(["LICENSE", BUNDLE_ICON, "manifest.json", bundleEntryPoint(host)]);
  });

  test("its manifest names its icon, a square PNG, and the unpacked bundle passes mcpb validate", async () => {
    const manifest = JSON.parse(readFileSync(join(dir, "manifest.json"), "utf8")) as { icon?: string };
    expect(manifest.icon).toBe(BUNDLE_ICON);
    const png = readFileSync(join(dir, BUNDLE_ICON));
    expect([...png.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    // IHDR: width and height, big-endian, right after the chunk's length and type.
    expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([512, 512]);
    const { code, output } = await mcpb("validate", join(dir, "manifest.json"));
    expect(output).toContain("Manifest schema validation passes");
    expect(output).toContain("Icon validation passed");
    expect(code).toBe(0);
  });

  /** Connects to the installed bundle's server as Claude Desktop does, from the manifest. */
  async function start(userConfig: Record<string, string>) {
    const manifest = JSON.parse(readFileSync(join(dir, "manifest.json"), "utf8")) as McpbManifestAny;
    const config = await getMcpConfigForManifest({
      manifest,
      extensionPath: dir,
      systemDirs: { HOME: home.home },
      userConfig,
      pathSeparator: process.platform === "win32" ? "\\" : "/",
    });
    if (!config) throw new Error("the manifest gave no server configuration");
    const transport = new StdioClientTransport({
      command: config.command,
      args: config.args ?? [],
      env: { ...home.env, ...(config.env ?? {}) },
      cwd: outside,
      stderr: "pipe",
    });
    const client = new Client({ name: "claude-desktop-like", version: "0.0.0" });
    await client.connect(transport);
    return { client, config };
  }

  async function currentBranch(client: Client) {
    const reply = await client.callTool({ name: "get_current_branch", arguments: {} });
    return JSON.parse((reply.content as Array<{ text: string }>)[0]?.text ?? "") as {
      status: string;
      data?: { branch?: string; jira_issue?: string | null; pr_number?: number | null };
      error?: { code: string };
    };
  }

  test("started from the manifest with settings filled in, it serves the chosen repository", async () => {
    const { client, config } = await start({
      repository: repo.root,
      github_token: "ghp_sampletoken",
      jira_host: "",
      jira_email: "",
      disable: "jira, prompts",
    });
    try {
      expect(config.args).toEqual([]);
      expect(config.env).toMatchObject({ TWIG_MCP_REPO: repo.root, JIRA_HOST: "", TWIG_MCP_DISABLE: "jira, prompts" });
      expect(client.getServerVersion()?.version).toBe(pkg.version);
      const { tools } = await client.listTools();
      const names = tools.map((t) => t.name);
      expect(names).toContain("get_pull_request");
      expect(names.filter((n) => n.includes("jira"))).toEqual([]);
      expect(client.getServerCapabilities()?.prompts).toBeUndefined();
      const reply = await currentBranch(client);
      expect(reply.status).toBe("ok");
      expect(reply.data).toMatchObject({ branch: "feature/auth", jira_issue: "SHOP-123", pr_number: 42 });
    } finally {
      await client.close();
    }
  }, 30_000);

  test("with every optional field left blank it serves as it does without --repo", async () => {
    const { client, config } = await start({});
    try {
      expect(config.env?.TWIG_MCP_REPO).toBe("");
      expect(JSON.stringify(config)).not.toContain("${user_config");
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toContain("get_jira_issue");
      const reply = await currentBranch(client);
      expect(reply.error?.code).toBe("no_repo");
      // A blank Jira site is an unset one, not a malformed one.
      const jira = await client.callTool({ name: "get_jira_issue", arguments: { issue_key: "SHOP-1" } });
      const envelope = JSON.parse((jira.content as Array<{ text: string }>)[0]?.text ?? "") as {
        error?: { code: string; message: string };
      };
      expect(envelope.error?.code).toBe("credentials_missing");
      expect(envelope.error?.message).toContain("JIRA_HOST");
    } finally {
      await client.close();
    }
  }, 30_000);
});
