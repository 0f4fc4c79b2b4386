import * as v from "valibot";
import { ok, type Result } from "../core/result.ts";
import type { Deployment, JiraClient } from "./client.ts";
import { ISSUE_FIELDS, type JiraIssuePayload, JiraIssuePayloadSchema } from "./issue.ts";

/** Largest page either deployment is asked for. */
export const MAX_PAGE_SIZE = 100;
/** Safety stop: a server that keeps returning tiny pages cannot keep us looping. */
const MAX_PAGES = 20;

export interface SearchOutcome {
  issues: JiraIssuePayload[];
  /** More issues match than were returned. */
  hasMore: boolean;
  /** Total matches when the server says (Data Center does; Cloud's enhanced search does not). */
  total?: number;
}

const CloudPageSchema = v.object({
  issues: v.optional(v.array(JiraIssuePayloadSchema), []),
  nextPageToken: v.nullish(v.string()),
  isLast: v.optional(v.boolean()),
});

const ServerPageSchema = v.object({
  startAt: v.optional(v.number()),
  maxResults: v.optional(v.number()),
  total: v.optional(v.number()),
  issues: v.optional(v.array(JiraIssuePayloadSchema), []),
});

/**
 * Runs `jql` and collects up to `limit` issues. Cloud: `POST /rest/api/3/search/jql` paged with
 * `nextPageToken` (the old `/search` is gone there); Server/Data Center: `POST /rest/api/2/search`
 * paged with `startAt`.
 */
export function searchIssues(
  client: JiraClient,
  deployment: Deployment,
  query: { jql: string; limit: number; project: string },
  signal: AbortSignal,
): Promise<Result<SearchOutcome>> {
  return deployment === "cloud" ? searchCloud(client, query, signal) : searchServer(client, query, signal);
}

function purpose(project: string) {
  return { unknownProject: `Project ${project} does not exist or is not visible to you` };
}

async function searchCloud(
  client: JiraClient,
  { jql, limit, project }: { jql: string; limit: number; project: string },
  signal: AbortSignal,
): Promise<Result<SearchOutcome>> {
  const issues: JiraIssuePayload[] = [];
  let token: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const body = {
      jql,
      ...(token === undefined ? {} : { nextPageToken: token }),
      maxResults: Math.min(MAX_PAGE_SIZE, limit - issues.length),
      fields: [...ISSUE_FIELDS],
    };
    const response = await client.request(
      { method: "POST", path: "/rest/api/3/search/jql", body, schema: CloudPageSchema, purpose: purpose(project) },
      signal,
    );
    if (!response.ok) return response;
    issues.push(...response.value.issues);
    const next = response.value.nextPageToken ?? undefined;
    const last = response.value.isLast ?? next === undefined;
    if (issues.length >= limit) return ok({ issues: issues.slice(0, limit), hasMore: issues.length > limit || !last });
    if (last || next === undefined || next === token || response.value.issues.length === 0) {
      return ok({ issues, hasMore: !last && next !== undefined });
    }
    token = next;
  }
  return ok({ issues, hasMore: true });
}

async function searchServer(
  client: JiraClient,
  { jql, limit, project }: { jql: string; limit: number; project: string },
  signal: AbortSignal,
): Promise<Result<SearchOutcome>> {
  const issues: JiraIssuePayload[] = [];
  let total: number | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const body = {
      jql,
      startAt: issues.length,
      maxResults: Math.min(MAX_PAGE_SIZE, limit - issues.length),
      fields: [...ISSUE_FIELDS],
    };
    const response = await client.request(
      { method: "POST", path: "/rest/api/2/search", body, schema: ServerPageSchema, purpose: purpose(project) },
      signal,
    );
    if (!response.ok) return response;
    issues.push(...response.value.issues);
    total = response.value.total ?? total;
    const withTotal = (hasMore: boolean): SearchOutcome =>
      total === undefined
        ? { issues: issues.slice(0, limit), hasMore }
        : { issues: issues.slice(0, limit), hasMore, total };
    if (issues.length >= limit) return ok(withTotal(total === undefined ? true : total > limit));
    if (response.value.issues.length === 0 || total === undefined || issues.length >= total) {
      return ok(withTotal(total !== undefined && issues.length < total));
    }
  }
  return ok(total === undefined ? { issues, hasMore: true } : { issues, hasMore: issues.length < total, total });
}
