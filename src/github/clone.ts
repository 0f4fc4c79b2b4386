/** Which PR a call is about when none is named: the one twig linked to the checked-out branch, else the one GitHub has for it. */
import type { Context } from "../core/context.ts";
import { type ErrorCode, toolError } from "../core/errors.ts";
import { err, ok, type Result } from "../core/result.ts";
import { checkedOutRecord } from "../repo/workspace.ts";
import { findPullRequestByHead, type PullRequest } from "./pull-request.ts";
import type { GitHubCall } from "./request.ts";

/** How a PR was found: twig's link in `.twig/state.json`, or GitHub's PRs whose head is the branch. */
export type FoundBy = "twig_link" | "head_ref";

export interface ResolvedPr {
  number: number;
  /** Absent when the caller named the PR. */
  found_by?: FoundBy;
  /** The PR as the head-ref lookup returned it (list form), so it need not be asked for again. */
  listed?: PullRequest;
}

/** Each failure here is answered by passing `pr_number`; `more` says what else helps. */
const fail = (code: ErrorCode, message: string, more?: string) =>
  err(toolError(code, message, `Provide an explicit pr_number parameter.${more ? ` ${more}` : ""}`));

/**
 * The PR a call is about: `pr_number` when given, else the PR twig linked to the checked-out
 * branch (`branches[<branch>].github_pr`), else the PR GitHub has with that branch as its head
 * (see {@link findBranchPr}). Unlike upstream, a detached HEAD is reported as such instead of
 * being looked up as a branch named `HEAD`.
 */
export async function resolvePrNumber(
  ctx: Context,
  explicit: number | undefined,
  call: GitHubCall,
): Promise<Result<ResolvedPr>> {
  if (explicit !== undefined) return ok({ number: explicit });
  const checkedOut = await checkedOutRecord(ctx);
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

/**
 * A branch's PR: twig's link when there is one (no request), else the PR GitHub has whose head is
 * the branch (open first, then the most recently closed or merged); `null` when there is neither.
 */
export async function findBranchPr(
  call: GitHubCall,
  branch: string,
  linked: number | null,
): Promise<Result<ResolvedPr | null>> {
  if (linked !== null) return ok({ number: linked, found_by: "twig_link" });
  const listed = await findPullRequestByHead(call, branch);
  if (!listed.ok) return listed;
  return ok(listed.value === null ? null : { number: listed.value.number, found_by: "head_ref", listed: listed.value });
}
