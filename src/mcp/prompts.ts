import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  McpError,
} from "@modelcontextprotocol/sdk/types.js";
import { PROMPTS } from "../prompts/all.ts";
import { parsePromptArgs, publishPrompt } from "../prompts/define.ts";
import type { ServiceContext } from "../services/services.ts";
import type { ToolRegistry } from "./tool-registry.ts";

/** Resolves the `repo` argument the way tools do; a bad one is the caller's error, not a silent default. */
export async function contextForRepo(ctx: ServiceContext, repo: string | undefined): Promise<ServiceContext> {
  if (!ctx.repos) return ctx;
  const selected = await ctx.repos.select(repo);
  if (repo !== undefined && !selected.ok) {
    throw new McpError(ErrorCode.InvalidParams, selected.error.message, { hint: selected.error.hint });
  }
  return { ...ctx, repo: selected };
}

export function registerPrompts(server: Server, ctx: ServiceContext, tools: ToolRegistry): void {
  const published = PROMPTS.map(publishPrompt);
  server.setRequestHandler(ListPromptsRequestSchema, async () => ({ prompts: published }));

  server.setRequestHandler(GetPromptRequestSchema, async (request, extra) => {
    const { name, arguments: rawArgs = {} } = request.params;
    const prompt = PROMPTS.find((p) => p.name === name);
    if (!prompt) {
      throw new McpError(ErrorCode.InvalidParams, `prompt '${name}' not found`, {
        available_prompts: PROMPTS.map((p) => p.name),
      });
    }
    const args = parsePromptArgs(prompt, rawArgs);
    if (!args.ok) throw new McpError(ErrorCode.InvalidParams, `Failed to parse parameters: ${args.problem}`);
    const repo = typeof args.value.repo === "string" ? args.value.repo : undefined;
    const callCtx = await contextForRepo(ctx, repo);
    // Tools get `repo` as an argument and select the repository themselves, from the base context.
    const text = await prompt.render(args.value, callCtx, tools.invoker(ctx, extra.signal));
    return { messages: [{ role: "user" as const, content: { type: "text" as const, text } }] };
  });
}
