import { ok } from "../../core/result.ts";
import type { DiscoveredRepo } from "../../git/discover.ts";
import { listLocalBranches } from "../../git/refs.ts";
import { currentBranch } from "../../repo/workspace.ts";
import { branchStack } from "../../twig/branch-record.ts";
import type { TwigState } from "../../twig/state.ts";
import { branchNotFound } from "./params.ts";

/** The stack from `branch` (default: the checked-out one): get_branch_stack's and get_branch_context's. */
export async function readStack(workspace: DiscoveredRepo, state: TwigState, branch: string | undefined) {
  let start = branch;
  if (start === undefined) {
    const current = await currentBranch(workspace);
    if (!current.ok) return current;
    start = current.value.branch;
  } else if (
    !state.branches.has(start) &&
    !state.dependencies.some((dep) => dep.child === start || dep.parent === start) &&
    !state.roots.some((root) => root.branch === start)
  ) {
    const local = await listLocalBranches(workspace);
    if (!local.ok) return local;
    if (!local.value.includes(start)) {
      return branchNotFound(start, "twig state or the repository", [...state.branches.keys(), ...local.value]);
    }
  }
  const { stack, cycle } = branchStack(state, start);
  return ok(cycle ? { stack, cycle: true as const } : { stack });
}
