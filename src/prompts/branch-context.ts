import * as v from "valibot";
import type { Context } from "../core/context.ts";
import { currentBranch, openWorkspace } from "../repo/workspace.ts";
import { getBranchContextTool } from "../tools/branch-context.ts";
import { BranchArg, RepoArg, withRepo } from "./args.ts";
import { definePrompt } from "./define.ts";
import { describeFailure, formatJiraIssue, formatPrStatus, isUnconfigured } from "./live-status.ts";
import { branchText, inline, jiraKeyText } from "./quote.ts";

const NO_BRANCH = "I'm not currently on a git branch. What should I work on?";
const CLOSING =
  "Describe what I'm working on based on this branch context, including the linked Jira issue and pull request status.";

/**
 * twig-mcp's `branch-context` text (twig-reference §8.7), plus the linked Jira issue's summary and
 * status and the PR's live state when those services are configured: the `get_branch_context`
 * document, written out as text.
 */
export const branchContextPrompt = definePrompt({
  name: "branch-context",
  title: "What am I working on?",
  description: "What am I working on? Describe the current branch's Jira issue and PR.",
  args: v.object({ branch: BranchArg, repo: RepoArg }),
  async render({ branch: branchArg, repo }, ctx, invoke) {
    const branch = branchArg ?? (await checkedOutBranch(ctx));
    if (branch === undefined) return NO_BRANCH;
    const lines = [`Branch: ${branchText(branch)}`];
    const context = await invoke(getBranchContextTool, withRepo({ branch }, repo));
    if (context?.ok) {
      const { branch: record, jira_issue: jira, pull_request: pr } = context.value;
      lines.push(`Parent branch: ${record.parent_branch === undefined ? "none" : branchText(record.parent_branch)}`);
      lines.push(
        record.jira_issue !== undefined
          ? `Linked Jira issue: ${jiraKeyText(record.jira_issue)}`
          : "No linked Jira issue found.",
      );
      lines.push(record.pr_number !== undefined ? `Linked PR: #${record.pr_number}` : "No linked pull request found.");
      if (record.created_at !== undefined) lines.push(`Created: ${inline(record.created_at, 80)}`);
      if (jira.data) lines.push(`Jira issue: ${formatJiraIssue(jira.data)}`);
      else if (jira.status === "error" && jira.error && !isUnconfigured(jira.error)) {
        lines.push(`Jira issue: ${jiraKeyText(record.jira_issue ?? "")} ${describeFailure(jira.error)}`);
      }
      if (pr.data) lines.push(`Pull request: ${formatPrStatus(pr.data)}`);
      else if (pr.status === "error" && pr.error)
        lines.push(`Pull request: #${record.pr_number} ${describeFailure(pr.error)}`);
    }
    return `${lines.join("\n")}\n\n${CLOSING}`;
  },
});

async function checkedOutBranch(ctx: Context): Promise<string | undefined> {
  const workspace = await openWorkspace(ctx);
  if (!workspace.ok) return undefined;
  const current = await currentBranch(ctx, workspace.value);
  return current.ok ? current.value.branch : undefined;
}
