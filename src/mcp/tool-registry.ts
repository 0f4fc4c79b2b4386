import * as v from "valibot";
import type { Context } from "../context.ts";
import { toolError } from "../errors.ts";
import type { ToolDefinition, ToolGroup } from "../tools/define.ts";
import { describeIssues } from "../twig/schemas.ts";
import { type CallToolResult, errorResult, okResult } from "./envelope.ts";
import { type JsonObject, jsonSchemaOf } from "./json-schema.ts";

export interface PublishedTool {
  name: string;
  title: string;
  description: string;
  inputSchema: JsonObject;
  outputSchema: JsonObject;
  annotations: JsonObject;
}

/** The enabled tools, their published form computed once, and the call path with its guards. */
export class ToolRegistry {
  readonly #tools = new Map<string, ToolDefinition>();
  #published: PublishedTool[] | null = null;

  constructor(tools: readonly ToolDefinition[], disabled: ReadonlySet<ToolGroup>) {
    for (const tool of [...tools].sort((a, b) => (a.name < b.name ? -1 : 1))) {
      if (!disabled.has(tool.group)) this.#tools.set(tool.name, tool);
    }
  }

  has(name: string): boolean {
    return this.#tools.has(name);
  }

  get(name: string): ToolDefinition | undefined {
    return this.#tools.get(name);
  }

  list(): PublishedTool[] {
    this.#published ??= [...this.#tools.values()].map((tool) => ({
      name: tool.name,
      title: tool.title,
      description: tool.description,
      inputSchema: jsonSchemaOf(tool.input),
      outputSchema: jsonSchemaOf(tool.output, { descriptions: false }),
      annotations: { title: tool.title, ...tool.annotations },
    }));
    return this.#published;
  }

  /**
   * Runs a tool. Arguments are validated first (`null` means "absent", as upstream); a handler that
   * throws is a bug, reported as `internal` while the server keeps serving; a result that does not
   * match the declared output schema is never sent (strict clients would reject it).
   */
  async call(tool: ToolDefinition, rawArgs: unknown, ctx: Context, signal: AbortSignal): Promise<CallToolResult> {
    const args = v.safeParse(tool.input, withoutNulls(rawArgs ?? {}));
    if (!args.success) {
      return errorResult(
        toolError(
          "invalid_params",
          `Invalid arguments for ${tool.name}: ${describeIssues(args.issues)}`,
          "Check the argument names and types against the tool's inputSchema.",
        ),
      );
    }
    try {
      const result = await tool.handler(args.output, ctx, { signal });
      if (!result.ok) return errorResult(result.error);
      const checked = v.safeParse(tool.output, result.value);
      if (!checked.success) {
        ctx.log.error(`${tool.name} produced output outside its schema: ${describeIssues(checked.issues)}`);
        return errorResult(toolError("internal", `${tool.name} produced an invalid result`));
      }
      return okResult(result.value as Record<string, unknown>);
    } catch (error) {
      ctx.log.error(`${tool.name} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
      return errorResult(toolError("internal", `${tool.name} failed unexpectedly: ${String(error)}`));
    }
  }
}

function withoutNulls(args: unknown): unknown {
  if (typeof args !== "object" || args === null || Array.isArray(args)) return args;
  return Object.fromEntries(Object.entries(args).filter(([, value]) => value !== null));
}
