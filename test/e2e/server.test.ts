import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pkg from "../../package.json" with { type: "json" };
import { createToolRegistry } from "../../src/cli/runtime.ts";
import { binaryPath, runBinary } from "../support/binary.ts";
import { type HermeticHome, makeHermeticHome } from "../support/hermetic-env.ts";
import { startServer } from "../support/mcp-harness.ts";
import { TOOLS_LIST_MAX_BYTES } from "../support/tools-list.ts";

// These tests start processes (the compiled binary, git, builds); on a busy machine that takes longer than bun's 5 s default.
setDefaultTimeout(60_000);

let home: HermeticHome;
let outside: string;

beforeAll(() => {
  home = makeHermeticHome();
  outside = mkdtempSync(join(tmpdir(), "twig-mcp-outside-"));
});
afterAll(() => {
  rmSync(outside, { recursive: true, force: true });
  home.cleanup();
});

function run(args: string[], stdin = "") {
  return runBinary(args, { cwd: outside, env: home.env, stdin });
}

describe("command line", () => {
  test("--version and -V print the package version", async () => {
    for (const flag of ["--version", "-V"]) {
      const { stdout, code } = await run([flag]);
      expect(code).toBe(0);
      expect(stdout).toBe(`twig-mcp ${pkg.version}\n`);
    }
  });

  test("--help describes every flag", async () => {
    const { stdout, code } = await run(["--help"]);
    expect(code).toBe(0);
    for (const flag of ["--repo", "--disable", "--verbose", "--version"]) expect(stdout).toContain(flag);
  });

  test("a bad flag or --disable value is a usage error (exit 2) saying what to type", async () => {
    const bad = await run(["--bogus"]);
    expect(bad.code).toBe(2);
    expect(bad.stdout).toBe("");
    expect(bad.stderr).toContain("--help");
    const disable = await run(["--disable", "gitlab"]);
    expect(disable.code).toBe(2);
    expect(disable.stderr).toContain("github, jira, prompts, resources");
  });

  test("stdin EOF ends the server with status 0 and nothing but JSON-RPC on stdout", async () => {
    const init = JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "0" } },
    });
    const { stdout, code } = await run(["-vvv"], `${init}\n`);
    expect(code).toBe(0);
    const lines = stdout.trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0] as string)).toMatchObject({ jsonrpc: "2.0", id: 1 });
  });

  test.each(["SIGTERM", "SIGINT"] as const)(
    "%s ends the server by its default action (128 + the signal)",
    async (signal) => {
      const proc = Bun.spawn([await binaryPath()], { cwd: outside, env: home.env, stdin: "pipe", stdout: "pipe" });
      // Signalled once it is serving (it has answered a ping), not at some moment during start-up.
      proc.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" })}\n`);
      proc.stdin.flush();
      const reader = proc.stdout.getReader();
      let answer = "";
      while (!answer.includes("\n")) {
        const { value, done } = await reader.read();
        if (done) break;
        answer += new TextDecoder().decode(value);
      }
      expect(JSON.parse(answer)).toMatchObject({ id: 1, result: {} });
      proc.kill(signal);
      // No listener: the kernel ends the process even while a handler holds the event loop.
      expect(await proc.exited).toBe(signal === "SIGTERM" ? 143 : 130);
    },
  );
});

describe("MCP handshake", () => {
  test("serverInfo, instructions, capabilities and the latest protocol version", async () => {
    const server = await startServer({ cwd: outside, env: home.env });
    try {
      expect(server.client.getServerVersion()).toMatchObject({ name: "twig-mcp", version: pkg.version });
      expect(server.client.getInstructions()).toContain("read-only");
      expect(server.client.getServerCapabilities()?.tools).toBeDefined();
    } finally {
      await server.close();
    }
  });

  test.each(["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"])("negotiates protocol %s", async (version) => {
    const request = JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: version, capabilities: {}, clientInfo: { name: "t", version: "0" } },
    });
    const { stdout } = await run([], `${request}\n`);
    expect(JSON.parse(stdout).result.protocolVersion).toBe(version);
  });

  test("outside a repository the server starts and repository tools answer no_repo", async () => {
    const server = await startServer({ cwd: outside, env: home.env });
    try {
      const result = await server.call("get_current_branch");
      expect(result.envelope.error).toEqual({
        code: "no_repo",
        message: "twig-mcp was started outside a git repository",
        hint: "Run twig-mcp from within a git repository, or pass --repo /path/to/repository.",
      });
      const repos = await server.call("list_repositories");
      expect(repos.envelope).toEqual({ status: "ok", data: { repositories: [], default_repository: null } });
    } finally {
      await server.close();
    }
  });

  test("--disable github --disable jira removes those tools", async () => {
    const server = await startServer({ cwd: outside, env: home.env, args: ["--disable", "github", "--disable=jira"] });
    try {
      const { tools } = await server.client.listTools();
      expect(tools.map((t) => t.name)).toEqual([
        "get_branch_context",
        "get_branch_metadata",
        "get_branch_stack",
        "get_branch_tree",
        "get_current_branch",
        "get_stack_status",
        "get_worktrees",
        "list_branches",
        "list_repositories",
      ]);
      await expect(server.client.callTool({ name: "get_pull_request", arguments: {} })).rejects.toThrow(
        /tool not found/,
      );
    } finally {
      await server.close();
    }
  });
});

describe("tools/list", () => {
  test("matches the committed snapshot (what models see changes only on purpose)", async () => {
    const server = await startServer({ cwd: outside, env: home.env });
    try {
      const { tools } = await server.client.listTools();
      for (const tool of tools) {
        expect(tool.annotations).toMatchObject({ readOnlyHint: true });
        expect(tool.outputSchema?.type).toBe("object");
        expect(tool.title).toBeString();
      }
      const local = tools.filter((t) => t.annotations?.openWorldHint === false);
      expect(local).toHaveLength(7);
      expect(tools).toMatchSnapshot();
    } finally {
      await server.close();
    }
  });

  test("the whole reply stays within 12.8 KB (it is in the model's context every turn)", async () => {
    const lines = [
      {
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "test", version: "0" } },
      },
      { jsonrpc: "2.0", method: "notifications/initialized" },
      { jsonrpc: "2.0", id: 2, method: "tools/list" },
    ];
    const { stdout } = await run([], `${lines.map((line) => JSON.stringify(line)).join("\n")}\n`);
    const reply = stdout.split("\n").find((line) => line.includes('"id":2'));
    expect(reply).toBeDefined();
    const published = JSON.parse(reply as string).result.tools;
    expect(published).toHaveLength(16);
    expect(Buffer.byteLength(reply as string)).toBeLessThanOrEqual(TOOLS_LIST_MAX_BYTES);
    // What the binary serves is what the registry derives.
    expect(published).toEqual(JSON.parse(JSON.stringify(createToolRegistry(new Set()).list())));
  });
});
