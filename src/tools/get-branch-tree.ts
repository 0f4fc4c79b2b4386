import * as v from "valibot";
import type { Context } from "../core/context.ts";
import { toolError } from "../core/errors.ts";
import { err, ok } from "../core/result.ts";
import type { DiscoveredRepo } from "../git/discover.ts";
import { listLocalBranches } from "../git/refs.ts";
import { currentBranch, openWorkspace } from "../repo/workspace.ts";
import {
  buildBranchGraph,
  buildTree,
  configuredRoots,
  includesSorted,
  rootCandidates,
  TREE_NODE_BUDGET,
  TreeNodeSchema,
} from "../twig/graph.ts";
import { loadState } from "../twig/state.ts";
import { cutTrees, measureTrees, renderTreeText } from "../twig/tree.ts";
import { defineTool, type ReplyBudget } from "./shared/define.ts";
import { count, cutFields } from "./shared/paging.ts";
import { BranchNameSchema, branchNotFound, integerIn, unpublished } from "./shared/params.ts";

const BranchTreeOutputSchema = v.object({
  root: v.string(),
  tree_text: v.string(),
  branches: v.array(TreeNodeSchema),
  ...cutFields(["branches", "tree_lines"]),
});
type BranchTreeOutput = v.InferOutput<typeof BranchTreeOutputSchema>;

export const getBranchTreeTool = defineTool({
  name: "get_branch_tree",
  title: "Branch dependency tree",
  description:
    "Get the branch dependency tree: branches under their declared parents, with Jira keys and PR numbers, as text and nodes. Untracked local branches too; no live status.",
  group: "local",
  input: v.object({
    branch: v.optional(v.pipe(BranchNameSchema, v.description("Tree root. Default: every root, default root first."))),
    depth: v.optional(
      v.pipe(
        integerIn(0, 10_000),
        unpublished("minimum", "maximum"),
        v.description("Levels shown below each root (0: roots only). Default: all."),
      ),
    ),
  }),
  output: BranchTreeOutputSchema,
  repoScoped: true,
  async handler({ branch, depth }, ctx, call) {
    const opened = await openWorkspace(ctx);
    if (!opened.ok) return opened;
    const repo = opened.value;
    const [local, state] = await Promise.all([listLocalBranches(repo), loadState(ctx, repo.workTree)]);
    if (!local.ok) return local;
    if (!state.ok) return state;
    if (local.value.length === 0) {
      const hint = "Commit to a branch first; twig works on branches.";
      return err(toolError("not_found", "No branches found in repository", hint));
    }
    if (branch !== undefined && !includesSorted(local.value, branch)) {
      const hint =
        "Call `get_branch_tree` without `branch` to see every tree, or `list_branches` for tracked branches.";
      return branchNotFound(branch, "repository", local.value, hint);
    }
    let current: string | null = null;
    let roots = branch === undefined ? configuredRoots(local.value, state.value) : [branch];
    // The checked-out branch is only the fallback root: HEAD is read only when it can matter.
    if (roots.length === 0) {
      current = await checkedOut(ctx, repo);
      roots = rootCandidates(local.value, state.value, current);
    }
    const graph = buildBranchGraph(local.value, state.value);
    const budget = { left: TREE_NODE_BUDGET };
    const trees = roots.map((root) => buildTree(graph, state.value, root, budget, depth));
    const root = roots[0] as string;
    // A text that cannot fit even without the nodes is cut now, before it is drawn and serialised whole.
    const { nodes, textBytes } = measureTrees(trees);
    if (call.budget !== undefined && textBytes > call.budget.units) {
      return ok(cutTreeText(root, trees, nodes, call.budget, current ?? (await checkedOut(ctx, repo))));
    }
    return ok({ root, tree_text: trees.map(renderTreeText).join("\n"), branches: trees });
  },
  // Over the reply budget the nodes go first (the text says the same), then text lines (cutTreeText).
  async fit(answer, budget, _args, ctx) {
    // Cut by the handler already and still over: the kept path alone is too big, and is refused.
    if (answer.truncated && answer.branches.length === 0) return answer;
    const { nodes } = measureTrees(answer.branches);
    const textOnly: BranchTreeOutput = {
      ...answer,
      branches: [],
      truncated: true,
      omitted: { branches: nodes },
      hint: "branches (the nodes) left out to fit the reply budget; tree_text is complete. Pass branch or depth for nodes.",
    };
    // A drawn line costs more than a unit a character: a text longer than the budget cannot fit.
    if (answer.tree_text.length < budget.units && budget.size(textOnly) <= budget.units) return textOnly;
    return cutTreeText(answer.root, answer.branches, nodes, budget, await checkedOut(ctx));
  },
});

/** The checked-out branch, or `null` (no repository, detached or unreadable HEAD): trees are drawn without one. */
async function checkedOut(ctx: Context, opened?: DiscoveredRepo): Promise<string | null> {
  const workspace = opened === undefined ? await openWorkspace(ctx) : ok(opened);
  const head = workspace.ok ? await currentBranch(workspace.value) : null;
  return head?.ok ? head.value.branch : null;
}

/** The trees as text cut on whole lines to fit, keeping the path to `focus` and its subtree. */
function cutTreeText(
  root: string,
  trees: BranchTreeOutput["branches"],
  nodes: number,
  budget: ReplyBudget,
  focus: string | null,
): BranchTreeOutput {
  const cutAnswer = (tree_text: string, lines: number): BranchTreeOutput => ({
    root,
    tree_text,
    branches: [],
    truncated: true,
    omitted: { branches: nodes, tree_lines: lines },
    hint: `tree_text cut to fit the reply budget: ${count(lines)} lines left out${
      focus === null ? "" : ` (the path to ${focus} and its subtree are kept)`
    }. Pass branch=<a branch> for its subtree, or depth.`,
  });
  let fitted = cutAnswer("", nodes);
  let room = budget.units - budget.size(fitted);
  const closingRoom = 120 + Buffer.byteLength(JSON.stringify(root), "utf8");
  // Line costs are counted in bytes, which token-dense names outrun: each further pass scales the
  // room by the last one's overshoot. The first runs whatever the room (the kept path is always drawn).
  for (let attempt = 0; attempt < 4 && (attempt === 0 || room > 0); attempt++) {
    const cut = cutTrees(trees, focus, room - closingRoom);
    const closing =
      cut.omitted === 0
        ? ""
        : `… ${count(cut.omitted)} more ${cut.omitted === 1 ? "branch" : "branches"} (pass branch=<root> or depth)\n`;
    fitted = cutAnswer(cut.trees.map(renderTreeText).join("\n") + closing, cut.omitted);
    const size = budget.size(fitted);
    if (size <= budget.units) return fitted;
    room = Math.floor(((room - closingRoom) * budget.units) / size) + closingRoom - 64;
  }
  return fitted;
}
