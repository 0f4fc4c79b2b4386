import { branchContextPrompt } from "./branch-context.ts";
import type { PromptDefinition } from "./define.ts";
import { planIssuePrompt } from "./jira-issue.ts";
import { reviewPrPrompt } from "./pr-review.ts";
import { stackStatusPrompt } from "./stack-status.ts";

/** Every prompt, sorted by name as `prompts/list` shows them. */
export const PROMPTS: readonly PromptDefinition[] = [
  branchContextPrompt,
  planIssuePrompt,
  reviewPrPrompt,
  stackStatusPrompt,
];
