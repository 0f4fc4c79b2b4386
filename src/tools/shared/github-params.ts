/** What the GitHub tools share: their arguments (the PR number, the `owner`/`repo` target), how a call opens, the PR they answer with. */
import * as v from "valibot";
import { err, ok, type Result } from "../../core/result.ts";
import type { DiscoveredRepo } from "../../git/discover.ts";
import { getPullRequest, resolvePrNumber } from "../../github/pull-request.ts";
import { GITHUB_NAME, type GitHubTarget, resolveTarget, type TargetArgs } from "../../github/target.ts";
import { openWorkspace } from "../../repo/workspace.ts";
import type { ServiceContext } from "./context.ts";
import type { CallInfo } from "./define.ts";
import { TruncatedSchema } from "./paging.ts";
import { integerIn, unpublished } from "./params.ts";

export const PrNumberSchema = v.pipe(
  integerIn(1, 4294967295),
  unpublished("maximum"),
  v.description("Default: the current branch's PR."),
);

const OwnerSchema = v.pipe(
  v.string(),
  v.minLength(1),
  v.maxLength(100),
  v.regex(GITHUB_NAME),
  // `.` and `..` would walk `/repos/{owner}/…` up the API's path.
  v.check((name) => name !== "." && name !== "..", "`.` and `..` are not GitHub names"),
  unpublished("minLength", "maxLength", "pattern"),
  v.description("With `repo`: another GitHub repository's owner."),
);

/** `repo` alone selects a local repository; with `owner` it is a GitHub name (see resolveTarget). */
const RepoSchema = v.pipe(
  v.string(),
  v.minLength(1),
  v.maxLength(4096),
  unpublished("minLength", "maxLength"),
  v.description("With `owner`: a GitHub repo. Alone: a list_repositories name or path."),
);

export const targetParams = {
  owner: v.optional(OwnerSchema),
  repo: v.optional(RepoSchema),
};

/** Resolves the repository (`args` `null`: a tool that cannot name another) and connects to its GitHub host. */
export async function openCall(
  ctx: ServiceContext,
  args: TargetArgs | null,
  info: CallInfo,
  open?: () => Promise<Result<DiscoveredRepo>>,
) {
  const target = await resolveTarget(ctx, args, open);
  return target.ok ? connect(ctx, target.value, info.signal) : target;
}

/** A call to `target`'s GitHub host. */
export async function connect(ctx: ServiceContext, target: GitHubTarget, signal: AbortSignal) {
  const connection = await ctx.github(target.host);
  if (!connection.ok) return err(connection.error);
  return ok({ connection: connection.value, target, signal, now: ctx.now, log: ctx.log });
}

/** {@link openCall}, then the number of the PR asked for or the current branch's; the workspace opened once, if at all. */
export async function openPrNumber(ctx: ServiceContext, args: TargetArgs & { pr_number?: number }, info: CallInfo) {
  let opened: Promise<Result<DiscoveredRepo>> | undefined;
  const open = () => (opened ??= openWorkspace(ctx));
  const call = await openCall(ctx, args, info, open);
  if (!call.ok) return call;
  const resolved = await resolvePrNumber(ctx, args.pr_number, call.value, open);
  return resolved.ok ? ok({ call: call.value, ...resolved.value }) : resolved;
}

/** {@link openPrNumber}, then that PR, fetched. */
export async function openPr(ctx: ServiceContext, args: TargetArgs & { pr_number?: number }, info: CallInfo) {
  const opened = await openPrNumber(ctx, args, info);
  if (!opened.ok) return opened;
  const { call, number, found_by } = opened.value;
  const pr = await getPullRequest(call, number);
  if (!pr.ok) return pr;
  return ok({ call, number, pr: pr.value, foundBy: found_by === undefined ? {} : { found_by } });
}

// Results: docs/tools.md describes their fields; published output schemas carry only top-level types.
export const PullRequestSchema = v.object({
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
