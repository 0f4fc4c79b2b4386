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
