import * as v from "valibot";
import { ok, type Result } from "../core/result.ts";
import type { Deployment, JiraClient } from "./client.ts";
import { ISSUE_FIELDS, type JiraIssuePayload, JiraIssuePayloadSchema } from "./issue.ts";
import { buildKeysJql } from "./jql.ts";

export const MAX_PAGE_SIZE = 100;
/** Safety stop: a server that keeps returning tiny pages cannot keep us looping. */
const MAX_PAGES = 20;

/** One page of either search: Cloud pages by `nextPageToken`, Data Center by `startAt` and says the `total`. */
const PageSchema = v.object({
  issues: v.optional(v.array(JiraIssuePayloadSchema), []),
  nextPageToken: v.nullish(v.string()),
  isLast: v.optional(v.boolean()),
  total: v.optional(v.number()),
});

/** Up to `limit` issues matching `jql` (Cloud no longer has the `/search` Data Center pages with). */
export async function searchIssues(
  client: JiraClient,
  deployment: Deployment,
  { jql, limit, project }: { jql: string; limit: number; project: string },
  signal: AbortSignal,
) {
  const cloud = deployment === "cloud";
  const path = cloud ? "/rest/api/3/search/jql" : "/rest/api/2/search";
  const purpose = { unknownProject: `Project ${project} does not exist or is not visible to you` };
  const issues: JiraIssuePayload[] = [];
  let token: string | undefined;
  let total: number | undefined;
  // `total` only when the server says (Data Center does; Cloud's enhanced search does not).
  const outcome = (hasMore: boolean) => ({
    issues: issues.slice(0, limit),
    hasMore,
    ...(total === undefined ? {} : { total }),
  });
  for (let page = 0; page < MAX_PAGES; page++) {
    const maxResults = Math.min(MAX_PAGE_SIZE, limit - issues.length);
    // The first page's token is undefined, and so left out of the JSON.
    const position = cloud ? { nextPageToken: token } : { startAt: issues.length };
    const body = { jql, ...position, maxResults, fields: ISSUE_FIELDS };
    const response = await client.request({ method: "POST", path, body, schema: PageSchema, purpose }, signal);
    if (!response.ok) return response;
    const got = response.value;
    issues.push(...got.issues);
    const atLimit = issues.length >= limit;
    if (cloud) {
      const next = got.nextPageToken ?? undefined;
      const last = got.isLast ?? next === undefined;
      // A token that repeats itself, or an empty page, would loop forever.
      const stop = atLimit || last || next === undefined || next === token || got.issues.length === 0;
      if (stop) return ok(outcome(atLimit ? issues.length > limit || !last : !last && next !== undefined));
      token = next;
    } else {
      total = got.total ?? total;
      const stop = atLimit || got.issues.length === 0 || total === undefined || issues.length >= total;
      if (stop) return ok(outcome(total === undefined ? atLimit : atLimit ? total > limit : issues.length < total));
    }
  }
  return ok(outcome(total === undefined || issues.length < total));
}

const StatusPageSchema = v.object({
  issues: v.optional(
    v.array(v.object({ key: v.string(), fields: v.object({ status: v.object({ name: v.string() }) }) })),
    [],
  ),
});

/** The status of up to {@link MAX_PAGE_SIZE} issues in one request; keys Jira does not return are absent. */
export async function searchIssueStatuses(
  client: JiraClient,
  deployment: Deployment,
  keys: readonly string[],
  signal: AbortSignal,
): Promise<Result<Map<string, string>>> {
  const asked = keys.slice(0, MAX_PAGE_SIZE);
  if (asked.length === 0) return ok(new Map());
  // A `key in (…)` search fails whole when one key no longer exists. Data Center can be told not to
  // validate; Cloud's search cannot, so Cloud asks its bulk fetch, which lists missing keys apart.
  const cloud = deployment === "cloud";
  const path = cloud ? "/rest/api/3/issue/bulkfetch" : "/rest/api/2/search";
  const body = cloud
    ? { issueIdsOrKeys: asked, fields: ["status"] }
    : { jql: buildKeysJql(asked), startAt: 0, maxResults: asked.length, fields: ["status"], validateQuery: false };
  const response = await client.request({ method: "POST", path, body, schema: StatusPageSchema }, signal);
  if (!response.ok) return response;
  return ok(new Map(response.value.issues.map((issue) => [issue.key.toUpperCase(), issue.fields.status.name])));
}
