/**
 * Raw JSON-RPC sessions of both protocol eras against the compiled binary: MCP 2025-11-25 (and the
 * older revisions) opened with `initialize`, and MCP 2026-07-28, where every request carries its
 * version and client capabilities in `_meta` and no `initialize` is sent.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { MAX_INSTRUCTIONS_BYTES } from "../../src/mcp/instructions.ts";
import { RawServer, toolResult } from "../hardening/support/raw-server.ts";
import { makeWorld, type World } from "../hardening/support/world.ts";
import { TOOLS_LIST_MAX_BYTES } from "../support/tools-list.ts";

// Each test drives a compiled server; on a busy machine that takes longer than bun's 5 s default.
setDefaultTimeout(30_000);

const STATELESS = "2026-07-28";
const meta = (version: unknown = STATELESS, capabilities: unknown = {}) => ({
  "io.modelcontextprotocol/protocolVersion": version,
  "io.modelcontextprotocol/clientCapabilities": capabilities,
  "io.modelcontextprotocol/clientInfo": { name: "raw", version: "0" },
});
const SERVER_INFO = { "io.modelcontextprotocol/serverInfo": expect.objectContaining({ name: "twig-mcp" }) };
const bytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value), "utf8");

let world: World;
let legacy: RawServer;
let stateless: RawServer;
let legacyInit: Record<string, unknown>;

beforeAll(async () => {
  world = makeWorld();
  [legacy, stateless] = await Promise.all([
    RawServer.start({ cwd: world.root, env: world.env }),
    RawServer.start({ cwd: world.root, env: world.env }),
  ]);
  legacyInit = await legacy.initialize();
});
afterAll(async () => {
  await Promise.all([legacy?.close(), stateless?.close()]);
  world?.cleanup();
});

describe("2025-11-25: initialize first", () => {
  test("initialize answers the revision asked for, with instructions naming the tools by question", () => {
    expect(legacyInit.protocolVersion).toBe("2025-11-25");
    expect(legacyInit.capabilities).toMatchObject({ tools: {}, logging: {}, resources: { subscribe: true } });
    const instructions = legacyInit.instructions as string;
    expect(Buffer.byteLength(instructions, "utf8")).toBeLessThanOrEqual(MAX_INSTRUCTIONS_BYTES);
    expect(instructions).toContain("What am I working on? ");
    expect(instructions).toMatch(/-> get_branch_context\n/);
    expect(instructions).toContain("-> get_pr_status");
  });

  test("results are as before: no resultType, caching hints or serverInfo", async () => {
    const list = await legacy.request("tools/list");
    expect(Object.keys(list.result ?? {})).toEqual(["tools"]);
    const call = await legacy.request("tools/call", { name: "get_current_branch", arguments: {} });
    expect(call.result).not.toHaveProperty("resultType");
    expect(call.result).not.toHaveProperty("_meta");
  });

  test("tools/list is sorted, at most 12.8 KB, and carries Claude Code's _meta", async () => {
    const tools = (await legacy.request("tools/list")).result?.tools as Array<{ name: string; _meta?: object }>;
    expect(bytes({ tools })).toBeLessThanOrEqual(TOOLS_LIST_MAX_BYTES);
    const names = tools.map((tool) => tool.name);
    expect(names).toEqual([...names].sort());
    expect(tools.find((tool) => tool.name === "get_branch_context")?._meta).toEqual({ "anthropic/alwaysLoad": true });
    expect(tools.find((tool) => tool.name === "list_branches")?._meta).toEqual({
      "anthropic/maxResultSizeChars": 240_000,
    });
  });

  test("an older revision the SDK supports is still served", async () => {
    const old = await RawServer.start({ cwd: world.root, env: world.env });
    try {
      expect((await old.initialize({ protocolVersion: "2025-03-26" })).protocolVersion).toBe("2025-03-26");
      expect((await old.call("get_current_branch")).structured).toMatchObject({ branch: "feature/auth-ui" });
    } finally {
      await old.close();
    }
  });
});

describe("2026-07-28: no initialize, _meta on every request", () => {
  test("server/discover names the revision, the capabilities and the same instructions", async () => {
    const discover = await stateless.request("server/discover", { _meta: meta() });
    expect(discover.result).toEqual({
      supportedVersions: [STATELESS],
      capabilities: {
        tools: { listChanged: false },
        prompts: { listChanged: false },
        resources: { listChanged: false },
        completions: {},
      },
      instructions: legacyInit.instructions,
      resultType: "complete",
      ttlMs: expect.any(Number),
      cacheScope: "public",
      _meta: SERVER_INFO,
    });
  });

  test("tools/list and tools/call are served without initialize, as complete results naming the server", async () => {
    const list = await stateless.request("tools/list", { _meta: meta() });
    const legacyList = await legacy.request("tools/list");
    expect(list.result).toEqual({
      ...legacyList.result,
      resultType: "complete",
      ttlMs: expect.any(Number),
      cacheScope: "public",
      _meta: SERVER_INFO,
    });
    const call = await stateless.request("tools/call", { name: "get_current_branch", arguments: {}, _meta: meta() });
    expect(call.result).toMatchObject({ resultType: "complete", _meta: SERVER_INFO });
    expect(toolResult(call).structured).toMatchObject({ branch: "feature/auth-ui" });
  });

  test("repository data is private and never fresh; a missing resource is -32602, not -32002", async () => {
    const read = await stateless.request("resources/read", { uri: "twig://repo/tree", _meta: meta() });
    expect(read.result).toMatchObject({ resultType: "complete", ttlMs: 0, cacheScope: "private" });
    const missing = await stateless.request("resources/read", { uri: "twig://nothing/here", _meta: meta() });
    expect(missing.error?.code).toBe(-32602);
    expect((await legacy.request("resources/read", { uri: "twig://nothing/here" })).error?.code).toBe(-32002);
  });

  test("a missing version or capabilities is -32602; a version not served is -32022 listing the one that is", async () => {
    const noVersion = await stateless.request("tools/list", {
      _meta: { "io.modelcontextprotocol/clientCapabilities": {} },
    });
    expect(noVersion.error).toMatchObject({ code: -32602, message: expect.stringContaining("protocolVersion") });
    const noCapabilities = await stateless.request("tools/list", {
      _meta: { "io.modelcontextprotocol/protocolVersion": STATELESS },
    });
    expect(noCapabilities.error).toMatchObject({
      code: -32602,
      message: expect.stringContaining("clientCapabilities"),
    });
    expect((await stateless.request("server/discover", {})).error?.code).toBe(-32602);
    for (const version of ["1900-01-01", "2025-11-25", 20260728]) {
      const refused = await stateless.request("server/discover", { _meta: meta(version) });
      const expected =
        typeof version === "string"
          ? {
              code: -32022,
              message: "Unsupported protocol version",
              data: { supported: [STATELESS], requested: version },
            }
          : { code: -32602 };
      expect(refused.error).toMatchObject(expected);
    }
    // An 8 MB version is named back clipped, not echoed whole.
    const huge = await stateless.request("server/discover", { _meta: meta("9".repeat(8 * 1024 * 1024)) });
    expect(huge.error).toMatchObject({ code: -32022, data: { requested: `${"9".repeat(63)}…` } });
  });

  test("methods the revision removed are unknown; the session stays served and silent", async () => {
    const removed: Array<[string, Record<string, unknown>]> = [
      ["ping", {}],
      ["logging/setLevel", { level: "debug" }],
      ["resources/subscribe", { uri: "twig://repo/tree" }],
      ["initialize", { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "0" } }],
    ];
    for (const [method, params] of removed) {
      expect((await stateless.request(method, { ...params, _meta: meta() })).error?.code).toBe(-32601);
      // Without the params the old revision required: still unknown, not refused for its params.
      expect((await stateless.request(method, { _meta: meta() })).error?.code).toBe(-32601);
    }
    expect((await stateless.request("tools/list", { _meta: meta() })).result?.resultType).toBe("complete");
    // Nothing but answers: no roots request, no log notification, and every line JSON-RPC.
    expect(stateless.serverRequests).toEqual([]);
    expect(stateless.notifications).toEqual([]);
    expect(stateless.stdoutProblems()).toEqual([]);
  });
});

describe("instructions follow the enabled tools", () => {
  test("with --disable github,jira, only the tools left are named, within 2 KB", async () => {
    const local = await RawServer.start({
      cwd: world.root,
      env: world.env,
      args: ["--disable", "github", "--disable", "jira"],
    });
    try {
      const discover = await local.request("server/discover", { _meta: meta() });
      const instructions = discover.result?.instructions as string;
      expect(Buffer.byteLength(instructions, "utf8")).toBeLessThanOrEqual(MAX_INSTRUCTIONS_BYTES);
      expect(instructions).toContain("-> get_branch_context");
      expect(instructions).not.toContain("get_pr_status");
      expect(instructions).not.toContain("get_jira_issue");
    } finally {
      await local.close();
    }
  });
});
