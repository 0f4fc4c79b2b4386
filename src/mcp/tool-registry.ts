import * as v from "valibot";
import { cancelledError, describeIssues, type ToolError, toolError } from "../core/errors.ts";
import { visible, visibleDeep } from "../core/plain-text.ts";
import { err, ok, type Result } from "../core/result.ts";
import { DEFAULT_MAX_REPLY_TOKENS, MAX_REPLY_TOKENS_ENV } from "../core/settings.ts";
import type { ServiceContext } from "../tools/shared/context.ts";
import type {
  InvokeArgs,
  ReplyBudget,
  ToolDefinition,
  ToolGroup,
  ToolInvoker,
  ToolMeta,
} from "../tools/shared/define.ts";
import { cutList } from "../tools/shared/paging.ts";
import { REPO_PARAM_DESCRIPTION, unpublished } from "../tools/shared/params.ts";
import { argumentsHint, describeArgumentIssue, entriesOf, unknownArgumentError } from "./argument-check.ts";
import { jsonSchemaOf, outputSchemaOf } from "./json-schema.ts";
import { maxResultSizeChars, replyBudget, textUnits, UNITS_PER_TOKEN, unitsUpTo } from "./reply-budget.ts";

export interface CallToolResult {
  [key: string]: unknown;
  content: Array<{ type: "text"; text: string }>;
  structuredContent?: Record<string, unknown>;
  isError: boolean;
}

/** The enabled tools, their published form computed once, and the call path with its guards. */
export class ToolRegistry {
  readonly #tools = new Map<string, ToolDefinition>();
  #published: ReturnType<typeof publishTool>[] | null = null;

  /** `maxReplyTokens`: 0 = unlimited. Tools are kept sorted by name: `tools/list` is deterministic. */
  constructor(
    tools: readonly ToolDefinition[],
    readonly disabled: ReadonlySet<ToolGroup>,
    readonly maxReplyTokens: number = DEFAULT_MAX_REPLY_TOKENS,
  ) {
    for (const tool of [...tools].sort((a, b) => (a.name < b.name ? -1 : 1))) {
      if (!disabled.has(tool.group)) this.#tools.set(tool.name, tool.repoScoped ? withRepoParam(tool) : tool);
    }
  }

  get(name: string): ToolDefinition | undefined {
    return this.#tools.get(name);
  }

  /** The enabled tools' names, in published order. */
  names(): string[] {
    return [...this.#tools.keys()];
  }

  list() {
    const maxResultChars = maxResultSizeChars(this.maxReplyTokens);
    this.#published ??= [...this.#tools.values()].map((tool) => publishTool(tool, maxResultChars));
    return this.#published;
  }

  /** Runs a tool: `null` arguments are absent; a throw is `internal`; an off-schema result is never sent. */
  async call(
    tool: ToolDefinition,
    rawArgs: Record<string, unknown> | undefined,
    ctx: ServiceContext,
    signal: AbortSignal,
  ): Promise<CallToolResult> {
    const result = await this.#run(tool, rawArgs, ctx, signal, true);
    return result.ok ? okResult(result.value.data, result.value.json) : errorResult(result.error);
  }

  /** Runs enabled tools for composition, as `call` but returning typed data with no reply budget. */
  invoker(ctx: ServiceContext, signal: AbortSignal): ToolInvoker {
    return async <I extends v.GenericSchema, O extends v.GenericSchema>(
      tool: ToolDefinition<I, O>,
      args: InvokeArgs<I>,
    ) => {
      const enabled = this.#tools.get(tool.name);
      if (!enabled) return null;
      const result = await this.#run(enabled, args, ctx, signal, false);
      // #run has checked the value against this tool's output schema, so it is that schema's output.
      return result.ok ? ok(result.value.data as v.InferOutput<O>) : result;
    };
  }

  async #run(
    tool: ToolDefinition,
    rawArgs: Record<string, unknown> | undefined,
    ctx: ServiceContext,
    signal: AbortSignal,
    reply: boolean,
  ): Promise<Result<{ data: Record<string, unknown>; json?: string }>> {
    const budget = reply ? replyBudget(this.maxReplyTokens) : null;
    const given = Object.fromEntries(Object.entries(rawArgs ?? {}).filter(([, value]) => value !== null));
    const unknown = unknownArgumentError(tool.name, tool.input, given);
    if (unknown !== null) return err(unknown);
    const args = v.safeParse(tool.input, given);
    if (!args.success) {
      const problem = describeArgumentIssue(tool.input, args.issues);
      const hint = argumentsHint(tool.name, tool.input);
      return err(toolError("invalid_params", `Invalid arguments for ${tool.name}: ${problem}`, hint));
    }
    let callCtx = ctx;
    let callArgs = args.output as Record<string, unknown>;
    if (tool.repoScoped) {
      // `repo` alone selects a local repository (a bad one is an error now); next to `owner` it stays.
      const { repo: selector, ...rest } = callArgs;
      if (callArgs.owner === undefined && typeof selector === "string") {
        if (!ctx.repos)
          return err(toolError("invalid_params", "This server cannot select another repository", "Omit `repo`."));
        const repo = await ctx.repos.select(selector);
        if (!repo.ok) return repo;
        callCtx = { ...ctx, repo };
        callArgs = rest;
      } else if (ctx.repos) callCtx = { ...ctx, repo: await ctx.repos.select(undefined) };
    }
    try {
      // A composing tool's inner calls read the repository this call selected, not the default.
      const { repos: _, ...pinned } = callCtx;
      const info = { signal, invoke: this.invoker(pinned, signal), enabled: (g: ToolGroup) => !this.disabled.has(g) };
      const result = await tool.handler(callArgs, callCtx, budget === null ? info : { ...info, budget });
      // Whatever failed after the client withdrew the call failed because of it.
      if (!result.ok) return signal.aborted ? cancelled(tool.name, signal, ctx) : result;
      // A reply's every string with its invisible characters shown; a composing caller escapes its own output.
      let answer = (reply ? visibleDeep(result.value) : result.value) as Record<string, unknown>;
      let json: string | undefined;
      if (budget !== null) {
        // Measured once; the JSON is reused for the reply, so a reply within budget is built as before.
        json = JSON.stringify(answer);
        const whole = json;
        if (unitsUpTo(json, budget.units) > budget.units) {
          // The refusal states the whole answer's size (unitsUpTo stops early): about 20 ms a megabyte.
          const tooLarge = () => err(overBudget(tool.name, textUnits(whole), budget));
          // Only what is sent is validated: the full answer of a 10,000-branch tree never is.
          if (tool.cut !== undefined) answer = cutList(tool.cut, answer, budget, callArgs, callCtx);
          else if (tool.fit !== undefined)
            answer = (await tool.fit(answer, budget, callArgs, callCtx)) as typeof answer;
          else return tooLarge();
          json = JSON.stringify(answer);
          const fitted = textUnits(json);
          if (fitted > budget.units) {
            ctx.log.error(`${tool.name} fitted its answer to ${fitted} units, over the budget of ${budget.units}`);
            return tooLarge();
          }
        }
      }
      const checked = v.safeParse(tool.output, answer);
      if (!checked.success) {
        ctx.log.error(`${tool.name} produced output outside its schema: ${describeIssues(checked.issues)}`);
        return err(toolError("internal", `${tool.name} produced an invalid result`));
      }
      return ok(json === undefined ? { data: answer } : { data: answer, json });
    } catch (error) {
      if (signal?.aborted) return cancelled(tool.name, signal, ctx);
      ctx.log.error(`${tool.name} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
      return err(toolError("internal", `${tool.name} failed unexpectedly: ${String(error)}`));
    }
  }
}

/** A call the client withdrew: no failure of the tool, and no reply (the SDK sends none for it). */
function cancelled(name: string, signal: AbortSignal, ctx: ServiceContext) {
  ctx.log.warn(`${name} cancelled by the client: ${String(signal.reason)}`);
  return err(cancelledError(name));
}

/** Upstream's envelope `{ status: "ok", data }` byte-for-byte in the text; `structuredContent` the bare data. */
export function okResult(data: Record<string, unknown>, json: string = JSON.stringify(data)): CallToolResult {
  const text = `{"status":"ok","data":${json}}`;
  return { content: [{ type: "text", text }], structuredContent: data, isError: false };
}

function errorResult({ code, message, hint }: ToolError): CallToolResult {
  // Messages may repeat what others wrote: no invisible or control character reaches the model.
  const error = { code, message: visible(message), hint: hint && visible(hint) };
  return { content: [{ type: "text", text: JSON.stringify({ status: "error", error }) }], isError: true };
}

/** What a tool that cannot cut its answer says instead of sending one over the budget. */
function overBudget(name: string, units: number, budget: ReplyBudget) {
  return toolError(
    "reply_too_large",
    `${name}'s answer is about ${Math.ceil(units / UNITS_PER_TOKEN).toLocaleString("en-US")} tokens, over the reply budget of ${budget.tokens.toLocaleString("en-US")} tokens`,
    `Narrow the request with the tool's arguments, or raise the budget: start twig-mcp with --max-reply-tokens N (0 = unlimited) or set ${MAX_REPLY_TOKENS_ENV}.`,
  );
}

/** A tool as `tools/list` shows it; one that cuts its answer to the budget may fill it: Claude Code learns its size. */
function publishTool(tool: ToolDefinition, maxResultChars: number | null) {
  // `openWorldHint` defaults to true in MCP, so only its `false` (the local tools) is worth sending.
  const { openWorldHint, ...rest } = tool.annotations;
  const meta: ToolMeta = {
    ...tool.meta,
    ...((tool.cut ?? tool.fit) !== undefined && !tool.seldomCut && maxResultChars !== null
      ? { "anthropic/maxResultSizeChars": maxResultChars }
      : {}),
  };
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: jsonSchemaOf(tool.input),
    outputSchema: outputSchemaOf(tool.output),
    annotations: openWorldHint ? { ...rest } : { ...rest, openWorldHint },
    ...(Object.keys(meta).length > 0 ? { _meta: meta } : {}),
  };
}

const REPO_PARAM = v.optional(
  v.pipe(v.string(), v.maxLength(4096), unpublished("maxLength"), v.description(REPO_PARAM_DESCRIPTION)),
);

/** Adds the optional `repo` selector to a repository-scoped tool that does not declare its own. */
function withRepoParam(tool: ToolDefinition): ToolDefinition {
  const entries = entriesOf(tool.input);
  if (tool.input.type !== "object" || !entries || "repo" in entries) return tool;
  return { ...tool, input: v.object({ ...entries, repo: REPO_PARAM }) };
}
