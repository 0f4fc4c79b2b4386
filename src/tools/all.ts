import { getBranchContextTool } from "./get-branch-context.ts";
import { getBranchMetadataTool } from "./get-branch-metadata.ts";
import { getBranchStackTool } from "./get-branch-stack.ts";
import { getBranchTreeTool } from "./get-branch-tree.ts";
import { getCiLogTool } from "./get-ci-log.ts";
import { getCurrentBranchTool } from "./get-current-branch.ts";
import { getJiraIssueTool } from "./get-jira-issue.ts";
import { getPrStatusTool } from "./get-pr-status.ts";
import { getPullRequestTool } from "./get-pull-request.ts";
import { getReviewThreadsTool } from "./get-review-threads.ts";
import { getStackStatusTool } from "./get-stack-status.ts";
import { getWorktreesTool } from "./get-worktrees.ts";
import { listBranchesTool } from "./list-branches.ts";
import { listJiraIssuesTool } from "./list-jira-issues.ts";
import { listPullRequestsTool } from "./list-pull-requests.ts";
import { listRepositoriesTool } from "./list-repositories.ts";
import type { ToolDefinition } from "./shared/define.ts";

/** The tools that read only this machine's files. */
export const localTools: ToolDefinition[] = [
  getBranchMetadataTool,
  getBranchStackTool,
  getBranchTreeTool,
  getCurrentBranchTool,
  getWorktreesTool,
  listBranchesTool,
  listRepositoriesTool,
];
export const githubTools: ToolDefinition[] = [
  getPrStatusTool,
  getPullRequestTool,
  getReviewThreadsTool,
  listPullRequestsTool,
  getCiLogTool,
];
export const jiraTools: ToolDefinition[] = [getJiraIssueTool, listJiraIssuesTool];

/** Every tool; get_branch_context and get_stack_status are local but also ask GitHub and Jira. */
export const allTools = [...localTools, getBranchContextTool, getStackStatusTool, ...githubTools, ...jiraTools];
