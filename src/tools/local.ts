import type { ToolDefinition } from "./define.ts";
import { getBranchMetadataTool } from "./get-branch-metadata.ts";
import { getBranchStackTool } from "./get-branch-stack.ts";
import { getBranchTreeTool } from "./get-branch-tree.ts";
import { getCurrentBranchTool } from "./get-current-branch.ts";
import { getWorktreesTool } from "./get-worktrees.ts";
import { listBranchesTool } from "./list-branches.ts";
import { listRepositoriesTool } from "./list-repositories.ts";

/** The tools that read only this machine's files; get_branch_context, which also asks GitHub and Jira, is listed apart. */
export const localTools: ToolDefinition[] = [
  getBranchMetadataTool,
  getBranchStackTool,
  getBranchTreeTool,
  getCurrentBranchTool,
  getWorktreesTool,
  listBranchesTool,
  listRepositoriesTool,
];
