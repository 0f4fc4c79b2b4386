import * as v from "valibot";
import { ok } from "../core/result.ts";
import type { DiscoveredRepo } from "../git/discover.ts";
import { listLocalBranches } from "../git/refs.ts";
import { currentBranch, workspaceAndState } from "../repo/workspace.ts";
import { BranchRecordSchema, branchStack } from "../twig/branch-record.ts";
import type { TwigState } from "../twig/state.ts";
import type { ServiceContext } from "./context.ts";
import { defineTool } from "./define.ts";
import { count, cutFields } from "./fit.ts";
import { BranchNameSchema, branchNotFound } from "./params.ts";

export const getBranchStackTool = defineTool({
  name: "get_branch_stack",
  title: "Branch stack",
  description:
    "Get the ancestor chain from a branch up to its root via first declared parents, each as get_branch_metadata returns it. No children (get_branch_tree).",
  group: "local",
  input: v.object({
    branch: v.optional(v.pipe(BranchNameSchema, v.description("Branch to trace from. Default: the current branch."))),
  }),
  output: v.object({
    stack: v.array(BranchRecordSchema),
    cycle: v.optional(v.literal(true)),
    ...cutFields(["stack"]),
  }),
  repoScoped: true,
  async handler({ branch }, ctx) {
    const loaded = await workspaceAndState(ctx);
    return loaded.ok ? readStack(ctx, loaded.value.workspace, loaded.value.state, branch) : loaded;
  },
  // Only a pathological state file makes a stack this deep: the walk can go on from the last one kept.
  cut: {
    list: "stack",
    min: 1,
    rest: (answer, kept, left) => ({
      hint: `${count(left)} more ancestors left out to fit the reply budget: call get_branch_stack with branch=${JSON.stringify(answer.stack[kept]?.branch ?? "")} to go on.`,
    }),
  },
});

/** The stack from `branch` (default: the checked-out one); get_branch_context reads it from its own workspace. */
export async function readStack(
  ctx: ServiceContext,
  workspace: DiscoveredRepo,
  state: TwigState,
  branch: string | undefined,
) {
  let start = branch;
  if (start === undefined) {
    const current = await currentBranch(ctx, workspace);
    if (!current.ok) return current;
    start = current.value.branch;
  } else if (
    !state.branches.has(start) &&
    !state.dependencies.some((dep) => dep.child === start || dep.parent === start) &&
    !state.roots.some((root) => root.branch === start)
  ) {
    const local = await listLocalBranches(workspace, ctx.files);
    if (!local.ok) return local;
    if (!local.value.includes(start)) {
      return branchNotFound(start, "twig state or the repository", [...state.branches.keys(), ...local.value]);
    }
  }
  const { stack, cycle } = branchStack(state, start);
  return ok(cycle ? { stack, cycle: true as const } : { stack });
}
