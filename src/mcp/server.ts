import { fileURLToPath } from "node:url";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  RootsListChangedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import pkg from "../../package.json" with { type: "json" };
import { printable } from "../core/plain-text.ts";
import { closest } from "../core/suggest.ts";
import type { ServiceContext } from "../services/services.ts";
import { registerCompletions } from "./completions.ts";
import { serverInstructions } from "./instructions.ts";
import { forwardLogsToClient } from "./logging.ts";
import { registerPrompts } from "./prompts.ts";
import { registerResources } from "./resources.ts";
import { StatelessRequests } from "./stateless.ts";
import type { ToolRegistry } from "./tool-registry.ts";

/** The MCP server over the tool registry; `connect` also serves the stateless revision, `dispose` frees watchers. */
export function createMcpServer(
  baseCtx: ServiceContext,
  tools: ToolRegistry,
  features: { prompts: boolean; resources: boolean } = { prompts: true, resources: true },
) {
  const serverInfo = { name: "twig-mcp", title: "twig", version: pkg.version };
  const capabilities = {
    tools: { listChanged: false },
    logging: {},
    ...(features.prompts ? { prompts: { listChanged: false } } : {}),
    ...(features.resources ? { resources: { subscribe: true, listChanged: false } } : {}),
    ...(features.prompts || features.resources ? { completions: {} } : {}),
  };
  // The stateless revision deprecates logging and replaced resources/subscribe: neither is offered there.
  const { logging: _, resources, ...stateless } = capabilities;
  const statelessCapabilities = { ...stateless, ...(resources ? { resources: { listChanged: false } } : {}) };
  const instructions = serverInstructions(tools.names());
  const server = new Server(serverInfo, { capabilities, instructions });
  const ctx: ServiceContext = { ...baseCtx, log: forwardLogsToClient(server, baseCtx.log) };

  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: tools.list() }));

  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const { name, arguments: args } = request.params;
    const tool = tools.get(name);
    if (!tool) {
      // An unknown tool is a protocol error in MCP; it names the enabled tools for the model.
      const enabled = tools.names();
      const guess = closest(name, enabled);
      const message = `tool not found: '${printable(name)}'${guess ? `; did you mean '${guess}'?` : ""} Enabled tools: ${enabled.join(", ")}.`;
      throw new McpError(ErrorCode.InvalidParams, message, { available_tools: enabled });
    }
    ctx.log.debug(`tools/call ${name}`);
    return tools.call(tool, args, ctx, extra.signal);
  });

  if (features.prompts) registerPrompts(server, ctx, tools);
  const releaseWatchers = features.resources ? registerResources(server, ctx, tools) : () => {};
  if (features.prompts || features.resources) registerCompletions(server, ctx, features);
  watchClientRoots(server, ctx);
  const connect = (transport: Transport) =>
    server.connect(new StatelessRequests(transport, { serverInfo, capabilities: statelessCapabilities, instructions }));
  return { server, connect, dispose: releaseWatchers };
}

/** Clients that start servers elsewhere name the project as a root: the first in git becomes the default. */
function watchClientRoots(server: Server, ctx: ServiceContext): void {
  const selector = ctx.repos;
  if (!selector) return;
  const refresh = () => {
    if (!server.getClientCapabilities()?.roots) return;
    const loading = (async () => {
      try {
        const { roots } = await server.listRoots(undefined, { timeout: 5000 });
        const directories = roots.filter((root) => root.uri.startsWith("file:")).map((root) => fileURLToPath(root.uri));
        await selector.setRoots(directories);
      } catch (error) {
        ctx.log.warn(`could not read the client's roots: ${error instanceof Error ? error.message : String(error)}`);
      }
    })();
    selector.waitFor(loading);
  };
  server.oninitialized = refresh;
  server.setNotificationHandler(RootsListChangedNotificationSchema, async () => refresh());
}
