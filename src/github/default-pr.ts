import type { Context } from "../core/context.ts";
import { toolError } from "../core/errors.ts";
import { err, ok, type Result } from "../core/result.ts";
import { loadState } from "../twig/state.ts";
import { readCurrentHead } from "./local-repo.ts";

const EXPLICIT_HINT = "Provide an explicit pr_number parameter.";

/**
 * The PR a call is about: `pr_number` when given, else the PR twig linked to the checked-out
 * branch (`branches[<branch>].github_pr` in `.twig/state.json`). Unlike upstream, a detached HEAD
 * is reported as such instead of being looked up as a branch named `HEAD`.
 */
export async function resolvePrNumber(ctx: Context, explicit: number | undefined): Promise<Result<number>> {
  if (explicit !== undefined) return ok(explicit);
  const current = await readCurrentHead(ctx);
  if (!current.ok) {
    const { stage, error } = current.error;
    if (stage === "open") {
      return err(
        toolError(
          error.code,
          error.message,
          `${EXPLICIT_HINT} Outside a clone, also pass owner and repo.${error.hint ? ` ${error.hint}` : ""}`,
        ),
      );
    }
    return err(
      toolError(
        "invalid_params",
        `No pr_number provided and could not detect current branch: ${error.message}`,
        EXPLICIT_HINT,
      ),
    );
  }
  const { head, workTree } = current.value;
  if (head.kind === "detached") {
    return err(
      toolError(
        "invalid_params",
        `No pr_number provided and HEAD is detached at ${head.oid.slice(0, 12)}, so there is no current branch to look up`,
        `${EXPLICIT_HINT} Or check out the PR's branch.`,
      ),
    );
  }
  const state = await loadState(ctx, workTree);
  if (!state.ok) return state;
  const pr = state.value.branches.get(head.branch)?.github_pr ?? null;
  if (pr === null) {
    return err(
      toolError(
        "not_found",
        `Branch '${head.branch}' has no linked GitHub PR`,
        `${EXPLICIT_HINT} To find an open PR for the branch, call list_pull_requests with head="${head.branch}".`,
      ),
    );
  }
  return ok(pr);
}
