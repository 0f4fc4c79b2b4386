import { compareBytewise } from "../git/bytewise.ts";
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
  const nodes = new Set(localBranches);
  // A Set per parent: the default root can collect thousands of orphans, and a list lookup per
  // insertion would make that quadratic.
  const childSets = new Map<string, Set<string>>();
  const hasParent = new Set<string>();
  const addChild = (parent: string, child: string) => {
    const set = childSets.get(parent);
    if (!set) childSets.set(parent, new Set([child]));
    else set.add(child);
  };

  for (const { child, parent } of state.dependencies) {
    if (!nodes.has(child) || !nodes.has(parent)) continue;
    hasParent.add(child);
    addChild(parent, child);
  }

  const flagged = state.roots.find((root) => root.is_default) ?? state.roots[0];
  const defaultRoot = flagged && nodes.has(flagged.branch) ? flagged.branch : null;
  if (defaultRoot !== null) {
    const configuredRoots = new Set(state.roots.map((root) => root.branch));
    for (const node of localBranches) {
      if (!hasParent.has(node) && node !== defaultRoot && !configuredRoots.has(node)) addChild(defaultRoot, node);
    }
  }
  const children = new Map<string, string[]>();
  for (const [parent, set] of childSets) children.set(parent, [...set].sort(compareBytewise));

  return {
    nodes: localBranches,
    has: (branch) => nodes.has(branch),
    childrenOf: (branch) => children.get(branch) ?? [],
    rootCandidates: rootCandidates(localBranches, nodes, state, current),
    defaultRoot,
  };
}

function rootCandidates(sorted: readonly string[], nodes: Set<string>, state: TwigState, current: string | null) {
  // twig repeats a root listed twice in a hand-edited file; one tree per root is what is meant.
  const configured = [...new Set(state.roots.map((root) => root.branch))].filter((branch) => nodes.has(branch));
  if (configured.length > 0) return configured;
  if (current !== null && nodes.has(current)) return [current];
  return sorted.length > 0 ? [sorted[0] as string] : [];
}
