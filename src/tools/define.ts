import type * as v from "valibot";
import type { Context } from "../core/context.ts";
import type { Result } from "../core/result.ts";

/** Tools come in groups so `--disable github|jira` can remove a whole integration. */
export type ToolGroup = "local" | "github" | "jira";

/** `destructiveHint` is left out: MCP gives it meaning only for tools that are not read-only. */
export interface ToolAnnotations {
  readOnlyHint: true;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

/** What a handler gets besides its arguments: the cancellation of the MCP request it serves. */
export interface CallInfo {
  signal: AbortSignal;
  /**
   * The reply budget of this call, when there is one: a handler whose full answer is plainly over
   * it may cut it at once, as its `fit` would, instead of building what would be thrown away.
   */
  budget?: ReplyBudget;
}

/**
 * How much room a reply has: the most UTF-8 bytes the answer may take as JSON (the envelope's own
 * bytes already taken off), and the measure the registry uses, so a hook fits by the same rule.
 */
export interface ReplyBudget {
  /** The budget as set (`--max-reply-tokens`). */
  readonly tokens: number;
  readonly bytes: number;
  size(value: unknown): number;
}

/**
 * One tool, declared once: everything the wire layer publishes (name, title, description,
 * JSON Schemas derived from the valibot schemas, annotations) and the handler it calls.
 */
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
  /**
   * The tool reads one repository. It then takes an optional `repo` (a twig registry name or an
   * absolute path) that the wire layer resolves into `ctx.repo` before the handler runs; with an
   * `owner` argument present, `repo` is left to the handler (GitHub's owner/repo pair).
   */
  repoScoped?: boolean;
  handler: (args: v.InferOutput<I>, ctx: Context, call: CallInfo) => Promise<Result<v.InferOutput<O>>>;
  /**
   * Cuts an answer that is over the reply budget down to one that fits, still valid under `output`,
   * saying what was left out and how to get it. Called only when the answer is too big; a tool
   * without it that is over gets an error naming the budget instead of an oversized reply.
   */
  fit?: (
    answer: v.InferOutput<O>,
    budget: ReplyBudget,
    args: v.InferOutput<I>,
    ctx: Context,
  ) => v.InferOutput<O> | Promise<v.InferOutput<O>>;
}

/** Keeps the generic link between a tool's schemas and its handler while erasing it for the registry. */
export function defineTool<I extends v.GenericSchema, O extends v.GenericSchema>(
  tool: ToolDefinition<I, O>,
): ToolDefinition {
  return tool as unknown as ToolDefinition;
}

export const LOCAL_ANNOTATIONS: ToolAnnotations = {
  readOnlyHint: true,
  idempotentHint: true,
  openWorldHint: false,
};

/** GitHub and Jira tools reach systems outside the machine; reading them is still side-effect free. */
export const REMOTE_ANNOTATIONS: ToolAnnotations = {
  readOnlyHint: true,
  idempotentHint: true,
  openWorldHint: true,
};
