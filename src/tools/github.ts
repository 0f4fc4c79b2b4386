import { getCiLogTool } from "./ci-log.ts";
import type { ToolDefinition } from "./define.ts";
import { getPrStatusTool } from "./get-pr-status.ts";
import { getPullRequestTool } from "./get-pull-request.ts";
import { listPullRequestsTool } from "./list-pull-requests.ts";

export const githubTools: ToolDefinition[] = [getPrStatusTool, getPullRequestTool, listPullRequestsTool, getCiLogTool];
