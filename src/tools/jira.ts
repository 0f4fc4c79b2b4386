import * as v from "valibot";
import type { Context } from "../core/context.ts";
import { type ErrorCode, toolError } from "../core/errors.ts";
import { err, ok, type Result } from "../core/result.ts";
import { readHead } from "../git/head.ts";
import type { JiraClientOptions } from "../jira/client.ts";
import {
  FULL_DESCRIPTION_CHARS,
  ISSUE_FIELDS,
  JiraIssuePayloadSchema,
  JiraIssueSchema,
  LIST_DESCRIPTION_CHARS,
  toJiraIssue,
  truncate,
} from "../jira/issue.ts";
import {
  buildSearchJql,
  ISSUE_KEY_PATTERN,
  normalizeIssueKey,
  normalizeProjectKey,
  PROJECT_KEY_PATTERN,
} from "../jira/jql.ts";
import { MAX_PAGE_SIZE, searchIssues } from "../jira/search.ts";
import { openWorkspace } from "../repo/workspace.ts";
import { loadState } from "../twig/state.ts";
import { defineTool, type ToolDefinition } from "./define.ts";
import { count, cutList, HintSchema, largestFitting, omittedSchema, TruncatedSchema } from "./fit.ts";
import { integerIn, unpublished } from "./params.ts";

const EXPLICIT_KEY_HINT = "Provide an explicit issue_key parameter.";
export const DEFAULT_LIST_LIMIT = 20;

/** Shows a caller's value in a message without letting a huge or multi-line one through. */
function shown(value: string): string {
  const oneLine = JSON.stringify(value);
  return oneLine.length <= 80 ? oneLine : `${oneLine.slice(0, 79)}…"`;
}

const KEY_SHAPES = {
  issue: 'Issue keys look like "PROJ-123": a project key, a hyphen, a number.',
  project: 'Project keys look like "PROJ": a letter followed by letters, digits or underscores.',
};

function notAKey(value: string, kind: keyof typeof KEY_SHAPES) {
  return err(toolError("invalid_params", `${shown(value)} is not a Jira ${kind} key`, KEY_SHAPES[kind]));
}

/**
 * The issue linked to the current branch in `.twig/state.json` (twig's `issue_key` defaulting),
 * with the detached-HEAD case reported as such instead of as a branch named `HEAD`.
 */
async function linkedIssueKey(ctx: Context): Promise<Result<string>> {
  const fail = (code: ErrorCode, message: string, more?: string) =>
    err(toolError(code, message, more ? `${EXPLICIT_KEY_HINT} ${more}` : EXPLICIT_KEY_HINT));
  const noBranch = (why: string) => fail("invalid_params", `No issue_key provided and ${why}`);
  const workspace = await openWorkspace(ctx);
  if (!workspace.ok) return fail(workspace.error.code, workspace.error.message, workspace.error.hint);
  const head = await readHead(workspace.value.repo, ctx.files);
  if (!head.ok) return noBranch(`could not detect current branch: ${head.error.message}`);
  if (head.value.kind === "detached") {
    return noBranch(`HEAD is detached (at ${head.value.oid.slice(0, 12)}), so there is no current branch`);
  }
  const branch = head.value.branch;
  const state = await loadState(ctx, workspace.value.workTree);
  if (!state.ok) return state;
  const linked = state.value.branches.get(branch)?.jira_issue ?? null;
  if (linked === null || linked.trim() === "") return fail("not_found", `Branch '${branch}' has no linked Jira issue`);
  const key = normalizeIssueKey(linked);
  if (key !== null) return ok(key);
  return fail(
    "invalid_params",
    `Branch '${branch}' is linked to ${shown(linked)}, which is not a Jira issue key`,
    "The link in .twig/state.json can be fixed with twig.",
  );
}

const IssueKeySchema = v.pipe(
  v.string(),
  v.regex(ISSUE_KEY_PATTERN, 'Expected a Jira issue key such as "PROJ-123"'),
  unpublished("pattern"),
  v.description('Jira issue key (e.g. "PROJ-123"). Default: the current branch\'s linked issue.'),
);

const ProjectKeySchema = v.pipe(
  v.string(),
  v.regex(PROJECT_KEY_PATTERN, 'Expected a Jira project key such as "PROJ"'),
  unpublished("pattern"),
  v.description('Jira project key (e.g. "PROJ").'),
);

const IssueOutputSchema = v.object({
  ...JiraIssueSchema.entries,
  description_length: v.optional(v.pipe(v.number(), unpublished("field"))),
  hint: HintSchema,
});
type IssueOutput = v.InferOutput<typeof IssueOutputSchema>;

/**
 * The issue with its description cut to `max` characters, saying how long the whole one is when
 * that is known (a description rendered whole; rendering stops at the first cut).
 */
function withDescriptionCut(issue: IssueOutput, full: string, max: number, length?: number): IssueOutput {
  if (full.length <= max) return issue;
  const { truncated: _, hint: __, description_length: ___, ...rest } = issue;
  const of = length === undefined ? "" : ` of its ${count(length)}`;
  return {
    ...rest,
    description: truncate(full, max).text,
    truncated: true,
    ...(length === undefined ? {} : { description_length: length }),
    hint: cutHint(`${count(max)}${of}`),
  };
}

function cutHint(size: string): string {
  return `The description is cut to about ${size} characters; open url for the rest.`;
}

/** The Jira tools; `options` tune the HTTP client (tests shorten retry waits). */
export function createJiraTools(options?: JiraClientOptions) {
  const getJiraIssue = defineTool({
    name: "get_jira_issue",
    title: "Jira issue",
    description:
      "Get details for a Jira issue. Defaults to the current branch's linked issue. Description as Markdown-like text.",
    group: "jira",
    input: v.object({ issue_key: v.optional(IssueKeySchema) }),
    output: IssueOutputSchema,
    repoScoped: true,
    async handler(args, ctx, call) {
      const explicit = args.issue_key === undefined ? null : normalizeIssueKey(args.issue_key);
      if (args.issue_key !== undefined && explicit === null) return notAKey(args.issue_key, "issue");
      const client = await ctx.jira(options);
      if (!client.ok) return client;
      const linked = explicit === null ? await linkedIssueKey(ctx) : ok(explicit);
      if (!linked.ok) return linked;
      const key = linked.value;
      const deployment = await client.value.deployment(call.signal);
      if (!deployment.ok) return deployment;
      const issue = await client.value.request(
        {
          method: "GET",
          path: `/rest/api/${deployment.value === "cloud" ? 3 : 2}/issue/${encodeURIComponent(key)}`,
          query: { fields: ISSUE_FIELDS.join(",") },
          schema: JiraIssuePayloadSchema,
          purpose: { notFound: `Issue ${key} does not exist or is not visible to you` },
        },
        call.signal,
      );
      if (!issue.ok) return issue;
      const found = toJiraIssue(issue.value, client.value.browseUrl(issue.value.key), FULL_DESCRIPTION_CHARS);
      return ok(found.truncated ? { ...found, hint: cutHint(count(FULL_DESCRIPTION_CHARS)) } : found);
    },
    fit(answer, budget) {
      // Only the description can be long; it is cut further, to what fits.
      const full = answer.description;
      if (full === undefined) return answer;
      const length = answer.truncated ? undefined : full.length;
      return largestFitting(budget, (n) => withDescriptionCut(answer, full, n, length), 0, full.length);
    },
  });

  const listJiraIssues = defineTool({
    name: "list_jira_issues",
    title: "List Jira issues",
    description:
      "List Jira issues for a project with optional status and assignee filters, most recently updated first, " +
      "each as get_jira_issue returns it. has_more: raise limit.",
    group: "jira",
    input: v.object({
      project: ProjectKeySchema,
      status: v.optional(v.pipe(v.string(), v.description('Filter by status name (e.g. "In Progress").'))),
      assignee: v.optional(
        v.pipe(
          v.string(),
          v.description('Filter by assignee: "me", "unassigned", or a display name, e-mail address or account ID.'),
        ),
      ),
      limit: v.optional(
        v.pipe(integerIn(1, MAX_PAGE_SIZE), v.description(`Most issues to return. Default: ${DEFAULT_LIST_LIMIT}.`)),
      ),
    }),
    output: v.object({
      issues: v.array(JiraIssueSchema),
      has_more: v.boolean(),
      total: v.optional(v.number()),
      truncated: TruncatedSchema,
      omitted: omittedSchema(["issues"]),
      hint: HintSchema,
    }),
    async handler(args, ctx, call) {
      const project = normalizeProjectKey(args.project);
      if (project === null) return notAKey(args.project, "project");
      const jira = await ctx.jira(options);
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
    fit(answer, budget) {
      const hint = (left: number) =>
        `${count(left)} of ${count(answer.issues.length)} issues left out to fit the reply budget: lower limit, or narrow with status or assignee.`;
      return cutList(budget, { ...answer, has_more: true }, "issues", 0, hint);
    },
  });

  return [getJiraIssue, listJiraIssues] as [typeof getJiraIssue, typeof listJiraIssues];
}

export const [getJiraIssueTool, listJiraIssuesTool] = createJiraTools();
export const jiraTools: ToolDefinition[] = [getJiraIssueTool, listJiraIssuesTool];
