import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  McpError,
} from "@modelcontextprotocol/sdk/types.js";
import { checkBranchName } from "../git/refname.ts";
import { branchContextText } from "../prompts/branch-context.ts";
import { jiraIssueText } from "../prompts/jira-issue.ts";
import type { ToolInvoker } from "../prompts/live-status.ts";
import { prReviewText } from "../prompts/pr-review.ts";
import { stackStatusText } from "../prompts/stack-status.ts";
import type { ServiceContext as Context } from "../services/services.ts";
import { REPO_PARAM_DESCRIPTION, type ToolRegistry } from "./tool-registry.ts";

const REPO_ARGUMENT = { name: "repo", description: REPO_PARAM_DESCRIPTION, required: false };

export const PROMPTS = [
  {
    name: "branch-context",
    title: "What am I working on?",
    description: "What am I working on? Describe the current branch's Jira issue and PR.",
    arguments: [
      { name: "branch", description: "Branch name. If omitted, uses the current git branch.", required: false },
      REPO_ARGUMENT,
    ],
  },
  {
    name: "plan-issue",
    title: "Plan a Jira issue",
    description: "Plan the work for a Jira issue: its details, description and the branches linked to it.",
    arguments: [
      {
        name: "issue_key",
        description: "Jira issue key (e.g. SHOP-123). If omitted, uses the current branch's linked issue.",
        required: false,
      },
      REPO_ARGUMENT,
    ],
  },
  {
    name: "review-pr",
    title: "Review a pull request",
    description: "What blocks this pull request? Its reviews, failing and pending checks, and description.",
    arguments: [
      {
        name: "pr_number",
        description: "Pull request number. If omitted, uses the current branch's linked PR.",
        required: false,
      },
      REPO_ARGUMENT,
    ],
  },
  {
    name: "stack-status",
    title: "PR stack status",
    description: "Summarize the current state of my PR stack, including review status and CI results.",
    arguments: [REPO_ARGUMENT],
  },
];

/** Resolves the `repo` argument the way tools do; a bad one is the caller's error, not a silent default. */
export async function contextForRepo(ctx: Context, repo: string | undefined): Promise<Context> {
  if (!ctx.repos) return ctx;
  const selected = await ctx.repos.select(repo);
  if (repo !== undefined && !selected.ok) {
    throw new McpError(ErrorCode.InvalidParams, selected.error.message, { hint: selected.error.hint });
  }
  return { ...ctx, repo: selected };
}

export function toolInvoker(tools: ToolRegistry, ctx: Context, signal: AbortSignal): ToolInvoker {
  return (name, args) => tools.invoke(name, args, ctx, signal);
}

export function registerPrompts(server: Server, ctx: Context, tools: ToolRegistry): void {
  server.setRequestHandler(ListPromptsRequestSchema, async () => ({ prompts: PROMPTS }));

  server.setRequestHandler(GetPromptRequestSchema, async (request, extra) => {
    const { name, arguments: args = {} } = request.params;
    const prompt = PROMPTS.find((p) => p.name === name);
    if (!prompt) {
      throw new McpError(ErrorCode.InvalidParams, `prompt '${name}' not found`, {
        available_prompts: PROMPTS.map((p) => p.name),
      });
    }
    const repo = nonEmpty(args.repo);
    const callCtx = await contextForRepo(ctx, repo);
    const invoke = toolInvoker(tools, ctx, extra.signal);
    let text: string;
    if (name === "branch-context") {
      const branch = nonEmpty(args.branch);
      const reason = branch === undefined ? null : checkBranchName(branch);
      if (reason !== null) {
        throw new McpError(
          ErrorCode.InvalidParams,
          `Failed to parse parameters: branch: not a valid git branch name (${reason})`,
        );
      }
      text = await branchContextText(callCtx, invoke, branch, repo);
    } else if (name === "review-pr") {
      text = await prReviewText(callCtx, invoke, parsePrNumber(args.pr_number), repo);
    } else if (name === "plan-issue") {
      text = await jiraIssueText(callCtx, invoke, parseIssueKey(args.issue_key), repo);
    } else {
      text = await stackStatusText(invoke, repo);
    }
    return { messages: [{ role: "user" as const, content: { type: "text" as const, text } }] };
  });
}

function parsePrNumber(value: string | undefined): number | undefined {
  const text = nonEmpty(value)?.replace(/^#/, "");
  if (text === undefined) return undefined;
  if (!/^[1-9][0-9]{0,9}$/.test(text) || Number(text) > 4294967295) {
    throw new McpError(
      ErrorCode.InvalidParams,
      "Failed to parse parameters: pr_number: expected a pull request number",
    );
  }
  return Number(text);
}

function parseIssueKey(value: string | undefined): string | undefined {
  const text = nonEmpty(value)?.trim();
  if (text === undefined) return undefined;
  if (!/^[A-Za-z][A-Za-z0-9_]+-[0-9]+$/.test(text)) {
    throw new McpError(ErrorCode.InvalidParams, "Failed to parse parameters: issue_key: expected a key like SHOP-123");
  }
  return text.toUpperCase();
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === "" ? undefined : value;
}
