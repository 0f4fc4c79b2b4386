import * as v from "valibot";
import { toolError } from "../core/errors.ts";
import { inline } from "../core/plain-text.ts";
import { err, ok, type Result } from "../core/result.ts";
import { checkBranchName } from "../git/refname.ts";
import { type BaseChecks, PASSING_CONCLUSIONS, type Triage, triage } from "./ci-triage.ts";
import type { PullRequest } from "./pull-request.ts";
import { fetchPages, type GitHubCall, type Pages } from "./request.ts";

export const Text = v.nullish(v.string(), null);

const ReviewPayload = v.pipe(
  // `submitted_at` is absent on a PENDING (not yet submitted) review.
  v.object({ user: v.nullish(v.object({ login: v.string() })), state: v.string(), submitted_at: Text, body: Text }),
  v.transform(({ user, ...review }) => ({ author: user?.login ?? "ghost", ...review })),
);
type ReviewWithBody = v.InferOutput<typeof ReviewPayload>;
export type Review = Omit<ReviewWithBody, "body">;

const CheckRunPayload = v.pipe(
  v.object({
    id: v.number(),
    name: v.string(),
    head_sha: v.optional(v.string(), ""),
    status: v.string(),
    conclusion: Text,
    started_at: Text,
    completed_at: Text,
    html_url: Text,
    details_url: Text,
    check_suite: v.nullish(v.object({ id: v.number() }), null),
    // The open PRs whose head is this commit: on a base branch's head, the parent PR of a stack.
    pull_requests: v.nullish(v.array(v.object({ number: v.number(), head: v.object({ ref: v.string() }) })), []),
    app: v.nullish(v.object({ slug: Text }), null),
    output: v.nullish(
      v.object({ title: Text, summary: Text, text: Text, annotations_count: v.nullish(v.number(), 0) }),
      null,
    ),
  }),
  v.transform(({ html_url, ...run }) => ({ ...run, url: html_url ?? run.details_url })),
);
/** A check run as listed, with what get_ci_log reads; `Check` is what the PR answers show of it. */
export type CheckRun = v.InferOutput<typeof CheckRunPayload>;
export type Check = Pick<CheckRun, "name" | "status" | "conclusion" | "url">;

const CommitStatusPayload = v.pipe(
  v.object({ context: v.string(), state: v.string(), description: Text, target_url: Text }),
  v.transform(({ target_url, ...status }) => ({ ...status, url: target_url })),
);
export type CommitStatus = v.InferOutput<typeof CommitStatusPayload>;

/** A PR with its reviews, checks and statuses; `unavailable`: lists GitHub would not show this token (HTTP 403/404). */
export type PrStatus = Extract<Awaited<ReturnType<typeof getPrDetails>>, { ok: true }>["value"];

/** How much of a review body, and of a check run's output, a reason quotes; reasons listed per kind. */
const REVIEW_EXCERPT_CHARS = 300;
const CHECK_EXCERPT_CHARS = 400;
const MAX_REASONS = 10;

/**
 * A PR's reviews, checks and statuses in one round trip; a 403/404 on one list only names it in `unavailable`. An open
 * PR's failing checks are triaged against `base` (default: its base branch's head checks, read in the same round).
 */
export async function getPrDetails(
  call: GitHubCall,
  pr: PullRequest,
  options: { commit?: CommitChecks; base?: Promise<Result<BaseChecks>> | null } = {},
) {
  const siblings = new AbortController();
  const fanout: GitHubCall = { ...call, signal: AbortSignal.any([call.signal, siblings.signal]) };
  const stopOthersOnFatal = <T>(result: Result<Pages<T>>): Result<Pages<T>> => {
    if (!result.ok && result.error.kind !== "refused") siblings.abort();
    return result;
  };
  const commit = options.commit ?? commitChecks(fanout, pr.head_sha);
  const open = pr.state === "open" && !pr.merged;
  const comparing = !open ? null : options.base === undefined ? baseChecks(fanout, pr.base) : options.base;
  const [reviews, checks, statuses, base] = await Promise.all([
    fetchPages(fanout, {
      ...EVERY_PAGE,
      route: "GET /repos/{owner}/{repo}/pulls/{pull_number}/reviews",
      params: { pull_number: pr.number },
      schema: v.array(ReviewPayload),
      items: (data) => data,
      what: `reviews of pull request #${pr.number} in ${call.target.owner}/${call.target.repo}`,
    }).then(stopOthersOnFatal),
    commit.runs.then(stopOthersOnFatal),
    commit.statuses.then(stopOthersOnFatal),
    comparing,
  ]);

  // Report the failure that caused the others to stop, not their cancellation.
  const failed = [reviews, checks, statuses].flatMap((r) => (r.ok || r.error.kind === "refused" ? [] : [r.error]));
  const fatal = failed.find((error) => error.code !== "cancelled") ?? failed[0];
  if (fatal) return err(fatal);

  const unavailable: string[] = [];
  const listOf = <T>(result: Result<Pages<T>>): T[] => {
    if (result.ok) return result.value.items;
    unavailable.push(result.error.message);
    return [];
  };
  const [withBodies, runs, commitStatuses] = [listOf(reviews), listOf(checks), listOf(statuses)];
  return ok({
    pull_request: pr,
    reviews: withBodies.map(({ body: _, ...review }) => review),
    checks: runs.map(({ name, status, conclusion, url }) => ({ name, status, conclusion, url })),
    statuses: commitStatuses,
    summary: summarize(withBodies, runs, commitStatuses, pr.requested_reviewers),
    reasons: reasonsOf(withBodies, runs, commitStatuses, (check) => triage(check, base, call.target)),
    reviewers: latestPerReviewer(withBodies),
    ...(unavailable.length > 0 ? { unavailable } : {}),
  });
}

/** Everything GitHub returns for one PR's reviews / checks / statuses is fetched, up to this many. */
const EVERY_PAGE = { perPage: 100, maxItems: 1000 };

type CommitChecks = ReturnType<typeof commitChecks>;

/**
 * A commit's check runs and statuses; by SHA every attempt is listed (`filter=all`) and each check is its latest
 * attempt with the other runs of its name in `attempts`; a branch name is its head commit's latest runs.
 */
export function commitChecks(call: GitHubCall, ref: string, filter: "all" | "latest" = "all") {
  const of = `of ${filter === "all" ? `commit ${ref.slice(0, 12)}` : inline(ref, 100)} in ${call.target.owner}/${call.target.repo}`;
  return {
    runs: fetchPages(call, {
      ...EVERY_PAGE,
      route: "GET /repos/{owner}/{repo}/commits/{ref}/check-runs",
      params: { ref, filter },
      schema: v.object({ check_runs: v.array(CheckRunPayload) }),
      items: (data) => data.check_runs,
      what: `check runs ${of}`,
    }).then((listed) => (listed.ok ? ok({ ...listed.value, items: latestAttempts(listed.value.items) }) : listed)),
    statuses: fetchPages(call, {
      ...EVERY_PAGE,
      route: "GET /repos/{owner}/{repo}/commits/{ref}/status",
      params: { ref },
      schema: v.object({ statuses: v.array(CommitStatusPayload) }),
      items: (data) => data.statuses,
      what: `commit statuses ${of}`,
    }),
  };
}

/**
 * Each check's latest attempt in its suite (a re-run is a new run of the suite, with a higher id: GitHub's `latest`),
 * with every run of its name on the commit, oldest first: a workflow triggered again runs in a suite of its own, and
 * two workflows may name a job alike, so another suite's run is evidence, never a replacement.
 */
function latestAttempts(runs: readonly CheckRun[]): Array<CheckRun & { attempts: CheckRun[] }> {
  const sorted = runs.toSorted((a, b) => a.id - b.id);
  const latest = new Map(sorted.map((run) => [`${run.check_suite?.id ?? ""}\u0000${run.name}`, run]));
  const byName = Map.groupBy(sorted, (run) => run.name);
  return [...latest.values()].map((run) => ({ ...run, attempts: byName.get(run.name) ?? [run] }));
}

/**
 * The head of branch `ref` as a base to compare with: its latest checks, and the open PR it heads, if any. The name is
 * GitHub's (a PR's base) and goes into a path: only a name git accepts as a branch is asked for.
 */
export async function baseChecks(call: GitHubCall, ref: string): Promise<Result<BaseChecks & { runs: CheckRun[] }>> {
  const bad = checkBranchName(ref);
  if (bad !== null) return err(toolError("invalid_params", `the base ${JSON.stringify(inline(ref, 100))} ${bad}`));
  const commit = commitChecks(call, ref, "latest");
  const [runs, statuses] = await Promise.all([commit.runs, commit.statuses]);
  if (!runs.ok) return runs;
  if (!statuses.ok) return statuses;
  return ok({ ...asBase(ref, runs.value.items, statuses.value.items), runs: runs.value.items });
}

/** `head`: the PR whose head `ref` is, when known (`open`: its number while open); else read from the runs. */
export function asBase(
  ref: string,
  runs: readonly CheckRun[],
  statuses: readonly CommitStatus[],
  head?: { sha: string; open: number | null },
): BaseChecks {
  const pr = runs.flatMap((run) => run.pull_requests).find((open) => open.head.ref === ref)?.number ?? null;
  const sha = head?.sha ?? (runs[0]?.head_sha || null);
  return { ref, sha, pr: head === undefined ? pr : head.open, checks: judged(runs, statuses) };
}

const DECISIVE = new Set(["APPROVED", "CHANGES_REQUESTED", "DISMISSED"]);

/** Each reviewer's standing review as GitHub counts it: a comment undoes no decision, pending ones do not count. */
function standingReviews<R extends Review>(reviews: readonly R[]): Map<string, R> {
  const latest = new Map<string, R>();
  for (const review of reviews) {
    if (review.state === "PENDING" || review.submitted_at === null) continue;
    const previous = latest.get(review.author)?.state;
    if (DECISIVE.has(review.state) || previous === undefined || previous === "COMMENTED" || previous === "DISMISSED") {
      latest.set(review.author, review);
    }
  }
  return latest;
}

/** Every reviewer's latest submitted review, whatever its state (a question asked in a comment too), excerpted. */
function latestPerReviewer(reviews: readonly ReviewWithBody[]) {
  const latest = new Map<string, ReviewWithBody>();
  for (const review of reviews)
    if (review.state !== "PENDING" && review.submitted_at !== null) latest.set(review.author, review);
  return [...latest.values()].map(({ author, state, submitted_at, body }) => ({
    author: inline(author, 80),
    state,
    submitted_at,
    ...excerpt(body, REVIEW_EXCERPT_CHARS),
  }));
}

/** As the PR page shows it: a standing change request wins, then an approval, then requested reviewers. */
function reviewDecision(latest: ReadonlyArray<{ state: string }>, requestedReviewers: readonly string[]) {
  if (latest.some((review) => review.state === "CHANGES_REQUESTED")) return "changes_requested" as const;
  if (latest.some((review) => review.state === "APPROVED")) return "approved" as const;
  if (requestedReviewers.length > 0) return "review_required" as const;
  return latest.length > 0 ? ("commented" as const) : ("none" as const);
}

/** One line of someone else's text, whitespace runs as one space, cut to `max`; no key when empty. */
function excerpt(text: string | null | undefined, max: number): { excerpt?: string } {
  const line = inline((text ?? "").replace(/\s+/g, " ").trim(), max);
  return line === "" ? {} : { excerpt: line };
}

/** Why a PR is not ready, in excerpts: reviewers whose standing review asks for changes; failing checks, statuses. */
function reasonsOf(
  reviews: readonly ReviewWithBody[],
  checks: readonly CheckRun[],
  statuses: readonly CommitStatus[],
  triaged: (check: ReturnType<typeof judged<CheckRun, CommitStatus>>[number]) => Triage | undefined,
) {
  const changes = [...standingReviews(reviews).values()]
    .filter((review) => review.state === "CHANGES_REQUESTED")
    .map((review) => ({ author: inline(review.author, 80), ...excerpt(review.body, REVIEW_EXCERPT_CHARS) }));
  const failing = judged(checks, statuses)
    .filter(({ outcome }) => outcome === "failing")
    .map((c) => {
      const text = "run" in c ? titled(c.run.output?.title, c.run.output?.summary) : c.status.description;
      const verdict = triaged(c);
      return { name: inline(c.name, 80), ...excerpt(text, CHECK_EXCERPT_CHARS), ...(verdict && { triage: verdict }) };
    });
  return { changes_requested: changes.slice(0, MAX_REASONS), failing: failing.slice(0, MAX_REASONS) };
}

/** A check's title and summary as one text; a summary that opens with its title (many apps write both) alone. */
function titled(title: string | null | undefined, summary: string | null | undefined): string {
  const [head, body] = [title ?? "", summary ?? ""].map((part) => part.replace(/\s+/g, " ").trim()) as [string, string];
  const bare = body.replace(/^[#*_>\s]+/, "").toLowerCase();
  if (head === "" || bare.startsWith(head.toLowerCase())) return body;
  return body === "" ? head : `${head}: ${body}`;
}

export function classifyCheck(check: Pick<Check, "status" | "conclusion">): "passing" | "failing" | "pending" {
  if (check.status !== "completed" || check.conclusion === null) return "pending";
  return PASSING_CONCLUSIONS.has(check.conclusion) ? "passing" : "failing";
}

export function classifyStatus(status: Pick<CommitStatus, "state">): "passing" | "failing" | "pending" {
  return status.state === "success" ? "passing" : status.state === "pending" ? "pending" : "failing";
}

/** Check runs, then commit statuses, each named and judged. */
export function judged<C extends Check, S extends CommitStatus>(checks: readonly C[], statuses: readonly S[]) {
  return [
    ...checks.map((run) => ({ name: run.name, outcome: classifyCheck(run), run })),
    ...statuses.map((status) => ({ name: status.context, outcome: classifyStatus(status), status })),
  ];
}

export function summarize(
  reviews: readonly Review[],
  checks: readonly Check[],
  statuses: readonly CommitStatus[],
  requestedReviewers: readonly string[] = [],
) {
  const counts = { total: 0, passing: 0, failing: 0, pending: 0 };
  for (const { outcome } of judged(checks, statuses)) {
    counts.total++;
    counts[outcome]++;
  }
  const verdict: "passing" | "failing" | "pending" | "no_checks" =
    counts.total === 0 ? "no_checks" : counts.failing > 0 ? "failing" : counts.pending > 0 ? "pending" : "passing";
  const latest = [...standingReviews(reviews).values()].map(({ author, state }) => ({ author, state }));
  return { latest_reviews: latest, checks: counts, verdict, review: reviewDecision(latest, requestedReviewers) };
}
