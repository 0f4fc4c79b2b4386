import { ok, type Result } from "../core/result.ts";
import { fetchPages } from "./pagination.ts";
import { BODY_LIMIT_LIST, type PullRequest, PullRequestListPayload, toPullRequest } from "./pull-request.ts";
import type { GitHubCall } from "./request.ts";

export type PullRequestState = "open" | "closed" | "all";

export interface ListPullRequestsOptions {
  state: PullRequestState;
  limit: number;
  head?: string | undefined;
  base?: string | undefined;
}

export interface PullRequestList {
  pull_requests: PullRequest[];
  has_more: boolean;
}

/**
 * Lists PRs newest first (GitHub's default order), following pages until `limit` PRs are in hand.
 * `head` may be a bare branch name: GitHub only filters on `owner:branch`, so the repository owner
 * is added (a bare name would otherwise be ignored and every PR returned).
 */
export async function listPullRequests(
  call: GitHubCall,
  options: ListPullRequestsOptions,
): Promise<Result<PullRequestList>> {
  const { owner, repo } = call.target;
  const head = options.head === undefined || options.head.includes(":") ? options.head : `${owner}:${options.head}`;
  const pages = await fetchPages(call, {
    route: "GET /repos/{owner}/{repo}/pulls",
    params: { state: options.state, head, base: options.base },
    perPage: Math.min(options.limit, 100),
    schema: PullRequestListPayload,
    items: (data) => data,
    maxItems: options.limit,
    what: { what: `pull requests of ${owner}/${repo}`, missing: `repository ${owner}/${repo}` },
  });
  if (!pages.ok) return pages;
  return ok({
    pull_requests: pages.value.items.map((pr) => toPullRequest(pr, owner, BODY_LIMIT_LIST)),
    has_more: pages.value.hasMore,
  });
}
