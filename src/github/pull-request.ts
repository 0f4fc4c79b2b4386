import * as v from "valibot";
import type { Context } from "../core/context.ts";
import { type ErrorCode, toolError } from "../core/errors.ts";
import { err, ok, type Result } from "../core/result.ts";
import type { DiscoveredRepo } from "../git/discover.ts";
import { checkedOutRecord } from "../repo/workspace.ts";
import { fetchPages, type GitHubCall, githubGet } from "./request.ts";

const UserPayload = v.object({ login: v.string() });
const RefPayload = v.object({ ref: v.optional(v.string(), ""), sha: v.string() });

const PullRequestPayload = v.object({
  number: v.number(),
  title: v.string(),
  html_url: v.string(),
  state: v.string(),
  // A deleted account comes back as `null`.
  user: v.nullish(UserPayload),
  body: v.nullish(v.string(), null),
  labels: v.nullish(v.array(v.object({ name: v.string() })), []),
  requested_reviewers: v.nullish(v.array(v.nullable(UserPayload)), []),
  requested_teams: v.nullish(v.array(v.object({ slug: v.string() })), []),
  head: RefPayload,
  base: RefPayload,
  draft: v.nullish(v.boolean(), false),
  merged: v.nullish(v.boolean()),
  merged_at: v.nullish(v.string(), null),
  closed_at: v.nullish(v.string(), null),
  mergeable: v.nullish(v.boolean(), null),
  created_at: v.string(),
  updated_at: v.string(),
  // GitHub's native stacked pull requests: where this PR sits in its stack (1 is the bottom).
  stack: v.nullish(
    v.object({ number: v.optional(v.number()), position: v.optional(v.number()), size: v.optional(v.number()) }),
    null,
  ),
});

export type PullRequest = ReturnType<typeof toPullRequest>;

/** Bodies are trimmed so one PR (or a page of them) does not flood a model's context. */
const BODY_LIMIT_SINGLE = 8000;
const BODY_LIMIT_LIST = 500;

/** The PR object every GitHub tool returns: upstream's keys first, in upstream's order, then additions. */
function toPullRequest(pr: v.InferOutput<typeof PullRequestPayload>, owner: string, bodyLimit: number) {
  const body = trimBody(pr.body, bodyLimit);
  const reviewers = pr.requested_reviewers.flatMap((user) => (user ? [user.login] : []));
  const teams = pr.requested_teams.map((team) => `${owner}/${team.slug}`);
  const { stack } = pr;
  return {
    number: pr.number,
    title: pr.title,
    state: pr.state,
    // GitHub shows a deleted account as `ghost`.
    author: pr.user?.login ?? "ghost",
    base: pr.base.ref,
    head: pr.head.ref,
    draft: pr.draft,
    mergeable: pr.mergeable,
    created_at: pr.created_at,
    updated_at: pr.updated_at,
    url: pr.html_url,
    body: body.text,
    ...(body.truncated ? { truncated: true as const } : {}),
    labels: pr.labels.map((label) => label.name),
    requested_reviewers: [...reviewers, ...teams],
    merged: pr.merged ?? pr.merged_at !== null,
    head_sha: pr.head.sha,
    ...(stack?.number === undefined || stack.position === undefined || stack.size === undefined
      ? {}
      : { stack: { number: stack.number, position: stack.position, size: stack.size } }),
  };
}

/** Normalizes line endings, trims, and cuts at `limit` characters (never inside a surrogate pair). */
export function trimBody(body: string | null, limit: number): { text: string | null; truncated: boolean } {
  if (body === null) return { text: null, truncated: false };
  const text = body.replace(/\r\n?/g, "\n").trim();
  if (text.length <= limit) return { text, truncated: false };
  let end = limit;
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end--;
  return { text: `${text.slice(0, end).trimEnd()}…`, truncated: true };
}

export async function getPullRequest(call: GitHubCall, number: number): Promise<Result<PullRequest>> {
  const { owner, repo } = call.target;
  const route = "GET /repos/{owner}/{repo}/pulls/{pull_number}";
  const what = `pull request #${number} in ${owner}/${repo}`;
  const response = await githubGet(call, route, { pull_number: number }, PullRequestPayload, what);
  return response.ok ? ok(toPullRequest(response.value.data, owner, BODY_LIMIT_SINGLE)) : response;
}

/** PRs newest first, up to `limit`. GitHub ignores a bare branch as `head` (all PRs come back): the owner is added. */
export async function listPullRequests(
  call: GitHubCall,
  options: { state: "open" | "closed" | "all"; limit: number; head?: string | undefined; base?: string | undefined },
): Promise<Result<{ pull_requests: PullRequest[]; has_more: boolean }>> {
  const { owner, repo } = call.target;
  const head = options.head === undefined || options.head.includes(":") ? options.head : `${owner}:${options.head}`;
  const pages = await fetchPages(call, {
    route: "GET /repos/{owner}/{repo}/pulls",
    params: { state: options.state, head, base: options.base },
    perPage: Math.min(options.limit, 100),
    schema: v.array(PullRequestPayload),
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

/** How a PR was found: twig's link in `.twig/state.json`, or GitHub's PRs whose head is the branch. */
export type FoundBy = "twig_link" | "head_ref";

/** `found_by` is absent when the caller named the PR; `listed` is the head-ref lookup's PR (list form). */
type ResolvedPr = { number: number; found_by?: FoundBy; listed?: PullRequest };

/** A branch's PR: twig's link, else GitHub's open PR from it, else its last closed or merged one; else `null`. */
export async function findBranchPr(
  call: GitHubCall,
  branch: string,
  linked: number | null,
): Promise<Result<ResolvedPr | null>> {
  if (linked !== null) return ok({ number: linked, found_by: "twig_link" });
  const { owner, repo } = call.target;
  const response = await githubGet(
    call,
    "GET /repos/{owner}/{repo}/pulls",
    { state: "all", head: `${owner}:${branch}`, per_page: 30 },
    v.array(PullRequestPayload),
    { what: `pull requests from ${branch} in ${owner}/${repo}`, missing: `repository ${owner}/${repo}` },
  );
  if (!response.ok) return response;
  const prs = response.value.data;
  const closedAt = (pr: (typeof prs)[number]) => pr.merged_at ?? pr.closed_at ?? pr.updated_at;
  const latest =
    prs.find((pr) => pr.state === "open") ??
    [...prs].sort((a, b) => (closedAt(a) < closedAt(b) ? 1 : closedAt(a) > closedAt(b) ? -1 : 0))[0];
  if (latest === undefined) return ok(null);
  return ok({ number: latest.number, found_by: "head_ref", listed: toPullRequest(latest, owner, BODY_LIMIT_LIST) });
}

/** Each failure here is answered by passing `pr_number`; `more` says what else helps. */
const fail = (code: ErrorCode, message: string, more?: string) =>
  err(toolError(code, message, `Provide an explicit pr_number parameter.${more ? ` ${more}` : ""}`));

/** The PR a call is about: `pr_number`, else the checked-out branch's; a detached HEAD is reported, not looked up. */
export async function resolvePrNumber(
  ctx: Context,
  explicit: number | undefined,
  call: GitHubCall,
  open: () => Promise<Result<DiscoveredRepo>>,
): Promise<Result<ResolvedPr>> {
  if (explicit !== undefined) return ok({ number: explicit });
  const checkedOut = await checkedOutRecord(ctx, open());
  if (!checkedOut.ok) {
    const failure = checkedOut.error;
    if (failure.why === "detached") {
      const message = `No pr_number provided and HEAD is detached at ${failure.oid.slice(0, 12)}, so there is no current branch to look up`;
      return fail("invalid_params", message, "Or check out the PR's branch.");
    }
    const { code, message, hint } = failure.error;
    if (failure.why === "workspace")
      return fail(code, message, `Outside a clone, also pass owner and repo.${hint ? ` ${hint}` : ""}`);
    if (failure.why === "head")
      return fail("invalid_params", `No pr_number provided and could not detect current branch: ${message}`);
    return err(failure.error);
  }
  const { branch, record } = checkedOut.value;
  const found = await findBranchPr(call, branch, record?.github_pr ?? null);
  if (!found.ok) return found;
  if (found.value === null) {
    const where = `${call.target.owner}/${call.target.repo}`;
    return fail("not_found", `Branch '${branch}' has no linked GitHub PR, and ${where} has no PR from it`);
  }
  return ok(found.value);
}
