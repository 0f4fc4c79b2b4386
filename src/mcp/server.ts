import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError } from "@modelcontextprotocol/sdk/types.js";
import pkg from "../../package.json" with { type: "json" };
import type { Context } from "../context.ts";
import type { ToolRegistry } from "./tool-registry.ts";

export const SERVER_INSTRUCTIONS =
  "Twig MCP server. Provides read-only access to branch metadata, Jira issues, and GitHub PRs for the current repository. " +
  "Start with get_current_branch (what the user is on) and get_branch_tree or get_branch_stack (how their stacked branches relate); " +
  "every tool only reads, so calling them is always safe.";

/** The MCP server over our tool registry; transport-agnostic (stdio in production, in-memory in tests). */
export function createMcpServer(ctx: Context, tools: ToolRegistry): Server {
  const server = new Server(
    { name: "twig-mcp", title: "twig", version: pkg.version },
    { capabilities: { tools: { listChanged: false } }, instructions: SERVER_INSTRUCTIONS },
  );

  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: tools.list() }));

  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const { name, arguments: args } = request.params;
    const tool = tools.get(name);
    if (!tool) throw new McpError(ErrorCode.InvalidParams, `tool not found: ${name}`);
    ctx.log.debug(`tools/call ${name}`);
    return tools.call(tool, args, ctx, extra.signal);
  });

  return server;
}
