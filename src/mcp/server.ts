import { fileURLToPath } from "node:url";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  CallToolRequestSchema,
  CompleteRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  type LoggingLevel,
  LoggingLevelSchema,
  McpError,
  RootsListChangedNotificationSchema,
  SetLevelRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import pkg from "../../package.json" with { type: "json" };
import type { Logger, LogLevel } from "../core/log.ts";
import { plainText, printable } from "../core/plain-text.ts";
import { closeNames, orList } from "../core/suggest.ts";
import {
  branchCandidates,
  completeFrom,
  linkedCandidates,
  repositoryCandidates,
} from "../repo/completion-candidates.ts";
import type { ServiceContext } from "../tools/shared/context.ts";
import { serverInstructions } from "./instructions.ts";
import { contextForRepo, registerPrompts } from "./prompts.ts";
import { BRANCH_CONTEXT_TEMPLATE, registerResources } from "./resources.ts";
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
      const guesses = closeNames(name, enabled);
      const message = `tool not found: '${printable(name)}'${guesses.length > 0 ? `; did you mean ${orList(guesses)}?` : ""} Enabled tools: ${enabled.join(", ")}.`;
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

const NOTHING = { completion: { values: [], total: 0, hasMore: false } };
/** The prompt arguments completed besides `repo`. */
const PROMPT_ARGUMENTS = ["branch", "pr_number", "issue_key"] as const;

/** Completes prompt arguments and the branch-context template's `name`, within a chosen `repo`. */
function registerCompletions(server: Server, ctx: ServiceContext, features: { prompts: boolean; resources: boolean }) {
  server.setRequestHandler(CompleteRequestSchema, async (request) => {
    const { ref, argument, context } = request.params;
    const isPrompt = ref.type === "ref/prompt" && features.prompts;
    const isTemplate = ref.type === "ref/resource" && features.resources && ref.uri === BRANCH_CONTEXT_TEMPLATE;
    if (!isPrompt && !isTemplate) return NOTHING;
    if (argument.name === "repo") return { completion: completeFrom(await repositoryCandidates(ctx), argument.value) };
    const kind = isPrompt
      ? PROMPT_ARGUMENTS.find((name) => name === argument.name)
      : argument.name === "name" && "branch";
    if (!kind) return NOTHING;
    const repoCtx = await contextForRepo(ctx, context?.arguments?.repo || undefined).catch(() => null);
    if (!repoCtx?.repo.ok) return NOTHING;
    const candidates = kind === "branch" ? await branchCandidates(repoCtx) : await linkedCandidates(repoCtx, kind);
    return { completion: completeFrom(candidates, argument.value) };
  });
}

/** MCP's levels, least severe first. */
const severity = (level: LoggingLevel) => LoggingLevelSchema.options.indexOf(level);

const MCP_LEVEL: Record<LogLevel, LoggingLevel> = {
  error: "error",
  warn: "warning",
  info: "info",
  debug: "debug",
  trace: "debug",
};

/**
 * Mirrors log lines to the client at or above its `logging/setLevel`, only after `initialize`: the
 * stateless revision forbids unrequested notifications. Token-handling modules scrub secrets before logging.
 */
export function forwardLogsToClient(server: Server, log: Logger): Logger {
  let threshold: number = severity("warning");
  server.setRequestHandler(SetLevelRequestSchema, async (request) => {
    threshold = severity(request.params.level);
    return {};
  });
  const forwarding = (level: LogLevel) => (message: string) => {
    log[level](message);
    const mcpLevel = MCP_LEVEL[level];
    if (severity(mcpLevel) < threshold || !server.transport || server.getClientVersion() === undefined) return;
    // A client may show these to a person or a model, as the stderr log is shown: plain text only.
    server.sendLoggingMessage({ level: mcpLevel, logger: "twig-mcp", data: plainText(message) }).catch(() => {});
  };
  const levels = Object.keys(MCP_LEVEL) as LogLevel[];
  return {
    ...(Object.fromEntries(levels.map((level) => [level, forwarding(level)])) as Record<LogLevel, (m: string) => void>),
    enabled: (level) => log.enabled(level) || severity(MCP_LEVEL[level]) >= threshold,
  };
}
