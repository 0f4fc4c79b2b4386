import { type BranchGraph, includesSorted } from "./graph.ts";
import type { TwigState } from "./state.ts";
import { buildTree, type TreeNode } from "./tree.ts";

/** One branch of a stack as get_branch_tree draws it: its drawn parent and its depth below the trunk. */
export interface StackMember {
  branch: string;
  /** The branch it is drawn under (twig's first declared parent that exists, or the default root for an orphan). */
  parent?: string;
  /** 0 for a stack's bottom branch (the one on the trunk). */
  depth: number;
}

/** The branches of the stacks under `trunks` (not members), or of the one holding `branch`, as drawn. */
export function stackMembers(
  graph: BranchGraph,
  state: TwigState,
  localBranches: readonly string[],
  trunks: readonly string[],
  branch: string | null,
): StackMember[] {
  const drawnParent = (name: string) => {
    const declared = state.parentsOf(name).find((parent) => includesSorted(localBranches, parent));
    if (declared !== undefined) return declared;
    const root = graph.defaultRoot;
    return root !== null && root !== name && graph.childrenOf(root).includes(name) ? root : undefined;
  };
  const isTrunk = new Set(trunks);
  if (branch === null || isTrunk.has(branch)) {
    return members(
      (branch === null ? trunks : [branch]).map((trunk) => buildTree(graph, state, trunk)),
      true,
    );
  }
  // Up the first parents to the stack's bottom; a parent loop ends where it repeats, with no trunk.
  let bottom = branch;
  let parent = drawnParent(bottom);
  const seen = new Set([branch]);
  while (parent !== undefined && !isTrunk.has(parent) && !seen.has(parent)) {
    seen.add(parent);
    bottom = parent;
    parent = drawnParent(bottom);
  }
  const tree = buildTree(graph, state, bottom);
  if (parent !== undefined && isTrunk.has(parent)) return members([{ branch: parent, children: [tree] }], true);
  return members([tree], false);
}

/** The nodes in drawing order, each once; with `skipRoots`, the roots (trunks) themselves are left out. */
function members(trees: readonly TreeNode[], skipRoots: boolean): StackMember[] {
  const listed = new Set<string>();
  const out: StackMember[] = [];
  const walk = (node: TreeNode, parent: string | undefined, depth: number) => {
    if (node.cycle || listed.has(node.branch)) return;
    listed.add(node.branch);
    out.push(parent === undefined ? { branch: node.branch, depth } : { branch: node.branch, parent, depth });
    for (const child of node.children) walk(child, node.branch, depth + 1);
  };
  for (const tree of trees) {
    if (!skipRoots) walk(tree, undefined, 0);
    else {
      listed.add(tree.branch);
      for (const child of tree.children) walk(child, tree.branch, 0);
    }
  }
  return out;
}
