import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { createToolRegistry } from "../../src/cli/runtime.ts";
import { ok } from "../../src/core/result.ts";
import { createMcpServer } from "../../src/mcp/server.ts";
import { twigDirs } from "../../src/twig/dirs.ts";
import { createTestContext } from "../support/context.ts";
import { makeRepo } from "../support/git-repo.ts";

const repo = makeRepo({ commit: true });
afterAll(() => repo.cleanup());
mkdirSync(repo.path(".twig"), { recursive: true });
writeFileSync(
  repo.path(".twig", "state.json"),
  JSON.stringify({ version: 1, branches: { main: { branch: "main", jira_issue: "M-1" } }, dependencies: [] }),
);

const ctx = createTestContext({ home: repo.sandbox, dirs: twigDirs({}, "linux", repo.sandbox), repo: ok(repo.root) });
const { server } = createMcpServer(ctx, createToolRegistry(new Set()));
type Handler = (request: unknown, extra: unknown) => Promise<Record<string, unknown>>;
const handlers = (server as unknown as { _requestHandlers: Map<string, Handler> })._requestHandlers;

/** A `tools/call` as the SDK's protocol layer hands it to the method's handler. */
function callTool(params: Record<string, unknown>, requestId = 1) {
  const handler = handlers.get("tools/call");
  if (!handler) throw new Error("no tools/call handler");
  return handler(
    { jsonrpc: "2.0", id: requestId, method: "tools/call", params },
    { signal: new AbortController().signal, requestId },
  );
}

describe("tools/call: the plain request skips the SDK's schema copies, anything else takes its path", () => {
  test("a plain call returns the handler's own result: a repeated answer is the same object", async () => {
    const first = await callTool({ name: "list_branches", arguments: {} });
    const again = await callTool({ name: "list_branches", _meta: { progressToken: "p" } }, 2);
    expect(first.structuredContent).toEqual({ branches: [{ branch: "main", jira_issue: "M-1" }] });
    expect(again.structuredContent).toBe(first.structuredContent as object);
  });

  test("a call with other params takes the SDK's path, which checks and copies the result", async () => {
    const plain = await callTool({ name: "list_branches" });
    const related = { "io.modelcontextprotocol/related-task": { taskId: "t" } };
    const checked = await callTool({ name: "list_branches", _meta: related });
    expect(checked.structuredContent).toEqual(plain.structuredContent as object);
    expect(checked.structuredContent).not.toBe(plain.structuredContent as object);
    await expect(callTool({ name: "list_branches", task: { ttl: 5 } })).rejects.toThrow();
    await expect(callTool({ name: "list_branches", arguments: [] })).rejects.toThrow(/Invalid params/);
  });
});
