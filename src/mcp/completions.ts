import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CompleteRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import type { Context } from "../core/context.ts";
import {
  branchCandidates,
  completeFrom,
  linkedCandidates,
  repositoryCandidates,
} from "../repo/completion-candidates.ts";
import { BRANCH_CONTEXT_TEMPLATE } from "./resources.ts";

const NOTHING = { completion: { values: [], total: 0, hasMore: false } };
/** The prompt arguments completed besides `repo`. */
const PROMPT_ARGUMENTS = ["branch", "pr_number", "issue_key"] as const;

/** Completes prompt arguments and the branch-context template's `name`, within a chosen `repo`. */
export function registerCompletions(server: Server, ctx: Context, enabled: { prompts: boolean; resources: boolean }) {
  server.setRequestHandler(CompleteRequestSchema, async (request) => {
    const { ref, argument, context } = request.params;
    const isPrompt = ref.type === "ref/prompt" && enabled.prompts;
    const isTemplate = ref.type === "ref/resource" && enabled.resources && ref.uri === BRANCH_CONTEXT_TEMPLATE;
    if (!isPrompt && !isTemplate) return NOTHING;
    if (argument.name === "repo") return { completion: completeFrom(await repositoryCandidates(ctx), argument.value) };
    const kind = isPrompt
      ? PROMPT_ARGUMENTS.find((name) => name === argument.name)
      : argument.name === "name" && "branch";
    if (!kind) return NOTHING;
    const repo = context?.arguments?.repo;
    const selected = ctx.repos ? await ctx.repos.select(repo || undefined) : ctx.repo;
    if (!selected.ok) return NOTHING;
    const repoCtx = { ...ctx, repo: selected };
    const candidates = kind === "branch" ? await branchCandidates(repoCtx) : await linkedCandidates(repoCtx, kind);
    return { completion: completeFrom(candidates, argument.value) };
  });
}
