import * as v from "valibot";
import { ok } from "../core/result.ts";
import { classifyCheck, classifyStatus, getPrStatus } from "../github/pr-status.ts";
import { getPullRequest, listPullRequests } from "../github/pull-request.ts";
import { getCiLogTool } from "./ci-log.ts";
import { defineTool, type ReplyBudget, type ToolDefinition } from "./define.ts";
import { count, cutList, HintSchema, largestFitting, omittedSchema, TruncatedSchema } from "./fit.ts";
import { openCall, openPrCall, PrNumberSchema, targetParams } from "./github-params.ts";
import { integerIn, unpublished } from "./params.ts";

/** What git accepts in a branch name, loosely: printable, no spaces, bounded. */
const RefFilterSchema = v.pipe(
  v.string(),
  v.minLength(1),
  v.maxLength(255),
  v.regex(/^[^\s\u0000-\u001f\u007f~^?*[\\]+$/),
  // A lone surrogate has no UTF-8 form, so it cannot be put in a URL.
  v.check((name) => name.isWellFormed(), "not valid Unicode"),
  unpublished("minLength", "maxLength", "pattern"),
);

// Results: docs/tools.md describes their fields; published output schemas carry only top-level types.
const PullRequestSchema = v.object({
  number: v.number(),
  title: v.string(),
  state: v.string(),
  author: v.string(),
  base: v.string(),
  head: v.string(),
  draft: v.boolean(),
  mergeable: v.nullable(v.boolean()),
  created_at: v.string(),
  updated_at: v.string(),
  url: v.string(),
  body: v.nullable(v.string()),
  truncated: TruncatedSchema,
  labels: v.array(v.string()),
  requested_reviewers: v.array(v.string()),
  merged: v.boolean(),
  head_sha: v.string(),
  /** Where GitHub's native stacked pull requests put this PR (position 1 is the bottom). */
  stack: v.optional(v.object({ number: v.number(), position: v.number(), size: v.number() })),
});

/** How the PR was found when none was named: twig's link, or GitHub's PRs from the current branch. */
export const FoundBySchema = v.optional(v.pipe(v.picklist(["twig_link", "head_ref"]), unpublished("field")));

const ReasonsSchema = v.object({
  changes_requested: v.array(v.object({ author: v.string(), excerpt: v.optional(v.string()) })),
  failing: v.array(v.object({ name: v.string(), excerpt: v.optional(v.string()) })),
});

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
    checks: v.object({ total: v.number(), passing: v.number(), failing: v.number(), pending: v.number() }),
    verdict: v.picklist(["passing", "failing", "pending", "no_checks"]),
    review: v.picklist(["approved", "changes_requested", "review_required", "commented", "none"]),
  }),
  reasons: ReasonsSchema,
  found_by: FoundBySchema,
  unavailable: v.optional(v.array(v.string())),
  truncated: TruncatedSchema,
  omitted: omittedSchema(["reviews", "checks", "statuses"]),
  hint: HintSchema,
});
type PrStatusOutput = v.InferOutput<typeof PrStatusSchema>;

const getPullRequestTool = defineTool({
  name: "get_pull_request",
  title: "GitHub pull request",
  description:
    "Get full details for a GitHub pull request. Defaults to the current branch's PR. No reviews or CI (get_pr_status), comments or diff.",
  group: "github",
  input: v.object({ pr_number: v.optional(PrNumberSchema), ...targetParams }),
  output: v.object({ ...PullRequestSchema.entries, found_by: FoundBySchema }),
  repoScoped: true,
  async handler(args, ctx, info) {
    const opened = await openPrCall(ctx, args, info);
    if (!opened.ok) return opened;
    const pr = await getPullRequest(opened.value.call, opened.value.number);
    return pr.ok ? ok({ ...pr.value, ...opened.value.foundBy }) : pr;
  },
});

export const getPrStatusTool = defineTool({
  name: "get_pr_status",
  title: "GitHub PR reviews and CI status",
  description:
    "Get PR details with reviews and CI check status. Defaults to the current branch's PR. summary.verdict is CI only; reasons quotes what blocks. No comments, diff or logs (get_ci_log).",
  group: "github",
  input: v.object({ pr_number: v.optional(PrNumberSchema), ...targetParams }),
  output: PrStatusSchema,
  repoScoped: true,
  async handler(args, ctx, info) {
    const opened = await openPrCall(ctx, args, info);
    if (!opened.ok) return opened;
    const { call, number, foundBy } = opened.value;
    const status = await getPrStatus(call, number);
    return status.ok ? ok({ ...status.value, ...foundBy }) : status;
  },
  fit: fitPrStatus,
});

/**
 * Over the reply budget, lists keep (in GitHub's order) failing, then pending checks and statuses,
 * then the newest reviews, then passing ones while they fit. The PR and its summary always stay.
 */
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
    const checks = answer.checks.filter((_, i) => keep.checks.has(i));
    const statuses = answer.statuses.filter((_, i) => keep.statuses.has(i));
    const reviews = answer.reviews.filter((_, i) => keep.reviews.has(i));
    const omitted = {
      reviews: answer.reviews.length - reviews.length,
      checks: answer.checks.length - checks.length,
      statuses: answer.statuses.length - statuses.length,
    };
    const keptAllUrgent = n >= failing.length + pending.length;
    return {
      ...answer,
      reviews,
      checks,
      statuses,
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

export const DEFAULT_PR_LIST_LIMIT = 30;
export const MAX_PR_LIST_LIMIT = 500;

const listPullRequestsTool = defineTool({
  name: "list_pull_requests",
  title: "GitHub pull requests",
  description:
    "List pull requests for the current repository. Defaults to open PRs. Newest first, each as get_pull_request returns it (shorter body; no reviews or CI). has_more: raise limit.",
  group: "github",
  input: v.object({
    state: v.optional(
      v.pipe(v.picklist(["open", "closed", "all"]), v.description('Filter by state. Default: "open".')),
    ),
    limit: v.optional(
      v.pipe(integerIn(1, MAX_PR_LIST_LIMIT), v.description(`Most PRs to return. Default: ${DEFAULT_PR_LIST_LIMIT}.`)),
    ),
    head: v.optional(v.pipe(RefFilterSchema, v.description("Only PRs from this branch (`owner:branch` for a fork)."))),
    base: v.optional(v.pipe(RefFilterSchema, v.description("Only PRs that merge into this branch."))),
    ...targetParams,
  }),
  output: v.object({
    pull_requests: v.array(PullRequestSchema),
    has_more: v.boolean(),
    truncated: TruncatedSchema,
    omitted: omittedSchema(["pull_requests"]),
    hint: HintSchema,
  }),
  repoScoped: true,
  async handler(args, ctx, info) {
    const call = await openCall(ctx, args, info);
    if (!call.ok) return call;
    return listPullRequests(call.value, {
      state: args.state ?? "open",
      limit: args.limit ?? DEFAULT_PR_LIST_LIMIT,
      head: args.head,
      base: args.base,
    });
  },
  fit(answer, budget) {
    const hint = (left: number) =>
      `${count(left)} of ${count(answer.pull_requests.length)} PRs left out to fit the reply budget: lower limit, or narrow with state, head or base.`;
    return cutList(budget, { ...answer, has_more: true }, "pull_requests", 0, hint);
  },
});

export const githubTools: ToolDefinition[] = [getPrStatusTool, getPullRequestTool, listPullRequestsTool, getCiLogTool];
