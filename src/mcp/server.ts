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
import { LazyJsonSchemaValidator } from "./lazy-schema-validator.ts";
import { forwardLogsToClient } from "./logging.ts";
import { invalidParamsReply } from "./params-check.ts";
import { registerPrompts } from "./prompts.ts";
import { registerResources } from "./resources.ts";
import type { ToolRegistry } from "./tool-registry.ts";

export const SERVER_INSTRUCTIONS =
  "Twig MCP server. Provides read-only access to branch metadata, Jira issues, and GitHub PRs for the current repository. " +
  "Start with get_branch_context (the current branch, its stack, and its PR and Jira status in one call); get_branch_tree shows how all stacked branches relate; " +
  "every tool only reads, so calling them is always safe.";

export interface ServerFeatures {
  prompts: boolean;
  resources: boolean;
}

export interface McpServerHandle {
  server: Server;
  /** `server.connect`, with requests whose params the SDK's schema refuses answered `-32602` first. */
  connect(transport: Transport): Promise<void>;
  /** Releases file watchers; the process may then exit. */
  dispose(): void;
}

/** The MCP server over our tool registry; transport-agnostic (stdio in production). */
export function createMcpServer(
  baseCtx: ServiceContext,
  tools: ToolRegistry,
  features: ServerFeatures = { prompts: true, resources: true },
): McpServerHandle {
  const server = new Server(
    { name: "twig-mcp", title: "twig", version: pkg.version },
    {
      capabilities: {
        tools: { listChanged: false },
        logging: {},
        ...(features.prompts ? { prompts: { listChanged: false } } : {}),
        ...(features.resources ? { resources: { subscribe: true, listChanged: false } } : {}),
        ...(features.prompts || features.resources ? { completions: {} } : {}),
      },
      instructions: SERVER_INSTRUCTIONS,
      jsonSchemaValidator: new LazyJsonSchemaValidator(),
    },
  );
  const ctx: ServiceContext = { ...baseCtx, log: forwardLogsToClient(server, baseCtx.log) };

  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: tools.list() }));

  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const { name, arguments: args } = request.params;
    const tool = tools.get(name);
    if (!tool) throw unknownTool(name, tools.names());
    ctx.log.debug(`tools/call ${name}`);
    return tools.call(tool, args, ctx, extra.signal);
  });

  if (features.prompts) registerPrompts(server, ctx, tools);
  const releaseWatchers = features.resources ? registerResources(server, ctx, tools) : () => {};
  if (features.prompts || features.resources) registerCompletions(server, ctx, features);
  watchClientRoots(server, ctx);
  const connect = async (transport: Transport) => {
    await server.connect(transport);
    // `onmessage` is where the protocol listens (the public Transport contract): each message
    // passes the params check on its way there.
    const deliver = transport.onmessage;
    transport.onmessage = (message, extra) => {
      const refusal = invalidParamsReply(message);
      if (refusal === null) deliver?.(message, extra);
      else transport.send(refusal).catch((error) => ctx.log.debug(`could not answer: ${String(error)}`));
    };
  };
  return { server, connect, dispose: releaseWatchers };
}

/** An unknown tool is a protocol error (-32602) in MCP; it names the enabled tools for the model. */
function unknownTool(name: string, enabled: readonly string[]): McpError {
  const guess = closest(name, enabled);
  return new McpError(
    ErrorCode.InvalidParams,
    `tool not found: '${printable(name)}'${guess ? `; did you mean '${guess}'?` : ""} Enabled tools: ${enabled.join(", ")}.`,
    { available_tools: enabled },
  );
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
