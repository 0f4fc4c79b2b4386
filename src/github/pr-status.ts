import * as v from "valibot";
import type { ToolError } from "../core/errors.ts";
import { err, ok, type Result } from "../core/result.ts";
import type { CloneHeads } from "./clone.ts";
import { fetchPages, type Pages } from "./pagination.ts";
import { getPullRequest, type PullRequest } from "./pull-request.ts";
import type { GitHubCall } from "./request.ts";

/** An optional text field, `null` when GitHub leaves it out. */
const Text = v.nullish(v.string(), null);

const ReviewPayload = v.pipe(
  // `submitted_at` is absent on a PENDING (not yet submitted) review.
  v.object({ user: v.nullish(v.object({ login: v.string() })), state: v.string(), submitted_at: Text }),
  v.transform(({ user, ...review }) => ({ author: user?.login ?? "ghost", ...review })),
);
export type Review = v.InferOutput<typeof ReviewPayload>;

const CheckRunPayload = v.pipe(
  v.object({ name: v.string(), status: v.string(), conclusion: Text, html_url: Text, details_url: Text }),
  v.transform(({ html_url, details_url, ...check }) => ({ ...check, url: html_url ?? details_url })),
);
export type Check = v.InferOutput<typeof CheckRunPayload>;

const CommitStatusPayload = v.pipe(
  v.object({ context: v.string(), state: v.string(), description: Text, target_url: Text }),
  v.transform(({ target_url, ...status }) => ({ ...status, url: target_url })),
);
export type CommitStatus = v.InferOutput<typeof CommitStatusPayload>;

export type Verdict = "passing" | "failing" | "pending" | "no_checks";

export interface PrStatus {
  pull_request: PullRequest;
  reviews: Review[];
  checks: Check[];
  statuses: CommitStatus[];
  summary: ReturnType<typeof summarize>;
  /** Parts GitHub would not show this token (HTTP 403/404); the rest is still reported. */
  unavailable?: string[];
}

/**
 * The PR, then in parallel every page of its reviews and of its head commit's check runs and legacy
 * combined status: two round trips, or one when the head commit can be guessed (the PR confirms the
 * guess; a wrong guess's commit lists are dropped and asked again). A 403/404 on one list (say, a
 * fine-grained token without Checks access) leaves it empty and named in `unavailable`; any other
 * failure fails the call and stops the sibling requests.
 */
export async function getPrStatus(call: GitHubCall, number: number, clone: CloneHeads): Promise<Result<PrStatus>> {
  const heads = headsByClient.get(call.connection.octokit) ?? new Map<string, SeenHead>();
  headsByClient.set(call.connection.octokit, heads);
  const headKey = `${call.target.owner}/${call.target.repo}#${number}`.toLowerCase();
  const seen = heads.get(headKey);
  // GitHub's last answer for this PR stands until the clone's remote-tracking ref moves (a push or
  // fetch since): then that ref. With neither, the clone's local branch.
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
  const prRequest = getPullRequest(guess === undefined ? call : fanout, number);
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
    return reviews && !reviews.ok && !isPartial(reviews.error) && !isCancelled(reviews.error) ? err(reviews.error) : pr;
  }
  const sha = pr.value.head_sha;
  heads.delete(headKey);
  heads.set(headKey, { sha, tracking: clone.tracking });
  if (heads.size > 256) heads.delete(heads.keys().next().value!);
  if (guess !== sha) guessed.abort();
  const commit = early !== null && guess === sha ? early.commit : commitLists(fanout, sha);
  const [reviews, checks, statuses] = await Promise.all([
    early?.reviews ?? reviewPages(fanout, number).then(stopOthersOnFatal),
    commit.checks.then(stopOthersOnFatal),
    commit.statuses.then(stopOthersOnFatal),
  ]);

  // Report the failure that caused the others to stop, not their cancellation.
  const failed = [reviews, checks, statuses].flatMap((r) => (r.ok || isPartial(r.error) ? [] : [r.error]));
  const fatal = failed.find((error) => !isCancelled(error)) ?? failed[0];
  if (fatal) return err(fatal);

  const unavailable: string[] = [];
  const listOf = <T>(result: Result<Pages<T>>): T[] => {
    if (result.ok) return result.value.items;
    unavailable.push(result.error.message);
    return [];
  };
  const lists = { reviews: listOf(reviews), checks: listOf(checks), statuses: listOf(statuses) };
  return ok({
    pull_request: pr.value,
    ...lists,
    summary: summarize(lists.reviews, lists.checks, lists.statuses),
    ...(unavailable.length > 0 ? { unavailable } : {}),
  });
}

/** Everything GitHub returns for one PR's reviews / checks / statuses is fetched, up to this many. */
const EVERY_PAGE = { perPage: 100, maxItems: 1000 };

function reviewPages(call: GitHubCall, number: number) {
  const { owner, repo } = call.target;
  return fetchPages(call, {
    ...EVERY_PAGE,
    route: "GET /repos/{owner}/{repo}/pulls/{pull_number}/reviews",
    params: { pull_number: number },
    schema: v.array(ReviewPayload),
    items: (data) => data,
    what: `reviews of pull request #${number} in ${owner}/${repo}`,
  });
}

/** The check runs and the combined status of one commit, both asked at once. */
function commitLists(call: GitHubCall, sha: string) {
  const of = `of commit ${sha.slice(0, 12)} in ${call.target.owner}/${call.target.repo}`;
  return {
    checks: fetchPages(call, {
      ...EVERY_PAGE,
      route: "GET /repos/{owner}/{repo}/commits/{ref}/check-runs",
      params: { ref: sha },
      schema: v.object({ check_runs: v.array(CheckRunPayload) }),
      items: (data) => data.check_runs,
      what: `check runs ${of}`,
    }),
    statuses: fetchPages(call, {
      ...EVERY_PAGE,
      route: "GET /repos/{owner}/{repo}/commits/{ref}/status",
      params: { ref: sha },
      schema: v.object({ statuses: v.array(CommitStatusPayload) }),
      items: (data) => data.statuses,
      what: `commit statuses ${of}`,
    }),
  };
}

/**
 * PRs' head commits as GitHub last gave them, with the clone's remote-tracking ref at that moment,
 * per GitHub client (one per API root and token), for the guess above; the last 256 asked about.
 */
const headsByClient = new WeakMap<object, Map<string, SeenHead>>();
type SeenHead = { sha: string; tracking: string | null };

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
  return status.state === "success" ? "passing" : status.state === "pending" ? "pending" : "failing";
}

export function summarize(reviews: readonly Review[], checks: readonly Check[], statuses: readonly CommitStatus[]) {
  const counts = { total: 0, passing: 0, failing: 0, pending: 0 };
  for (const outcome of [...checks.map(classifyCheck), ...statuses.map(classifyStatus)]) {
    counts.total++;
    counts[outcome]++;
  }
  const verdict: Verdict =
    counts.total === 0 ? "no_checks" : counts.failing > 0 ? "failing" : counts.pending > 0 ? "pending" : "passing";
  return { latest_reviews: latestReviews(reviews), checks: counts, verdict };
}
