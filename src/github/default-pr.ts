import type { Context } from "../core/context.ts";
import { toolError } from "../core/errors.ts";
import { err, ok, type Result } from "../core/result.ts";
import { readHead } from "../git/head.ts";
import { openWorkspace } from "../repo/workspace.ts";
import { loadState } from "../twig/state.ts";

const EXPLICIT_HINT = "Provide an explicit pr_number parameter.";

/**
 * The PR a call is about: `pr_number` when given, else the PR twig linked to the checked-out
 * branch (`branches[<branch>].github_pr` in `.twig/state.json`). Unlike upstream, a detached HEAD
 * is reported as such instead of being looked up as a branch named `HEAD`.
 */
export async function resolvePrNumber(ctx: Context, explicit: number | undefined): Promise<Result<number>> {
  if (explicit !== undefined) return ok(explicit);
  const workspace = await openWorkspace(ctx);
  if (!workspace.ok) {
    const { code, message, hint } = workspace.error;
    const more = `${EXPLICIT_HINT} Outside a clone, also pass owner and repo.${hint ? ` ${hint}` : ""}`;
    return err(toolError(code, message, more));
  }
  const head = await readHead(workspace.value.repo, ctx.files);
  if (!head.ok) {
    const message = `No pr_number provided and could not detect current branch: ${head.error.message}`;
    return err(toolError("invalid_params", message, EXPLICIT_HINT));
  }
  if (head.value.kind === "detached") {
    return err(
      toolError(
        "invalid_params",
        `No pr_number provided and HEAD is detached at ${head.value.oid.slice(0, 12)}, so there is no current branch to look up`,
        `${EXPLICIT_HINT} Or check out the PR's branch.`,
      ),
    );
  }
  const { branch } = head.value;
  const state = await loadState(ctx, workspace.value.workTree);
  if (!state.ok) return state;
  const pr = state.value.branches.get(branch)?.github_pr ?? null;
  if (pr === null) {
    return err(
      toolError(
        "not_found",
        `Branch '${branch}' has no linked GitHub PR`,
        `${EXPLICIT_HINT} To find an open PR for the branch, call list_pull_requests with head="${branch}".`,
      ),
    );
  }
  return ok(pr);
}
