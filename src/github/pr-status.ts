import * as v from "valibot";
import type { ToolError } from "../core/errors.ts";
import { err, ok, type Result } from "../core/result.ts";
import type { CloneHeads } from "./head-guess.ts";
import { fetchPages, type Pages } from "./pagination.ts";
import { BODY_LIMIT_SINGLE, type PullRequest, PullRequestPayload, toPullRequest } from "./pull-request.ts";
import { type GitHubCall, githubGet } from "./request.ts";

const ReviewPayload = v.object({
  user: v.nullish(v.object({ login: v.string() })),
  state: v.string(),
  // Absent on a PENDING (not yet submitted) review.
  submitted_at: v.nullish(v.string()),
});

const CheckRunPayload = v.object({
  name: v.string(),
  status: v.string(),
  conclusion: v.nullish(v.string()),
  html_url: v.nullish(v.string()),
  details_url: v.nullish(v.string()),
  // Null while queued; upstream failed on that.
  started_at: v.nullish(v.string()),
  completed_at: v.nullish(v.string()),
});
const CheckRunsPayload = v.object({ check_runs: v.array(CheckRunPayload) });

const CommitStatusPayload = v.object({
  context: v.string(),
  state: v.string(),
  description: v.nullish(v.string()),
  target_url: v.nullish(v.string()),
});
const CombinedStatusPayload = v.object({ statuses: v.array(CommitStatusPayload) });

export interface Review {
  author: string;
  state: string;
  submitted_at: string | null;
}

export interface Check {
  name: string;
  status: string;
  conclusion: string | null;
  url: string | null;
}

export interface CommitStatus {
  context: string;
  state: string;
  description: string | null;
  url: string | null;
}

export type Verdict = "passing" | "failing" | "pending" | "no_checks";

export interface PrStatusSummary {
  /** Each reviewer's standing review, in the order reviewers first reviewed. */
  latest_reviews: Array<{ author: string; state: string }>;
  checks: { total: number; passing: number; failing: number; pending: number };
  verdict: Verdict;
}

export interface PrStatus {
  pull_request: PullRequest;
  reviews: Review[];
  checks: Check[];
  statuses: CommitStatus[];
  summary: PrStatusSummary;
  /** Parts GitHub would not show this token (HTTP 403/404); the rest is still reported. */
  unavailable?: string[];
}

/** Everything GitHub returns for one PR's reviews / checks / statuses is fetched, up to this many. */
const MAX_ITEMS = 1000;

/**
 * The PR, then — in parallel, every page — its reviews, the check runs and the legacy combined
 * status of its head commit: two round trips when each list fits on one page. When the head commit
 * can be guessed, all four are asked at once (one round trip); the PR then confirms the commit, and
 * if it is another, the two commit lists are asked again for it and the guessed ones are dropped.
 * The guess is the head GitHub gave when this PR was last asked about, unless the clone's
 * remote-tracking ref for the PR's branch moved since (a push or fetch): then that ref. With
 * neither, the clone's local branch.
 * A 403/404 on one of the three lists (a fine-grained token without Checks access, say) leaves
 * that list empty and says so in `unavailable`; any other failure fails the call and stops the
 * sibling requests.
 */
export async function getPrStatus(
  call: GitHubCall,
  number: number,
  clone: CloneHeads = { tracking: null, local: null },
): Promise<Result<PrStatus>> {
  const { owner, repo } = call.target;
  const heads = lastHeads(call.connection.octokit);
  const headKey = `${owner}/${repo}#${number}`.toLowerCase();
  const seen = heads.get(headKey);
  // GitHub's last answer stands until the remote-tracking ref moves (a push or fetch since).
  const guess =
    seen !== undefined && seen.tracking === clone.tracking
      ? seen.sha
      : (clone.tracking ?? seen?.sha ?? clone.local ?? undefined);

  const siblings = new AbortController();
  const fanout: GitHubCall = { ...call, signal: AbortSignal.any([call.signal, siblings.signal]) };
  const stopOthersOnFatal = <T>(result: Result<Pages<T>>): Result<Pages<T>> => {
    if (!result.ok && !isPartial(result.error)) siblings.abort();
    return result;
  };
  const prRequest = githubGet(
    guess === undefined ? call : fanout,
    "GET /repos/{owner}/{repo}/pulls/{pull_number}",
    { pull_number: number },
    PullRequestPayload,
    `pull request #${number} in ${owner}/${repo}`,
  );
  // A guessed commit's lists answer nothing until the PR confirms it, so their failures stop nothing yet.
  const guessed = new AbortController();
  const early =
    guess === undefined
      ? null
      : {
          reviews: reviewPages(fanout, number).then(stopOthersOnFatal),
          commit: commitLists({ ...fanout, signal: AbortSignal.any([fanout.signal, guessed.signal]) }, guess),
        };

  const pr = await prRequest;
  if (!pr.ok) {
    siblings.abort();
    // Asked alongside, the PR may have been stopped by its reviews' failure: report that one.
    const reviews = early !== null && isCancelled(pr.error) ? await early.reviews : null;
    if (reviews !== null && !reviews.ok && !isPartial(reviews.error) && !isCancelled(reviews.error)) {
      return err(reviews.error);
    }
    return pr;
  }
  const sha = pr.value.data.head.sha;
  remember(heads, headKey, { sha, tracking: clone.tracking });
  let commit: ReturnType<typeof commitLists>;
  if (early !== null && guess === sha) {
    commit = early.commit;
  } else {
    guessed.abort();
    commit = commitLists(fanout, sha);
  }
  const [reviews, checks, statuses] = await Promise.all([
    early?.reviews ?? reviewPages(fanout, number).then(stopOthersOnFatal),
    commit.checks.then(stopOthersOnFatal),
    commit.statuses.then(stopOthersOnFatal),
  ]);

  // Report the failure that caused the others to stop, not their cancellation.
  const fatal = [reviews, checks, statuses].find((r) => !r.ok && !isPartial(r.error) && !isCancelled(r.error));
  if (fatal && !fatal.ok) return err(fatal.error);
  const cancelled = [reviews, checks, statuses].find((r) => !r.ok && !isPartial(r.error));
  if (cancelled && !cancelled.ok) return err(cancelled.error);

  const unavailable: string[] = [];
  const listOf = <T>(result: Result<Pages<T>>): T[] => {
    if (result.ok) return result.value.items;
    unavailable.push(result.error.message);
    return [];
  };
  const reviewList: Review[] = listOf(reviews).map((r) => ({
    author: r.user?.login ?? "ghost",
    state: r.state,
    submitted_at: r.submitted_at ?? null,
  }));
  const checkList: Check[] = listOf(checks).map((c) => ({
    name: c.name,
    status: c.status,
    conclusion: c.conclusion ?? null,
    url: c.html_url ?? c.details_url ?? null,
  }));
  const statusList: CommitStatus[] = listOf(statuses).map((s) => ({
    context: s.context,
    state: s.state,
    description: s.description ?? null,
    url: s.target_url ?? null,
  }));

  return ok({
    pull_request: toPullRequest(pr.value.data, owner, BODY_LIMIT_SINGLE),
    reviews: reviewList,
    checks: checkList,
    statuses: statusList,
    summary: summarize(reviewList, checkList, statusList),
    ...(unavailable.length > 0 ? { unavailable } : {}),
  });
}

function reviewPages(call: GitHubCall, number: number) {
  const { owner, repo } = call.target;
  return fetchPages(call, {
    route: "GET /repos/{owner}/{repo}/pulls/{pull_number}/reviews",
    params: { pull_number: number },
    perPage: 100,
    schema: v.array(ReviewPayload),
    items: (data) => data,
    maxItems: MAX_ITEMS,
    what: `reviews of pull request #${number} in ${owner}/${repo}`,
  });
}

/** The check runs and the combined status of one commit, both asked at once. */
function commitLists(call: GitHubCall, sha: string) {
  const { owner, repo } = call.target;
  const short = sha.slice(0, 12);
  return {
    checks: fetchPages(call, {
      route: "GET /repos/{owner}/{repo}/commits/{ref}/check-runs",
      params: { ref: sha },
      perPage: 100,
      schema: CheckRunsPayload,
      items: (data) => data.check_runs,
      maxItems: MAX_ITEMS,
      what: `check runs of commit ${short} in ${owner}/${repo}`,
    }),
    statuses: fetchPages(call, {
      route: "GET /repos/{owner}/{repo}/commits/{ref}/status",
      params: { ref: sha },
      perPage: 100,
      schema: CombinedStatusPayload,
      items: (data) => data.statuses,
      maxItems: MAX_ITEMS,
      what: `commit statuses of commit ${short} in ${owner}/${repo}`,
    }),
  };
}

/**
 * PRs' head commits as GitHub last gave them, with the clone's remote-tracking ref at that moment,
 * per GitHub client (one per API root and token), for the guess above.
 */
interface SeenHead {
  sha: string;
  tracking: string | null;
}
const HEADS_KEPT = 256;
const headsByClient = new WeakMap<object, Map<string, SeenHead>>();

function lastHeads(client: object): Map<string, SeenHead> {
  let heads = headsByClient.get(client);
  if (heads === undefined) {
    heads = new Map();
    headsByClient.set(client, heads);
  }
  return heads;
}

function remember(heads: Map<string, SeenHead>, key: string, seen: SeenHead): void {
  heads.delete(key);
  heads.set(key, seen);
  if (heads.size > HEADS_KEPT) {
    const oldest = heads.keys().next().value;
    if (oldest !== undefined) heads.delete(oldest);
  }
}

function isPartial(error: ToolError): boolean {
  return error.code === "not_found" || (error.code === "credentials_invalid" && /HTTP 403/.test(error.message));
}

function isCancelled(error: ToolError): boolean {
  return error.code === "network_error" && / was cancelled$/.test(error.message);
}

const DECISIVE = new Set(["APPROVED", "CHANGES_REQUESTED", "DISMISSED"]);

/**
 * Each reviewer's standing review, as GitHub counts it: reviews in submission order, a
 * decisive review (approve, request changes, dismissed) replaces the previous one, a plain comment
 * does not undo an approval or a change request, and unsubmitted (PENDING) reviews do not count.
 */
export function latestReviews(reviews: readonly Review[]): Array<{ author: string; state: string }> {
  const latest = new Map<string, string>();
  for (const review of reviews) {
    if (review.state === "PENDING" || review.submitted_at === null) continue;
    const previous = latest.get(review.author);
    if (DECISIVE.has(review.state) || previous === undefined || previous === "COMMENTED" || previous === "DISMISSED") {
      latest.set(review.author, review.state);
    }
  }
  return [...latest].map(([author, state]) => ({ author, state }));
}

const PASSING_CONCLUSIONS = new Set(["success", "neutral", "skipped"]);

/** A check run or commit status as passing, failing or still pending. */
export function classifyCheck(check: Pick<Check, "status" | "conclusion">): "passing" | "failing" | "pending" {
  if (check.status !== "completed" || check.conclusion === null) return "pending";
  return PASSING_CONCLUSIONS.has(check.conclusion) ? "passing" : "failing";
}

export function classifyStatus(status: Pick<CommitStatus, "state">): "passing" | "failing" | "pending" {
  if (status.state === "success") return "passing";
  if (status.state === "pending") return "pending";
  return "failing";
}

export function summarize(
  reviews: readonly Review[],
  checks: readonly Check[],
  statuses: readonly CommitStatus[],
): PrStatusSummary {
  const counts = { total: 0, passing: 0, failing: 0, pending: 0 };
  for (const outcome of [...checks.map(classifyCheck), ...statuses.map(classifyStatus)]) {
    counts.total++;
    counts[outcome]++;
  }
  const verdict: Verdict =
    counts.total === 0 ? "no_checks" : counts.failing > 0 ? "failing" : counts.pending > 0 ? "pending" : "passing";
  return { latest_reviews: latestReviews(reviews), checks: counts, verdict };
}
