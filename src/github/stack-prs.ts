/**
 * The PRs of many branches at once, in two round trips whatever their number: first every PR
 * (by number when twig links one, else by head ref), then every PR's reviews, check runs and
 * commit statuses. One branch's failure is that branch's answer; the others still come back.
 */
import type { ToolError } from "../core/errors.ts";
import { type FoundBy, findBranchPr } from "./clone.ts";
import { getPrDetails, type PrStatus } from "./pr-status.ts";
import { getPullRequest, type PullRequest } from "./pull-request.ts";
import type { GitHubCall } from "./request.ts";

export interface BranchPrQuery {
  branch: string;
  /** The PR twig links to the branch, if any. */
  linked: number | null;
}

export type BranchPr =
  | { kind: "none" }
  | { kind: "found"; found_by: FoundBy; status: PrStatus }
  | { kind: "failed"; number?: number; error: ToolError };

export async function fetchBranchPrs(call: GitHubCall, queries: readonly BranchPrQuery[]): Promise<BranchPr[]> {
  const first = await Promise.all(queries.map((query) => findPr(call, query)));
  return Promise.all(
    first.map(async (found): Promise<BranchPr> => {
      if (found.kind !== "pr") return found;
      const status = await getPrDetails(call, found.pr);
      return status.ok
        ? { kind: "found", found_by: found.found_by, status: status.value }
        : { kind: "failed", number: found.pr.number, error: status.error };
    }),
  );
}

type FirstTrip = Exclude<BranchPr, { kind: "found" }> | { kind: "pr"; found_by: FoundBy; pr: PullRequest };

/** The branch's PR itself: by twig's link, or the one GitHub lists for the branch as head (list form, not asked again). */
async function findPr(call: GitHubCall, { branch, linked }: BranchPrQuery): Promise<FirstTrip> {
  const found = await findBranchPr(call, branch, linked);
  if (!found.ok) return { kind: "failed", error: found.error };
  if (found.value === null) return { kind: "none" };
  const { number, found_by = "twig_link", listed } = found.value;
  if (listed !== undefined) return { kind: "pr", found_by, pr: listed };
  const pr = await getPullRequest(call, number);
  return pr.ok ? { kind: "pr", found_by, pr: pr.value } : { kind: "failed", number, error: pr.error };
}
