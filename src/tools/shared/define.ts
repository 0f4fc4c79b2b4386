import type * as v from "valibot";
import type { Result } from "../../core/result.ts";
import type { ServiceContext } from "./context.ts";

/** Tools come in groups so `--disable github|jira` can remove a whole integration. */
export type ToolGroup = "local" | "github" | "jira";

// No `destructiveHint`/`idempotentHint`: MCP gives them meaning only for tools that are not read-only.
export type ToolAnnotations = { readOnlyHint: true; openWorldHint: boolean };

/** Claude Code's `_meta` hints; `alwaysLoad` (kept out of tool search) only for a session's first questions. */
export type ToolMeta = { "anthropic/alwaysLoad"?: true; "anthropic/maxResultSizeChars"?: number };

/** What a handler gets besides its arguments: a test may pass only `signal`; `enabled` reflects `--disable`. */
export interface CallInfo {
  signal: AbortSignal;
  invoke?: ToolInvoker;
  budget?: ReplyBudget;
  enabled?: (group: ToolGroup) => boolean;
}

/** What an answer's JSON may cost (`--max-reply-tokens`, and in units of a third of a token) and its measure. */
export interface ReplyBudget {
  readonly tokens: number;
  readonly units: number;
  size(value: unknown): number;
}

/** The list cut at its end to fit the reply budget (at least `min` kept); `rest` gives the cut's `hint` and more. */
export interface ListCut<A, I> {
  list: string;
  min?: number;
  rest(answer: A, kept: number, left: number, args: I, ctx: ServiceContext): Partial<A> & { hint: string };
}

/** A tool's arguments as a caller writes them, plus the `repo` selector the wire layer adds. */
export type InvokeArgs<I extends v.GenericSchema> = v.InferInput<I> & { repo?: string };

/** Runs another tool as a `tools/call` would, typed by its declaration; `null` when disabled. */
export type ToolInvoker = <I extends v.GenericSchema, O extends v.GenericSchema>(
  tool: ToolDefinition<I, O>,
  args: InvokeArgs<I>,
) => Promise<Result<v.InferOutput<O>> | null>;

/** One tool, declared once: what the wire layer publishes and the handler it calls. */
export interface ToolDefinition<
  I extends v.GenericSchema = v.GenericSchema,
  O extends v.GenericSchema = v.GenericSchema,
> {
  name: string;
  title: string;
  description: string;
  group: ToolGroup;
  input: I;
  output: O;
  annotations: ToolAnnotations;
  meta?: ToolMeta;
  /** Takes an optional `repo`, resolved into `ctx.repo` by the wire layer (left as is next to `owner`). */
  repoScoped?: boolean;
  // Method syntax on purpose: it lets a ToolDefinition<I, O> stand in a list of ToolDefinition.
  handler(args: v.InferOutput<I>, ctx: ServiceContext, call: CallInfo): Promise<Result<v.InferOutput<O>>>;
  /** Cut only for a pathological repository: tools/list (12.8 KB) does not announce a budget-sized result for it. */
  seldomCut?: true;
  /** The list the registry cuts at its end when the answer is over the reply budget. */
  cut?: ListCut<v.InferOutput<O>, v.InferOutput<I>>;
  /** Cuts an over-budget answer that a list cut cannot, saying what was left out; without either, an error. */
  fit?(
    answer: v.InferOutput<O>,
    budget: ReplyBudget,
    args: v.InferOutput<I>,
    ctx: ServiceContext,
  ): v.InferOutput<O> | Promise<v.InferOutput<O>>;
}

/** GitHub and Jira tools reach systems outside the machine; reading them is still side-effect free. */
export const REMOTE_ANNOTATIONS: ToolAnnotations = { readOnlyHint: true, openWorldHint: true };
export const LOCAL_ANNOTATIONS: ToolAnnotations = { ...REMOTE_ANNOTATIONS, openWorldHint: false };

/** Declares a tool (annotations default to its group's), keeping its schemas linked to its handler. */
export function defineTool<I extends v.GenericSchema, O extends v.GenericSchema>(
  tool: Omit<ToolDefinition<I, O>, "annotations"> & { annotations?: ToolAnnotations },
): ToolDefinition<I, O> {
  return { annotations: tool.group === "local" ? LOCAL_ANNOTATIONS : REMOTE_ANNOTATIONS, ...tool };
}
