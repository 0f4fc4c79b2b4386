/**
 * stdout belongs to JSON-RPC. At every verbosity, a session that provokes every kind of output —
 * results, tool errors, protocol errors, warnings about a corrupt state file, MCP log
 * notifications, resource-update notifications, requests to the client — writes nothing to stdout
 * but complete JSON-RPC messages, one per line, in UTF-8. Logs go to stderr.
 */
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { EXAMPLE_STATE, twigJson } from "../support/fixtures.ts";
import { RawServer } from "./support/raw-server.ts";
import { makeWorld, type World } from "./support/world.ts";

// Each test drives a compiled server; on a busy CI machine that takes longer than bun's 5 s default.
setDefaultTimeout(30_000);

let world: World;

beforeAll(() => {
  world = makeWorld();
});
afterAll(() => world?.cleanup());

test.each([[[]], [["-v"]], [["-vv"]], [["-vvv"]], [["-vvvvv", "--disable", "github"]]])(
  "flags %p: every byte on stdout is a JSON-RPC message",
  async (args) => {
    const server = await RawServer.start({ cwd: world.root, env: world.env, args });
    server.onServerRequest = (method) => {
      if (method === "roots/list") return { roots: [{ uri: pathToFileURL(world.root).href, name: "repo" }] };
      throw new Error("unsupported");
    };
    const state = join(world.root, ".twig", "state.json");
    try {
      await server.initialize({ capabilities: { roots: { listChanged: true } } });
      await server.request("logging/setLevel", { level: "debug" });
      await server.request("resources/subscribe", { uri: "twig://repo/tree" });
      for (const name of [
        "get_current_branch",
        "get_branch_tree",
        "list_branches",
        "get_worktrees",
        "list_repositories",
      ]) {
        await server.call(name);
      }
      await server.call("get_branch_metadata", { branch: "../x" });
      await server.request("tools/call", { name: "get_pull_request", arguments: { pr_number: 1 } });
      await server.request("tools/call", { name: "get_jira_issue", arguments: { issue_key: "SHOP-1" } });
      writeFileSync(state, "{ corrupt");
      await server.call("get_current_branch");
      await server.call("list_branches");
      writeFileSync(state, twigJson(EXAMPLE_STATE));
      await server.request("prompts/get", { name: "stack-status", arguments: {} });
      await server.request("prompts/get", { name: "branch-context", arguments: { branch: "feature/auth" } });
      await server.request("resources/read", { uri: "twig://branch/feature%2Fauth/context" });
      await server.request("resources/read", { uri: "twig://nope" });
      await server.request("no/such/method");
      server.send({ jsonrpc: "2.0", method: "notifications/roots/list_changed" });
      server.write("this is not json\n[]\n");
      await server.request("ping");
      await server.until(() => server.notifications.some((n) => n.method === "notifications/resources/updated"));
      await server.request("resources/unsubscribe", { uri: "twig://repo/tree" });
    } finally {
      expect(await server.close()).toBe(0);
    }
    expect(server.lines.length).toBeGreaterThan(20);
    expect(server.notifications.map((n) => n.method)).toContain("notifications/message");
    expect(server.notifications.map((n) => n.method)).toContain("notifications/resources/updated");
    expect(server.serverRequests.map((r) => r.method)).toContain("roots/list");
    expect(server.stdoutProblems()).toEqual([]);
    if (args.length > 0) expect(server.stderr()).toContain("twig-mcp:");
  },
  20_000,
);
