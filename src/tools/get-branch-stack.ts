import * as v from "valibot";
import { workspaceAndState } from "../repo/workspace.ts";
import { BranchRecordSchema } from "../twig/branch-record.ts";
import { readStack } from "./shared/ancestors.ts";
import { defineTool } from "./shared/define.ts";
import { count, cutFields } from "./shared/paging.ts";
import { BranchNameSchema } from "./shared/params.ts";

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
    return loaded.ok ? readStack(loaded.value.workspace, loaded.value.state, branch) : loaded;
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
