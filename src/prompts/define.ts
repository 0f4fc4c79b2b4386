import * as v from "valibot";
import type { Context } from "../core/context.ts";
import { getJiraIssueTool } from "../tools/get-jira-issue.ts";
import { getPrStatusTool } from "../tools/get-pr-status.ts";
import type { ToolInvoker } from "../tools/shared/define.ts";
import { BranchNameSchema, REPO_PARAM_DESCRIPTION } from "../tools/shared/params.ts";

/** A prompt's arguments: MCP sends them as strings, so each entry's schema starts from one. */
type PromptArgsSchema = v.ObjectSchema<v.ObjectEntries, v.ErrorMessage<v.ObjectIssue> | undefined>;

/** One prompt: what `prompts/list` publishes (arguments from the schema) and the text it renders. */
export interface PromptDefinition<A extends PromptArgsSchema = PromptArgsSchema> {
  name: string;
  title?: string;
  description: string;
  args: A;
  // Method syntax on purpose: it lets a PromptDefinition<A> stand in a list of PromptDefinition.
  render(args: v.InferOutput<A>, ctx: Context, invoke: ToolInvoker): Promise<string>;
}

/** Declares a prompt, typing `render`'s arguments by its schema. */
export const definePrompt = <A extends PromptArgsSchema>(prompt: PromptDefinition<A>): PromptDefinition<A> => prompt;

/** Prompt arguments arrive as strings; each becomes what the tool behind takes, by that tool's checks. */
export const RepoArg = v.optional(v.pipe(v.string(), v.description(REPO_PARAM_DESCRIPTION)));

export const BranchArg = v.optional(
  v.pipe(BranchNameSchema, v.description("Branch name. If omitted, uses the current git branch.")),
);

export const PrNumberArg = v.optional(
  v.pipe(
    v.string(),
    // `#43` as people write it; only the digits are the prompt's to parse, the bounds are the tool's.
    v.regex(/^#?[0-9]{1,10}$/, "expected a pull request number"),
    v.transform((text) => Number(text.replace("#", ""))),
    v.unwrap(getPrStatusTool.input.entries.pr_number),
    v.description("Pull request number. If omitted, uses the current branch's linked PR."),
  ),
);

export const IssueKeyArg = v.optional(
  v.pipe(
    v.string(),
    v.trim(),
    v.unwrap(getJiraIssueTool.input.entries.issue_key),
    v.toUpperCase(),
    v.description("Jira issue key (e.g. SHOP-123). If omitted, uses the current branch's linked issue."),
  ),
);
