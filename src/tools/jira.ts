import type { ToolDefinition } from "./define.ts";
import { getJiraIssueTool } from "./get-jira-issue.ts";
import { listJiraIssuesTool } from "./list-jira-issues.ts";

export const jiraTools: ToolDefinition[] = [getJiraIssueTool, listJiraIssuesTool];
