import * as v from "valibot";
import { compareBytewise } from "../git/bytewise.ts";
import type { TwigState } from "./state.ts";

export type BranchGraph = ReturnType<typeof buildBranchGraph>;

/** twig's branch graph: local branches, their declared dependencies, orphans under the default root. */
export function buildBranchGraph(localBranches: readonly string[], state: TwigState) {
  const nodes = new Set(localBranches);
  const defaultRoot = defaultRootOf(localBranches, state);
  const configuredRoots = new Set(state.roots.map((root) => root.branch));
  // Walking the sorted branches appends each child list already sorted: no sort per parent.
  const children = new Map<string, string[]>();
  const addChild = (parent: string, child: string) =>
    children.get(parent)?.push(child) ?? children.set(parent, [child]);
  for (const node of localBranches) {
    let attached = false;
    // A parent declared twice is one edge (a Set: a hostile state may repeat one thousands of times).
    for (const parent of new Set(state.parentsOf(node))) {
      if (!nodes.has(parent)) continue;
      addChild(parent, node);
      attached = true;
    }
    // A branch none of whose declared parents exists locally counts as parentless.
    if (!attached && defaultRoot !== null && node !== defaultRoot && !configuredRoots.has(node)) {
      addChild(defaultRoot, node);
    }
  }
  return { childrenOf: (branch: string): readonly string[] => children.get(branch) ?? [], defaultRoot };
}

/** The default root: the first root flagged default, else the first root; `null` unless it is a local branch. */
function defaultRootOf(sorted: readonly string[], state: TwigState): string | null {
  const flagged = state.roots.find((root) => root.is_default) ?? state.roots[0];
  return flagged && includesSorted(sorted, flagged.branch) ? flagged.branch : null;
}

/** What `branch`'s divergence is measured against: its first local parent, else the default root. */
export function divergenceBase(sorted: readonly string[], state: TwigState, branch: string): string | null {
  const parent = state.parentsOf(branch).find((name) => name !== branch && includesSorted(sorted, name));
  if (parent !== undefined) return parent;
  const root = defaultRootOf(sorted, state);
  return root === branch ? null : root;
}

/** The roots drawn when none is named: configured ones, else the checked-out branch, else the first. */
export function rootCandidates(sorted: readonly string[], state: TwigState, current: string | null): string[] {
  const configured = configuredRoots(sorted, state);
  if (configured.length > 0) return configured;
  if (current !== null && includesSorted(sorted, current)) return [current];
  return sorted.length > 0 ? [sorted[0] as string] : [];
}

/** The configured roots that exist, in twig's order: when there are any, the checked-out branch does not matter. */
export function configuredRoots(sorted: readonly string[], state: TwigState): string[] {
  // twig repeats a root listed twice in a hand-edited file; one tree per root is what is meant.
  return [...new Set(state.roots.map((root) => root.branch))].filter((branch) => includesSorted(sorted, branch));
}

/** Where `name` is, or would go, in a byte-wise sorted list (binary search: no set of every branch). */
export function sortedIndex(sorted: readonly string[], name: string): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (compareBytewise(sorted[middle] as string, name) < 0) low = middle + 1;
    else high = middle;
  }
  return low;
}

export function includesSorted(sorted: readonly string[], name: string): boolean {
  return sorted[sortedIndex(sorted, name)] === name;
}

export interface TreeNode {
  branch: string;
  children: TreeNode[];
  jira_issue?: string;
  pr_number?: number;
  /** This branch is already an ancestor on this path; its subtree is not repeated. */
  cycle?: true;
  /** Some or all of this node's children are not listed (node budget, `depth`, or reply budget). */
  truncated?: true;
}

export const TreeNodeSchema: v.GenericSchema<TreeNode> = v.object({
  branch: v.string(),
  children: v.array(v.lazy(() => TreeNodeSchema)),
  jira_issue: v.optional(v.string()),
  pr_number: v.optional(v.number()),
  cycle: v.optional(v.literal(true)),
  truncated: v.optional(v.literal(true)),
});

/** Diamonds repeat a shared subtree under each parent (as twig does): exponential at worst, so capped. */
export const TREE_NODE_BUDGET = 50_000;

/** Levels built below a root: each nests twice in JSON, and parsers refuse deep nesting (serde_json at 128). */
export const MAX_TREE_DEPTH = 48;

/** A stack's flat listing nests nothing: it goes far deeper than a tree, and says where it stops (`cut`). */
const MAX_STACK_DEPTH = 1_000;

/** Expands the graph below `root`, a repeat on the path marked `cycle`, at most `maxDepth` (and `cap`) deep. */
export function buildTree(
  graph: BranchGraph,
  state: TwigState,
  root: string,
  budget = { left: TREE_NODE_BUDGET },
  maxDepth = Number.POSITIVE_INFINITY,
  cap = MAX_TREE_DEPTH,
): TreeNode {
  const limit = Math.min(maxDepth, cap);
  const onPath = new Set<string>();
  const expand = (branch: string, depth: number): TreeNode => {
    budget.left--;
    const node: TreeNode = { branch, children: [] };
    const meta = state.branches.get(branch);
    if (meta?.jira_issue != null) node.jira_issue = meta.jira_issue;
    if (meta?.github_pr != null) node.pr_number = meta.github_pr;
    if (onPath.has(branch)) return { ...node, cycle: true };
    const children = graph.childrenOf(branch);
    if (depth >= limit) return children.length > 0 ? { ...node, truncated: true } : node;
    onPath.add(branch);
    for (const child of children) {
      if (budget.left <= 0) {
        node.truncated = true;
        break;
      }
      node.children.push(expand(child, depth + 1));
    }
    onPath.delete(branch);
    return node;
  };
  return expand(root, 0);
}

/** One branch of a stack as get_branch_tree draws it: its drawn parent and its depth below the trunk. */
export interface StackMember {
  branch: string;
  /** The branch it is drawn under (twig's first declared parent that exists, or the default root for an orphan). */
  parent?: string;
  /** 0 for a stack's bottom branch (the one on the trunk). */
  depth: number;
  /** Branches below it are not listed: the stack goes on past the depth or the node budget. */
  cut?: true;
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
  const grow = (root: string) => buildTree(graph, state, root, undefined, undefined, MAX_STACK_DEPTH);
  if (branch === null || isTrunk.has(branch)) {
    return members((branch === null ? trunks : [branch]).map(grow), true);
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
  const tree = grow(bottom);
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
    const member: StackMember =
      parent === undefined ? { branch: node.branch, depth } : { branch: node.branch, parent, depth };
    if (node.truncated) member.cut = true;
    out.push(member);
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
