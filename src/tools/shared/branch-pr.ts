import * as v from "valibot";
import { type ToolError, ToolErrorSchema } from "../../core/errors.ts";
import { inline } from "../../core/plain-text.ts";
import { ok, type Result } from "../../core/result.ts";
import type { DiscoveredRepo } from "../../git/discover.ts";
import { type BaseChecks, NOT_COMPARED, TriageSchema } from "../../github/ci-triage.ts";
import { asBase, baseChecks, commitChecks, getPrDetails, judged, type PrStatus } from "../../github/pr-status.ts";
import { type FoundBy, findBranchPr, getPullRequest } from "../../github/pull-request.ts";
import { countUnresolvedThreads } from "../../github/review-threads.ts";
import type { ServiceContext } from "./context.ts";
import type { CallInfo } from "./define.ts";
import { openCall, PullRequestSchema } from "./github-params.ts";
import { unpublished } from "./params.ts";

/** What get_pr_status, get_stack_status and get_branch_context say of a PR's review and CI, alike. */
export const ReviewSchema = v.picklist(["approved", "changes_requested", "review_required", "commented", "none"]);
export const VerdictSchema = v.picklist(["passing", "failing", "pending", "no_checks"]);
export const CheckCountsSchema = v.object({
  total: v.number(),
  passing: v.number(),
  failing: v.number(),
  pending: v.number(),
});
export const ReasonsSchema = v.object({
  changes_requested: v.array(v.object({ author: v.string(), excerpt: v.optional(v.string()) })),
  /** `triage`: whose the failure is (open PRs; see ci-triage.ts). */
  failing: v.array(v.object({ name: v.string(), excerpt: v.optional(v.string()), triage: v.optional(TriageSchema) })),
});

/** A service that did not answer: disabled, not configured (no credentials or remote), or failed. */
export const PartSchema = v.object({
  status: v.picklist(["disabled", "not_configured", "error"]),
  error: v.optional(ToolErrorSchema),
});
export type Part = v.InferOutput<typeof PartSchema>;

/** The one decision for "not configured": no credentials, no GitHub remote, no repository. Anything else failed. */
export function unanswered(error: ToolError): Part {
  const unconfigured = ["credentials_missing", "not_found", "unsupported_repo", "no_repo"].includes(error.code);
  return { status: unconfigured ? "not_configured" : "error", error };
}

/** A branch's PR as GitHub answered, or its number (when known) and why it could not be read. */
export type BranchPr = {
  number?: number;
  found_by: FoundBy;
  status?: PrStatus;
  unresolved_threads?: number;
  /** More threads exist than were read: `unresolved_threads` is a lower bound. */
  threads_at_least?: true;
  /** The PR's head branch, when twig links this branch to a PR of another branch. */
  other_head?: string;
  error?: ToolError;
};

/**
 * One PR (or none, `null`) per branch, all in parallel (two round trips); without GitHub's answer, only the PRs
 * twig links. `part` says why GitHub did not answer, or that it failed for some branches. With `threads`, each PR's
 * unresolved review threads too (one GraphQL request); `unavailable` says when they could not be counted. With
 * `triage`, each open PR's failing checks are compared with its base branch's head: a base that is another PR's
 * head on the page is read from that PR's listing, the others once per branch name, in the second round trip.
 */
export async function branchPrs(
  ctx: ServiceContext,
  info: CallInfo,
  repo: DiscoveredRepo,
  queries: ReadonlyArray<{ branch: string; linked: number | null }>,
  threads = false,
  triage = false,
): Promise<{ prs: Array<BranchPr | null>; part?: Part; failed: number; answered: boolean; unavailable?: string[] }> {
  const linkedOnly = queries.map(({ linked }): BranchPr | null =>
    linked === null ? null : { number: linked, found_by: "twig_link" },
  );
  const whole = (part: Part) => ({ part, prs: linkedOnly, failed: 0, answered: false });
  if (info.enabled?.("github") === false) return whole({ status: "disabled" });
  if (queries.length === 0) return { prs: [], failed: 0, answered: true };
  const opened = await openCall(ctx, null, info, async () => ok(repo));
  if (!opened.ok) return whole(unanswered(opened.error));
  const call = opened.value;
  // Once every branch's PR number is known (end of the first round trip), one aliased GraphQL request counts threads.
  const numbers: number[] = [];
  let unknown = queries.length;
  let allKnown = () => {};
  const known = new Promise<void>((resolve) => (allKnown = resolve));
  const report = (number: number | null) => {
    if (number !== null) numbers.push(number);
    if (--unknown === 0) allKnown();
  };
  const counting = known.then(() =>
    !threads || numbers.length === 0 ? ok(new Map()) : countUnresolvedThreads(call, numbers),
  );
  // A base that is a branch of the page is its PR's own listing (known once that PR is read); any other is read by
  // name, once, as soon as a PR on it is.
  type Head = { sha: string; open: number | null; commit: ReturnType<typeof commitChecks> };
  const settle = new Map<string, (head: Head | undefined) => void>();
  const heads = new Map(
    queries.map(({ branch }) => [branch, new Promise<Head | undefined>((resolve) => settle.set(branch, resolve))]),
  );
  const bases = new Map<string, Promise<Result<BaseChecks>>>();
  const baseOf = async (ref: string): Promise<Result<BaseChecks>> => {
    const head = await heads.get(ref);
    if (head === undefined) {
      const once = bases.get(ref) ?? baseChecks(call, ref);
      bases.set(ref, once);
      return once;
    }
    const [runs, statuses] = await Promise.all([head.commit.runs, head.commit.statuses]);
    if (!runs.ok) return runs;
    return statuses.ok ? ok(asBase(ref, runs.value.items, statuses.value.items, head)) : statuses;
  };
  const found = await Promise.all(
    queries.map(async ({ branch, linked }): Promise<BranchPr | null> => {
      const by: FoundBy = linked === null ? "head_ref" : "twig_link";
      const failed = (error: ToolError, number = linked): BranchPr =>
        number === null ? { found_by: by, error } : { number, found_by: by, error };
      const resolved = await findBranchPr(call, branch, linked);
      report(resolved.ok ? (resolved.value?.number ?? null) : null);
      const { number, found_by = "twig_link", listed } = (resolved.ok && resolved.value) || {};
      const pr =
        number === undefined ? undefined : listed === undefined ? await getPullRequest(call, number) : ok(listed);
      const commit = pr?.ok ? commitChecks(call, pr.value.head_sha) : undefined;
      const open = pr?.ok && pr.value.state === "open" && !pr.value.merged ? (number ?? null) : null;
      const head = commit && pr?.ok && pr.value.head === branch ? { sha: pr.value.head_sha, open, commit } : undefined;
      settle.get(branch)?.(head);
      if (!resolved.ok) return failed(resolved.error);
      if (pr === undefined || number === undefined) return null;
      const base = triage && pr.ok ? baseOf(pr.value.base) : null;
      const status = pr.ok ? await getPrDetails(call, pr.value, { commit, base }) : pr;
      if (!status.ok) return failed(status.error, number);
      const prHead = status.value.pull_request.head;
      return { number, found_by, status: status.value, ...(prHead !== branch && { other_head: inline(prHead, 255) }) };
    }),
  );
  // A rate limit or a refused token is the same for every branch: said once, with its reset time.
  // A 403 or 404 on one PR is that PR's own (no access to it, deleted), not the call's.
  const once = ["rate_limited", "credentials_invalid", "credentials_missing"];
  const errors = found.flatMap((pr) => (pr?.error === undefined ? [] : [pr.error]));
  const shared = errors.find((error) => once.includes(error.code) && error.kind !== "refused");
  const counted = await counting;
  const prs = found.map((pr): BranchPr | null => {
    if (pr === null) return null;
    if (pr.error !== undefined && pr.error.code === shared?.code) return { ...pr, error: undefined };
    const threads = counted.ok ? counted.value.get(pr.number ?? -1) : undefined;
    // Only a count worth acting on: none unresolved reads as nothing to say, as a PR without reasons does.
    if (!threads?.unresolved || pr.error !== undefined) return pr;
    return {
      ...pr,
      unresolved_threads: threads.unresolved,
      ...(threads.atLeast && { threads_at_least: true as const }),
    };
  });
  // Threads come from GraphQL: when it fails, the PRs still answer and say so.
  const unavailable = counted.ok ? {} : { unavailable: [counted.error.message] };
  const first = errors[0];
  // Some PRs unread is a failure all the same: the part says so, never "no PR".
  const part =
    shared !== undefined
      ? unanswered(shared)
      : first === undefined
        ? undefined
        : { status: "error" as const, error: first };
  return {
    prs,
    failed: shared === undefined ? errors.length : 0,
    answered: shared === undefined,
    ...(part && { part }),
    ...unavailable,
  };
}

/** Reasons listed per PR in a stack (each kind); get_pr_status lists up to ten. */
const MAX_STACK_REASONS = 3;

export const StackPrSchema = v.object({
  /** Absent only when the lookup failed before a number was known (`error` says why). */
  number: v.optional(v.number()),
  /** Absent when GitHub was not asked (not configured, disabled) or could not be read (`error`). */
  state: v.optional(v.picklist(["open", "draft", "merged", "closed"])),
  base: v.optional(v.string()),
  review: v.optional(ReviewSchema),
  ci: v.optional(v.picklist(["passing", "failing", "pending", "none"])),
  /** Said when the PR was found by its head branch; absent: twig's link. */
  found_by: v.optional(v.literal("head_ref")),
  stack: PullRequestSchema.entries.stack,
  ...v.partial(ReasonsSchema).entries,
  /** A triage's hint is left out where it says only that nothing was compared (`why` says why). */
  failing: v.optional(
    v.array(
      v.object({
        ...ReasonsSchema.entries.failing.item.entries,
        triage: v.optional(v.object({ ...TriageSchema.entries, hint: v.optional(v.string()) })),
      }),
    ),
  ),
  requested: v.optional(v.array(v.string())),
  unresolved_threads: v.optional(v.number()),
  /** `unresolved_threads` counts the first 100 threads only: a lower bound. */
  threads_at_least: v.optional(v.pipe(v.literal(true), unpublished("field"))),
  /** The PR's head branch: twig links this branch to a PR of another branch. */
  other_head: v.optional(v.pipe(v.string(), unpublished("field"))),
  error: v.optional(ToolErrorSchema),
});
export type StackPr = v.InferOutput<typeof StackPrSchema>;

/** A PR in the size a stack's entry affords: the state, the verdicts, a few reasons. */
export function stackPr(found: BranchPr): StackPr {
  const { number, found_by, status, unresolved_threads, threads_at_least, other_head, error } = found;
  const by = found_by === "head_ref" ? { found_by } : {};
  const known = { ...(number !== undefined && { number }), ...by, ...(error && { error }) };
  if (status === undefined) return known;
  const { pull_request: pr, summary, reasons } = status;
  const { changes_requested, failing } = reasons;
  const requested = pr.state === "open" ? pr.requested_reviewers.slice(0, MAX_STACK_REASONS) : [];
  return {
    number: pr.number,
    state: pr.merged ? "merged" : pr.state !== "open" ? "closed" : pr.draft ? "draft" : "open",
    base: inline(pr.base, 255),
    review: summary.review,
    ci: summary.verdict === "no_checks" ? "none" : summary.verdict,
    ...by,
    ...(pr.stack !== undefined && { stack: pr.stack }),
    ...(changes_requested.length > 0 && { changes_requested: changes_requested.slice(0, MAX_STACK_REASONS) }),
    // A stack's entry keeps each verdict in words (`why` holds its evidence); get_pr_status has the attempts and base.
    ...(failing.length > 0 && {
      failing: failing.slice(0, MAX_STACK_REASONS).map(({ triage, ...check }) => {
        if (triage === undefined) return check;
        const { verdict, why, hint, base } = triage;
        const compared = base && { base: { ref: base.ref, ...(base.pr !== undefined && { pr: base.pr }) } };
        return { ...check, triage: { verdict, why, ...(hint !== NOT_COMPARED && { hint }), ...compared } };
      }),
    }),
    ...(requested.length > 0 && { requested: requested.map((name) => inline(name, 80)) }),
    ...(unresolved_threads !== undefined && { unresolved_threads }),
    ...(threads_at_least && { threads_at_least }),
    ...(other_head !== undefined && { other_head }),
  };
}

/** Names listed per kind (failing checks, approvers, …); the counts cover the rest. */
const MAX_NAMES = 10;
/** A check or reviewer name longer than this is cut: CI configs and logins are not ours to trust. */
const MAX_NAME_CHARS = 80;

export const PrSummarySchema = v.object({
  ...v.pick(PullRequestSchema, ["number", "title", "url", "draft", "mergeable", "base"]).entries,
  state: v.picklist(["open", "closed", "merged"]),
  review_decision: ReviewSchema,
  approved_by: v.array(v.string()),
  changes_requested_by: v.array(v.string()),
  /** Reviewers with a standing review of any kind. */
  reviewers: v.number(),
  verdict: VerdictSchema,
  checks: CheckCountsSchema,
  failing_checks: v.array(v.string()),
  pending_checks: v.array(v.string()),
  found_by: v.optional(v.picklist(["twig_link", "head_ref"])),
});
export type PrSummary = v.InferOutput<typeof PrSummarySchema>;

/** A PR's status in a size that does not grow with its checks or reviews. */
export function summarizePr(status: PrStatus): PrSummary {
  const { pull_request: pr, summary } = status;
  const latest = summary.latest_reviews;
  const reviewed = (state: string) => names(latest.filter((review) => review.state === state).map((r) => r.author));
  const checks = judged(status.checks, status.statuses);
  const checked = (outcome: string) => names(checks.filter((c) => c.outcome === outcome).map((c) => c.name));
  return {
    number: pr.number,
    title: pr.title,
    url: pr.url,
    state: pr.merged ? "merged" : pr.state === "open" ? "open" : "closed",
    draft: pr.draft,
    mergeable: pr.mergeable,
    base: inline(pr.base, 255),
    review_decision: summary.review,
    approved_by: reviewed("APPROVED"),
    changes_requested_by: reviewed("CHANGES_REQUESTED"),
    reviewers: latest.length,
    verdict: summary.verdict,
    checks: summary.checks,
    failing_checks: checked("failing"),
    pending_checks: checked("pending"),
  };
}

function names(list: readonly string[]): string[] {
  return list.slice(0, MAX_NAMES).map((name) => inline(name, MAX_NAME_CHARS));
}
