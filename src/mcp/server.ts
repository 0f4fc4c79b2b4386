import { fileURLToPath } from "node:url";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  RootsListChangedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import pkg from "../../package.json" with { type: "json" };
import type { ServiceContext as Context } from "../services/services.ts";
import { isReusableAnswer } from "../tools/reusable-answer.ts";
import { registerCompletions } from "./completions.ts";
import { dataJsonOf } from "./envelope.ts";
import { LazyJsonSchemaValidator } from "./lazy-schema-validator.ts";
import { forwardLogsToClient } from "./logging.ts";
import { isPlainToolCall } from "./plain-shapes.ts";
import { registerPrompts } from "./prompts.ts";
import { registerResources } from "./resources.ts";
import { ResultJson } from "./result-json.ts";
import type { StdioServerTransport } from "./stdio-transport.ts";
import type { ToolRegistry } from "./tool-registry.ts";

export const SERVER_INSTRUCTIONS =
  "Twig MCP server. Provides read-only access to branch metadata, Jira issues, and GitHub PRs for the current repository. " +
  "Start with get_current_branch (what the user is on) and get_branch_tree or get_branch_stack (how their stacked branches relate); " +
  "every tool only reads, so calling them is always safe.";

export interface ServerFeatures {
  prompts: boolean;
  resources: boolean;
}

export interface McpServerHandle {
  server: Server;
  /**
   * Connects the server to our stdio transport: `server.connect`, plus plain requests handed
   * straight to the protocol's request dispatch (see {@link dispatchPlainRequestsDirectly}).
   */
  connect(transport: StdioServerTransport): Promise<void>;
  /** Writes replies reusing tool data already serialised (give `serialize` to the transport). */
  resultJson: ResultJson;
  /** Releases file watchers; the process may then exit. */
  dispose(): void;
}

/** The MCP server over our tool registry; transport-agnostic (stdio in production). */
export function createMcpServer(
  baseCtx: Context,
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
  const ctx: Context = { ...baseCtx, log: forwardLogsToClient(server, baseCtx.log) };

  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: tools.list() }));

  const resultJson = new ResultJson();
  const callTool = async (name: string, args: Record<string, unknown> | undefined, extra: CallExtra) => {
    const tool = tools.get(name);
    if (!tool) throw new McpError(ErrorCode.InvalidParams, `tool not found: ${name}`);
    ctx.log.debug(`tools/call ${name}`);
    const result = await tools.call(tool, args, ctx, extra.signal);
    const json = dataJsonOf(result);
    const text = result.content[0]?.text;
    if (json !== undefined && text !== undefined && !extra.signal.aborted) {
      const data = result.structuredContent;
      resultJson.remember(extra.requestId, text, json, isReusableAnswer(data) ? data : undefined);
    }
    return result;
  };
  server.setRequestHandler(CallToolRequestSchema, (request, extra) =>
    callTool(request.params.name, request.params.arguments, extra),
  );

  if (features.prompts) registerPrompts(server, ctx, tools);
  const releaseWatchers = features.resources ? registerResources(server, ctx, tools) : () => {};
  if (features.prompts || features.resources) registerCompletions(server, ctx, features);
  watchClientRoots(server, ctx);
  answerBadParamsAsInvalidParams(server);
  callPlainToolsDirectly(server, callTool);
  const connect = async (transport: StdioServerTransport) => {
    await server.connect(transport);
    dispatchPlainRequestsDirectly(server, transport);
  };
  return { server, connect, resultJson, dispose: releaseWatchers };
}

/**
 * The SDK tells a message's kind by running it through its response, error and request schemas in
 * turn: two failed zod parses (each building its issue list) and one that passes, for every
 * request. Our transport has already recognised a plain request (`isPlainRequest`, exactly what
 * `isJSONRPCRequest` accepts), so it hands it to the protocol's request dispatch
 * (`Protocol._onrequest`) directly. Everything else takes the SDK's path. Should a future SDK
 * rename the method, every message takes that path and test/mcp/stdio-transport.test.ts fails.
 */
function dispatchPlainRequestsDirectly(server: Server, transport: StdioServerTransport): void {
  const dispatch = (server as unknown as { _onrequest?: unknown })._onrequest;
  if (typeof dispatch !== "function") return;
  transport.onrequest = (request) => dispatch.call(server, request, undefined);
}

type RequestHandler = (request: unknown, extra: unknown) => Promise<unknown>;
type CallExtra = { signal: AbortSignal; requestId: string | number };

/**
 * On every `tools/call` the SDK checks the request against its schema twice (once per handler
 * layer) and our result against `CallToolResultSchema`. For the request every client sends (a tool
 * name, arguments, perhaps a progress token) the request checks certainly pass, and our results
 * come from the envelope alone with their data checked against the tool's own output schema; so
 * such a call goes straight to our handler. Anything else (a task, a malformed request) takes the
 * SDK's path, with its exact checks and errors. Like the wrapping below, this uses the SDK's own
 * handler table; without it every call takes the SDK's path.
 */
function callPlainToolsDirectly(
  server: Server,
  callTool: (name: string, args: Record<string, unknown> | undefined, extra: CallExtra) => Promise<unknown>,
): void {
  const handlers = (server as unknown as { _requestHandlers?: unknown })._requestHandlers;
  if (!(handlers instanceof Map)) return;
  const checked = handlers.get("tools/call") as RequestHandler | undefined;
  if (checked === undefined) return;
  handlers.set("tools/call", (request: unknown, extra: unknown) => {
    const params = (request as { params?: unknown }).params;
    if (!isPlainToolCall(params)) return checked(request, extra);
    return callTool(params.name, params.arguments, extra as CallExtra);
  });
}

/**
 * The SDK checks each request's params against the method's schema before our handler runs, and
 * a failure there (`"arguments": "x"`, a prompt argument that is a number) reached the client as
 * `-32603 Internal error` with a dump of schema issues. Wrapping every registered handler turns
 * exactly those failures into `-32602 Invalid params` with the first problem named. The handler
 * table is the SDK's own (`Protocol._requestHandlers`); if a future SDK moves it, nothing is
 * wrapped and the protocol tests say so.
 */
function answerBadParamsAsInvalidParams(server: Server): void {
  const handlers = (server as unknown as { _requestHandlers?: unknown })._requestHandlers;
  if (!(handlers instanceof Map)) return;
  for (const [method, handler] of handlers as Map<string, RequestHandler>) {
    handlers.set(method, async (request: unknown, extra: unknown) => {
      try {
        return await handler(request, extra);
      } catch (error) {
        const problem = schemaProblem(error);
        if (problem === null) throw error;
        throw new McpError(ErrorCode.InvalidParams, `Invalid params for ${method}: ${problem}`);
      }
    });
  }
}

/** The first issue of a zod validation error (`params.arguments: expected record, received string`), else `null`. */
function schemaProblem(error: unknown): string | null {
  if (!(error instanceof Error) || !/ZodError$/.test(error.name)) return null;
  const issues = (error as { issues?: unknown }).issues;
  if (!Array.isArray(issues)) return null;
  const first = issues[0] as { path?: unknown[]; message?: unknown } | undefined;
  const path = Array.isArray(first?.path) ? first.path.map(String).join(".") : "";
  const message = typeof first?.message === "string" ? first.message.replace(/^Invalid input: /, "") : "invalid";
  return path === "" ? message : `${path}: ${message}`;
}

/**
 * Claude Desktop and other clients start servers in an unrelated directory but tell them the
 * user's project through roots; the first root inside a git repository becomes the default.
 */
function watchClientRoots(server: Server, ctx: Context): void {
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
