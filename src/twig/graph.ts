import type { TwigState } from "./state.ts";

export interface BranchGraph {
  /** Local branches, byte-wise sorted. */
  nodes: readonly string[];
  has(branch: string): boolean;
  /** Children in byte-wise order (declared dependencies plus orphans under the default root). */
  childrenOf(branch: string): readonly string[];
  /** Trees to render when no root is named, in twig's candidate order (§4.4). */
  rootCandidates: readonly string[];
  defaultRoot: string | null;
}

/**
 * twig's branch graph (§4): local branches as nodes, declared dependencies between local
 * branches as edges, and every parentless branch that is not a configured root hung under the
 * default root. `current` is the checked-out branch, the fallback root candidate.
 */
export function buildBranchGraph(
  localBranches: readonly string[],
  state: TwigState,
  current: string | null,
): BranchGraph {
  const nodes = branchSet(localBranches);
  // A branch has one or two parents, so a list with a duplicate check beats a Set per branch.
  const parentsOf = new Map<string, string[]>();
  for (const { child, parent } of state.dependencies) {
    if (!nodes.has(child) || !nodes.has(parent)) continue;
    const parents = parentsOf.get(child);
    if (!parents) parentsOf.set(child, [parent]);
    else if (!parents.includes(parent)) parents.push(parent);
  }

  const flagged = state.roots.find((root) => root.is_default) ?? state.roots[0];
  const defaultRoot = flagged && nodes.has(flagged.branch) ? flagged.branch : null;
  const configuredRoots = new Set(state.roots.map((root) => root.branch));
  // Walking the branches in their (byte-wise) order appends each child list already sorted: no
  // sort per parent, and the default root's thousands of orphans cost one pass.
  const children = new Map<string, string[]>();
  const addChild = (parent: string, child: string) => {
    const list = children.get(parent);
    if (!list) children.set(parent, [child]);
    else list.push(child);
  };
  for (const node of localBranches) {
    const parents = parentsOf.get(node);
    if (parents) {
      for (const parent of parents) addChild(parent, node);
    } else if (defaultRoot !== null && node !== defaultRoot && !configuredRoots.has(node)) {
      addChild(defaultRoot, node);
    }
  }

  return {
    nodes: localBranches,
    has: (branch) => nodes.has(branch),
    childrenOf: (branch) => children.get(branch) ?? [],
    rootCandidates: rootCandidates(localBranches, state, current),
    defaultRoot,
  };
}

/** The branches as a set, made once per list (listings hand out the same array while unchanged). */
const branchSets = new WeakMap<readonly string[], ReadonlySet<string>>();

export function branchSet(localBranches: readonly string[]): ReadonlySet<string> {
  let set = branchSets.get(localBranches);
  if (set === undefined) {
    set = new Set(localBranches);
    branchSets.set(localBranches, set);
  }
  return set;
}

/**
 * The roots drawn when none is named (§4.4), without building the graph: the configured roots
 * that exist, else the checked-out branch, else the first branch.
 */
export function rootCandidates(sorted: readonly string[], state: TwigState, current: string | null): string[] {
  const nodes = branchSet(sorted);
  // twig repeats a root listed twice in a hand-edited file; one tree per root is what is meant.
  const configured = [...new Set(state.roots.map((root) => root.branch))].filter((branch) => nodes.has(branch));
  if (configured.length > 0) return configured;
  if (current !== null && nodes.has(current)) return [current];
  return sorted.length > 0 ? [sorted[0] as string] : [];
}
