import * as v from "valibot";
import { inline } from "../core/plain-text.ts";
import { currentBranch, openWorkspace } from "../repo/workspace.ts";
import { getBranchContextTool } from "../tools/get-branch-context.ts";
import { getBranchMetadataTool } from "../tools/get-branch-metadata.ts";
import { BranchArg, definePrompt, RepoArg } from "./define.ts";
import {
  branchText,
  describeFailure,
  failure,
  formatJiraIssue,
  formatPrStatus,
  isUnconfigured,
  jiraKeyText,
} from "./quote.ts";

const NO_BRANCH = "I'm not currently on a git branch. What should I work on?";
const NO_REPO_CLOSING = "Help me open or choose the repository I'm working in.";
const CLOSING =
  "Describe what I'm working on based on this branch context, including the linked Jira issue and pull request status.";

/** twig-mcp's `branch-context` text, upstream's prompt of that name: the `get_branch_context` document, written out. */
export const branchContextPrompt = definePrompt({
  name: "branch-context",
  title: "What am I working on?",
  description: "What am I working on? Describe the current branch's Jira issue and PR.",
  args: v.object({ branch: BranchArg, repo: RepoArg }),
  async render({ branch: branchArg, repo }, ctx, invoke) {
    let branch = branchArg;
    if (branch === undefined) {
      // Outside a repository, say what the tools would (no_repo), not "not on a branch".
      const workspace = await openWorkspace(ctx);
      if (!workspace.ok) return `${failure(workspace.error)}\n\n${NO_REPO_CLOSING}`;
      const current = await currentBranch(workspace.value);
      if (!current.ok) return NO_BRANCH;
      branch = current.value.branch;
    }
    const lines = [`Branch: ${branchText(branch)}`];
    const [context, metadata] = await Promise.all([
      invoke(getBranchContextTool, { branch, repo }),
      invoke(getBranchMetadataTool, { branch, repo }),
    ]);
    if (context && !context.ok) lines.push(failure(context.error));
    if (context?.ok && metadata && !metadata.ok && metadata.error.code === "not_found") {
      // Not "Parent branch: none": twig has no record of it, as get_branch_metadata says.
      const parent = context.value.branch.parent_branch;
      lines.push(
        `Not tracked by twig: no Jira issue or PR is recorded for '${branchText(branch)}'${parent === undefined ? "" : ` (its declared parent is ${branchText(parent)})`}. Use list_branches to see tracked branches.`,
      );
    } else if (context?.ok) {
      const { branch: record, jira_issue: jira, pull_request: pr } = context.value;
      lines.push(
        `Parent branch: ${record.parent_branch === undefined ? "none" : branchText(record.parent_branch)}`,
        record.jira_issue !== undefined
          ? `Linked Jira issue: ${jiraKeyText(record.jira_issue)}`
          : "No linked Jira issue found.",
        record.pr_number !== undefined ? `Linked PR: #${record.pr_number}` : "No linked pull request found.",
      );
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
