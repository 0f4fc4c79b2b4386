import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  McpError,
} from "@modelcontextprotocol/sdk/types.js";
import * as v from "valibot";
import { plainText, printable } from "../core/plain-text.ts";
import { branchContextPrompt } from "../prompts/branch-context.ts";
import type { PromptDefinition } from "../prompts/define.ts";
import { planIssuePrompt } from "../prompts/jira-issue.ts";
import { reviewPrPrompt } from "../prompts/pr-review.ts";
import { stackStatusPrompt } from "../prompts/stack-status.ts";
import type { ServiceContext } from "../tools/shared/context.ts";
import type { ToolRegistry } from "./tool-registry.ts";

/** Every prompt, sorted by name as `prompts/list` shows them. */
export const PROMPTS: readonly PromptDefinition[] = [
  branchContextPrompt,
  planIssuePrompt,
  reviewPrPrompt,
  stackStatusPrompt,
];

/** A prompt as `prompts/list` shows it: each argument's description is its schema's. */
export function publishPrompt({ name, title, description, args }: PromptDefinition) {
  const published = Object.entries(args.entries).map(([name, schema]) => {
    const required = schema.type !== "optional";
    const about = v.getDescription(required ? schema : (schema as v.OptionalSchema<v.GenericSchema, unknown>).wrapped);
    return about === undefined ? { name, required } : { name, description: about, required };
  });
  return { name, ...(title === undefined ? {} : { title }), description, arguments: published };
}

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
  server.setRequestHandler(ListPromptsRequestSchema, async () => ({ prompts: PROMPTS.map(publishPrompt) }));

  server.setRequestHandler(GetPromptRequestSchema, async (request, extra) => {
    const { name, arguments: raw = {} } = request.params;
    const prompt = PROMPTS.find((p) => p.name === name);
    if (!prompt) {
      throw new McpError(ErrorCode.InvalidParams, `prompt '${printable(name)}' not found`, {
        available_prompts: PROMPTS.map((p) => p.name),
      });
    }
    // `""` means "not given": clients send it for a blank field.
    const args = v.safeParse(prompt.args, Object.fromEntries(Object.entries(raw).filter(([, value]) => value !== "")));
    if (!args.success) {
      const issue = args.issues[0];
      const path = v.getDotPath(issue);
      const problem = path === null ? issue.message : `${path}: ${issue.message}`;
      throw new McpError(ErrorCode.InvalidParams, `Failed to parse parameters: ${problem}`);
    }
    const repo = typeof args.output.repo === "string" ? args.output.repo : undefined;
    // Tools get `repo` as an argument and select the repository themselves, from the base context.
    const text = await prompt.render(args.output, await contextForRepo(ctx, repo), tools.invoker(ctx, extra.signal));
    // The text is sent as the user's message: no control or invisible characters.
    return { messages: [{ role: "user" as const, content: { type: "text" as const, text: plainText(text) } }] };
  });
}
