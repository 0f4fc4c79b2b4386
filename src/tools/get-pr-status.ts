import * as v from "valibot";
import { ok } from "../core/result.ts";
import { classifyCheck, classifyStatus, getPrDetails } from "../github/pr-status.ts";
import { countUnresolvedThreads } from "../github/review-threads.ts";
import { CheckCountsSchema, ReasonsSchema, ReviewSchema, VerdictSchema } from "./shared/branch-pr.ts";
import { defineTool, type ReplyBudget } from "./shared/define.ts";
import { FoundBySchema, openPr, PrNumberSchema, PullRequestSchema, targetParams } from "./shared/github-params.ts";
import { count, cutFields, largestFitting } from "./shared/paging.ts";
import { unpublished } from "./shared/params.ts";

const PrStatusSchema = v.object({
  pull_request: PullRequestSchema,
  reviews: v.array(v.object({ author: v.string(), state: v.string(), submitted_at: v.nullable(v.string()) })),
  checks: v.array(
    v.object({ name: v.string(), status: v.string(), conclusion: v.nullable(v.string()), url: v.nullable(v.string()) }),
  ),
  statuses: v.array(
    v.object({
      context: v.string(),
      state: v.string(),
      description: v.nullable(v.string()),
      url: v.nullable(v.string()),
    }),
  ),
  summary: v.object({
    latest_reviews: v.array(v.object({ author: v.string(), state: v.string() })),
    checks: CheckCountsSchema,
    verdict: VerdictSchema,
    review: ReviewSchema,
    unresolved_threads: v.optional(v.number()),
    /** More threads than the first 100 exist: `unresolved_threads` is a lower bound. */
    unresolved_threads_at_least: v.optional(v.pipe(v.literal(true), unpublished("field"))),
  }),
  reasons: ReasonsSchema,
  reviewers: v.array(
    v.object({
      author: v.string(),
      state: v.string(),
      submitted_at: v.nullable(v.string()),
      excerpt: v.optional(v.string()),
    }),
  ),
  found_by: FoundBySchema,
  unavailable: v.optional(v.array(v.string())),
  ...cutFields(["reviews", "checks", "statuses"]),
});
type PrStatusOutput = v.InferOutput<typeof PrStatusSchema>;

export const getPrStatusTool = defineTool({
  name: "get_pr_status",
  title: "GitHub PR reviews and CI status",
  description:
    "Get PR details with reviews and CI check status. Defaults to the current branch's PR. summary.verdict is CI only; reasons quotes what blocks. No threads (get_review_threads) or logs (get_ci_log).",
  group: "github",
  input: v.object({ pr_number: v.optional(PrNumberSchema), ...targetParams }),
  output: PrStatusSchema,
  repoScoped: true,
  async handler(args, ctx, info) {
    const opened = await openPr(ctx, args, info);
    if (!opened.ok) return opened;
    const { call, pr, foundBy } = opened.value;
    const [status, threads] = await Promise.all([getPrDetails(call, pr), countUnresolvedThreads(call, [pr.number])]);
    if (!status.ok) return status;
    // Threads come from GraphQL: its failure is named, the REST status still answers.
    const counted = threads.ok ? threads.value.get(pr.number) : undefined;
    const summary = {
      ...status.value.summary,
      ...(counted && { unresolved_threads: counted.unresolved }),
      ...(counted?.atLeast && { unresolved_threads_at_least: true as const }),
    };
    const unavailable = threads.ok
      ? status.value.unavailable
      : [...(status.value.unavailable ?? []), threads.error.message];
    return ok({ ...status.value, summary, ...(unavailable && { unavailable }), ...foundBy });
  },
  fit: fitPrStatus,
});

/** Kept while they fit, in GitHub's order: failing, then pending checks/statuses, newest reviews, passing ones. */
function fitPrStatus(answer: PrStatusOutput, budget: ReplyBudget): PrStatusOutput {
  type Pick = { list: "checks" | "statuses" | "reviews"; index: number };
  const failing: Pick[] = [];
  const pending: Pick[] = [];
  const passing: Pick[] = [];
  const sort = (list: Pick["list"], index: number, outcome: string) =>
    (outcome === "failing" ? failing : outcome === "pending" ? pending : passing).push({ list, index });
  for (const [index, check] of answer.checks.entries()) sort("checks", index, classifyCheck(check));
  for (const [index, status] of answer.statuses.entries()) sort("statuses", index, classifyStatus(status));
  const newestReviews: Pick[] = answer.reviews.map((_, index) => ({ list: "reviews" as const, index })).reverse();
  const order = [...failing, ...pending, ...newestReviews, ...passing];
  const build = (n: number): PrStatusOutput => {
    const keep = { checks: new Set<number>(), statuses: new Set<number>(), reviews: new Set<number>() };
    for (const pick of order.slice(0, n)) keep[pick.list].add(pick.index);
    // `order` lists every one once: what is past n is what was left out.
    const omitted = { reviews: 0, checks: 0, statuses: 0 };
    for (const pick of order.slice(n)) omitted[pick.list]++;
    const keptAllUrgent = n >= failing.length + pending.length;
    return {
      ...answer,
      reviews: answer.reviews.filter((_, i) => keep.reviews.has(i)),
      checks: answer.checks.filter((_, i) => keep.checks.has(i)),
      statuses: answer.statuses.filter((_, i) => keep.statuses.has(i)),
      truncated: true,
      omitted,
      hint: `Cut to fit the reply budget: ${count(omitted.checks + omitted.statuses)} checks/statuses and ${count(
        omitted.reviews,
      )} older reviews left out; ${
        keptAllUrgent ? "every failing and pending one is listed" : "even failing and pending ones were cut"
      }. summary counts them all; the PR's checks page on GitHub lists every one.`,
    };
  };
  const sizeOf = (pick: Pick | undefined) => (pick === undefined ? 0 : budget.size(answer[pick.list][pick.index]));
  return largestFitting(budget, build, 0, order.length, (i) => sizeOf(order[i]));
}
