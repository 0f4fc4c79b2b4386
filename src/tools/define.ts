import type * as v from "valibot";
import type { Result } from "../core/result.ts";
import type { ServiceContext } from "../services/services.ts";

/** Tools come in groups so `--disable github|jira` can remove a whole integration. */
export type ToolGroup = "local" | "github" | "jira";

/** `destructiveHint` is left out: MCP gives it meaning only for tools that are not read-only. */
export interface ToolAnnotations {
  readOnlyHint: true;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

/**
 * What a handler gets besides its arguments: the cancellation of the MCP request it serves, and
 * the other enabled tools, for a tool that composes them.
 */
export interface CallInfo {
  signal: AbortSignal;
  /** Set by the registry; absent only when a test calls a handler by itself. */
  invoke?: ToolInvoker;
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

/** A tool's arguments as a caller writes them, plus the `repo` selector the wire layer adds. */
export type InvokeArgs<I extends v.GenericSchema> = v.InferInput<I> & { repo?: string };

/**
 * Runs another tool with the same validation, repository selection and output check as a
 * `tools/call`, typed by its declaration: the result is the tool's output schema, so a prompt or
 * resource reads it without casts. `null` when the tool's group is turned off (`--disable`).
 */
export type ToolInvoker = <I extends v.GenericSchema, O extends v.GenericSchema>(
  tool: ToolDefinition<I, O>,
  args: InvokeArgs<I>,
) => Promise<Result<v.InferOutput<O>> | null>;

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
  // Method syntax on purpose: it lets a ToolDefinition<I, O> stand in a list of ToolDefinition.
  handler(args: v.InferOutput<I>, ctx: ServiceContext, call: CallInfo): Promise<Result<v.InferOutput<O>>>;
  /**
   * Cuts an answer that is over the reply budget down to one that fits, still valid under `output`,
   * saying what was left out and how to get it. Called only when the answer is too big; a tool
   * without it that is over gets an error naming the budget instead of an oversized reply.
   */
  fit?(
    answer: v.InferOutput<O>,
    budget: ReplyBudget,
    args: v.InferOutput<I>,
    ctx: ServiceContext,
  ): v.InferOutput<O> | Promise<v.InferOutput<O>>;
}

/** Declares a tool, keeping the link between its schemas and its handler for typed invocation. */
export function defineTool<I extends v.GenericSchema, O extends v.GenericSchema>(
  tool: ToolDefinition<I, O>,
): ToolDefinition<I, O> {
  return tool;
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
