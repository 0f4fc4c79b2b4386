import * as v from "valibot";
import { type Rendered, renderAdf } from "./adf.ts";
import { renderWiki } from "./wiki.ts";

/** The fields asked for on every issue request (twig asked for all of them). */
export const ISSUE_FIELDS = Object.freeze(
  "summary description status assignee issuetype priority labels reporter updated".split(" "),
);

const UserSchema = v.object({
  displayName: v.optional(v.string()),
  name: v.optional(v.string()),
  emailAddress: v.optional(v.string()),
  accountId: v.optional(v.string()),
});

const NamedSchema = v.object({ name: v.optional(v.string()) });

/** An issue as Jira returns it (v2 or v3); unknown fields are ignored, optional ones may be `null`. */
export const JiraIssuePayloadSchema = v.object({
  id: v.optional(v.string()),
  key: v.string(),
  fields: v.object({
    summary: v.string(),
    description: v.nullish(v.unknown()),
    status: v.object({ name: v.string() }),
    assignee: v.nullish(UserSchema),
    reporter: v.nullish(UserSchema),
    issuetype: v.nullish(NamedSchema),
    priority: v.nullish(NamedSchema),
    labels: v.nullish(v.array(v.string())),
    updated: v.nullish(v.string()),
  }),
});
export type JiraIssuePayload = v.InferOutput<typeof JiraIssuePayloadSchema>;

/** What the tools return for an issue; keys in this order (twig's first, then the added ones). */
export const JiraIssueSchema = v.object({
  key: v.pipe(v.string(), v.description('Issue key, e.g. "SHOP-123".')),
  summary: v.string(),
  description: v.optional(
    v.pipe(v.string(), v.description("Description as Markdown-like text; absent when the issue has none.")),
  ),
  status: v.pipe(v.string(), v.description('Status name, e.g. "In Progress".')),
  assignee: v.optional(v.pipe(v.string(), v.description("Assignee display name; absent when unassigned."))),
  url: v.pipe(v.string(), v.description("Link to the issue in the Jira web UI.")),
  issue_type: v.optional(v.pipe(v.string(), v.description('Issue type, e.g. "Bug" or "Story".'))),
  priority: v.optional(v.string()),
  labels: v.array(v.string()),
  reporter: v.optional(v.pipe(v.string(), v.description("Reporter display name."))),
  updated: v.optional(v.pipe(v.string(), v.description("Last update time as Jira reports it (ISO 8601)."))),
  truncated: v.optional(
    v.pipe(v.literal(true), v.description("Present when the description was cut to keep the result small.")),
  ),
});
export type JiraIssue = v.InferOutput<typeof JiraIssueSchema>;

/** Description lengths kept by `get_jira_issue` and, per issue, by `list_jira_issues`. */
export const FULL_DESCRIPTION_CHARS = 20_000;
export const LIST_DESCRIPTION_CHARS = 1_000;

export function toJiraIssue(payload: JiraIssuePayload, browseUrl: string, maxDescriptionChars: number): JiraIssue {
  const fields = payload.fields;
  const rendered = renderDescription(fields.description, maxDescriptionChars);
  const cut = rendered === null ? null : truncate(rendered.text, maxDescriptionChars, !rendered.complete);
  const issue = {
    key: payload.key,
    summary: fields.summary,
    description: cut?.text,
    status: fields.status.name,
    assignee: userName(fields.assignee),
    url: browseUrl,
    issue_type: nonEmpty(fields.issuetype?.name),
    priority: nonEmpty(fields.priority?.name),
    labels: fields.labels ?? [],
    reporter: userName(fields.reporter),
    updated: nonEmpty(fields.updated),
    truncated: cut?.truncated ? true : undefined,
  };
  // What the issue lacks is left out rather than sent as `undefined`.
  return Object.fromEntries(Object.entries(issue).filter(([, value]) => value !== undefined)) as JiraIssue;
}

/** An ADF (REST v3) or wiki (REST v2) description as text, rendered only about as far as it will be kept. */
export function renderDescription(description: unknown, maxChars = Number.POSITIVE_INFINITY): Rendered | null {
  if (description === null || description === undefined) return null;
  let rendered: Rendered;
  if (typeof description === "string") rendered = renderWiki(description, maxChars);
  else if (typeof description === "object") rendered = renderAdf(description, maxChars);
  else rendered = { text: String(description).slice(0, maxChars + 1), complete: true };
  return rendered.text.trim() === "" ? null : rendered;
}

function userName(user: v.InferOutput<typeof UserSchema> | null | undefined): string | undefined {
  return [user?.displayName, user?.name, user?.emailAddress, user?.accountId].map(nonEmpty).find(Boolean);
}

function nonEmpty(value: string | null | undefined): string | undefined {
  return value?.trim() ? value : undefined;
}

/** At most `max` characters and `…`, cut at a close line or word break; `more`: the text is known to go on. */
export function truncate(text: string, max: number, more = false): { text: string; truncated: boolean } {
  if (text.length <= max) return more ? { text: `${text.trimEnd()}\n…`, truncated: true } : { text, truncated: false };
  const code = text.charCodeAt(max - 1);
  let end = code >= 0xd800 && code <= 0xdbff ? max - 1 : max;
  const floor = Math.floor(end * 0.8);
  end = [text.lastIndexOf("\n", end - 1), text.lastIndexOf(" ", end - 1)].find((at) => at >= floor) ?? end;
  return { text: `${text.slice(0, end).trimEnd()}\n…`, truncated: true };
}
