import { toolError } from "../../core/errors.ts";
import { quoted } from "../../core/plain-text.ts";
import { err } from "../../core/result.ts";
import { FULL_DESCRIPTION_CHARS, ISSUE_FIELDS, JiraIssuePayloadSchema, toJiraIssue } from "../../jira/issue.ts";
import type { ServiceContext } from "./context.ts";

const KEY_SHAPES = {
  issue: 'Issue keys look like "PROJ-123": a project key, a hyphen, a number.',
  project: 'Project keys look like "PROJ": a letter followed by letters, digits or underscores.',
};

/** The `invalid_params` error for an issue or project key that only looks like one. */
export function notAKey(value: string, kind: keyof typeof KEY_SHAPES) {
  return err(toolError("invalid_params", `${quoted(value, 80)} is not a Jira ${kind} key`, KEY_SHAPES[kind]));
}

type JiraClient = Extract<Awaited<ReturnType<ServiceContext["jira"]>>, { ok: true }>["value"];

/** One issue as get_jira_issue gives it (description up to its full preview); get_branch_context reads it too. */
export async function readJiraIssue(client: JiraClient, key: string, signal: AbortSignal) {
  const deployment = await client.deployment(signal);
  if (!deployment.ok) return deployment;
  const issue = await client.request(
    {
      method: "GET",
      path: `/rest/api/${deployment.value === "cloud" ? 3 : 2}/issue/${encodeURIComponent(key)}`,
      query: { fields: ISSUE_FIELDS.join(",") },
      schema: JiraIssuePayloadSchema,
      purpose: { notFound: `Issue ${key} does not exist or is not visible to you` },
    },
    signal,
  );
  if (!issue.ok) return issue;
  return {
    ok: true as const,
    value: toJiraIssue(issue.value, client.browseUrl(issue.value.key), FULL_DESCRIPTION_CHARS),
  };
}
