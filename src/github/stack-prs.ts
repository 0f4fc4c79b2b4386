/**
 * The PRs of many branches at once, in two round trips whatever their number: each branch's PR
 * (by number when twig links one, else by head ref), then its reviews, check runs and commit
 * statuses, every branch in parallel. One branch's failure is that branch's answer; the others
 * still come back.
 */
import type { ToolError } from "../core/errors.ts";
import { ok } from "../core/result.ts";
import { type FoundBy, findBranchPr } from "./clone.ts";
import { getPrDetails, type PrStatus } from "./pr-status.ts";
import { getPullRequest } from "./pull-request.ts";
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
  return Promise.all(
    queries.map(async ({ branch, linked }): Promise<BranchPr> => {
      const found = await findBranchPr(call, branch, linked);
      if (!found.ok) return { kind: "failed", error: found.error };
      if (found.value === null) return { kind: "none" };
      // The head-ref lookup's PR (list form) is not asked for again.
      const { number, found_by = "twig_link", listed } = found.value;
      const pr = listed === undefined ? await getPullRequest(call, number) : ok(listed);
      const status = pr.ok ? await getPrDetails(call, pr.value) : pr;
      return status.ok
        ? { kind: "found", found_by, status: status.value }
        : { kind: "failed", number, error: status.error };
    }),
  );
}
