import * as v from "valibot";
import { ok } from "../core/result.ts";
import { JiraIssueSchema, LIST_DESCRIPTION_CHARS, toJiraIssue } from "../jira/issue.ts";
import { buildSearchJql, normalizeProjectKey, PROJECT_KEY_PATTERN } from "../jira/jql.ts";
import { MAX_PAGE_SIZE, searchIssues } from "../jira/search.ts";
import { defineTool } from "./shared/define.ts";
import { notAKey } from "./shared/jira-issue.ts";
import { cutFields, limitCut } from "./shared/paging.ts";
import { integerIn, unpublished } from "./shared/params.ts";

const DEFAULT_LIST_LIMIT = 20;

export const listJiraIssuesTool = defineTool({
  name: "list_jira_issues",
  title: "List Jira issues",
  description:
    "List Jira issues for a project with optional status and assignee filters, newest update first, " +
    "as get_jira_issue gives each (shorter description). has_more: raise limit.",
  group: "jira",
  input: v.object({
    project: v.pipe(
      v.string(),
      v.regex(PROJECT_KEY_PATTERN, 'Expected a Jira project key such as "PROJ"'),
      unpublished("pattern"),
      v.description('Jira project key (e.g. "PROJ").'),
    ),
    status: v.optional(v.pipe(v.string(), v.description('Filter by status name (e.g. "In Progress").'))),
    assignee: v.optional(
      v.pipe(v.string(), v.description('"me", "unassigned", or a display name, e-mail or account ID.')),
    ),
    limit: v.optional(
      v.pipe(integerIn(1, MAX_PAGE_SIZE), v.description(`Most issues to return. Default: ${DEFAULT_LIST_LIMIT}.`)),
    ),
  }),
  output: v.object({
    issues: v.array(JiraIssueSchema),
    has_more: v.boolean(),
    total: v.optional(v.number()),
    ...cutFields(["issues"]),
  }),
  async handler(args, ctx, call) {
    const project = normalizeProjectKey(args.project);
    if (project === null) return notAKey(args.project, "project");
    const jira = await ctx.jira();
    if (!jira.ok) return jira;
    const client = jira.value;
    const deployment = await client.deployment(call.signal);
    if (!deployment.ok) return deployment;
    const jql = buildSearchJql({ project, status: args.status, assignee: args.assignee });
    const limit = args.limit ?? DEFAULT_LIST_LIMIT;
    const found = await searchIssues(client, deployment.value, { jql, limit, project }, call.signal);
    if (!found.ok) return found;
    const issues = found.value.issues.map((issue) =>
      toJiraIssue(issue, client.browseUrl(issue.key), LIST_DESCRIPTION_CHARS),
    );
    const { hasMore: has_more, total } = found.value;
    return ok(total === undefined ? { issues, has_more } : { issues, has_more, total });
  },
  cut: limitCut("issues", "issues", "status or assignee"),
});
