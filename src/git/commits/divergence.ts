import { timeSlices, type WorkBudget } from "../objects/budget.ts";

/** A commit as the walk sees it; commits are named by integer ids (graph positions), hex only for a reply. */
export interface WalkCommit {
  parents: number[];
  /** Topological level from the commit-graph; `INFINITE_GENERATION` for a commit it does not cover. */
  generation: number;
  time: number;
  /** A boundary of a shallow clone: git records no parents for it. */
  shallow: boolean;
}

/** Commits newer than the graph sort before every commit in it, as in git. */
export const INFINITE_GENERATION = 2 ** 32;

/** `git rev-list --left-right --count base...branch`; `truncated`: why they are lower bounds. */
export type Divergence = {
  ahead: number;
  behind: number;
  /** The first commits only `branch` has, newest first (by when the walk took them), at most `listed`. */
  aheadIds: number[];
  truncated?: "walk_limit" | "shallow" | "budget";
};

export type WalkOptions = {
  /** Commits this walk may take. */
  limit: number;
  /** How many of the branch's own commits to name. */
  listed: number;
  /** Shared by every walk of the call. */
  budget: WorkBudget;
  signal?: AbortSignal;
};

const BASE = 1;
const BRANCH = 2;
const BOTH = BASE | BRANCH;

/** `taken`: when the walk took it (1, 2, …), 0 while it has not. */
type Node = { id: number; commit: WalkCommit; flags: number; taken: number; queued: boolean };

/** Later first: higher generation, then later commit time. */
const before = ({ commit: a }: Node, { commit: b }: Node) =>
  a.generation !== b.generation ? a.generation > b.generation : a.time > b.time;

/**
 * git's `paint_down_to_common`: both tips paint their parents, newest first, until nothing one-sided
 * is left. Exact by generation number; commits the graph lacks go by time until nothing queued is newer
 * than the oldest one-sided one (clock skew fools this, as it does git). Past `limit` or the budget: lower
 * bounds. Yields to the event loop every few milliseconds; a cancelled `signal` ends the walk by throwing.
 */
export async function countDivergence(
  load: (id: number) => WalkCommit,
  baseId: number,
  branchId: number,
  { limit, listed, budget, signal }: WalkOptions,
): Promise<Divergence> {
  const nodes = new Map<number, Node>();
  const heap: Node[] = [];
  /** Queued nodes painted by one side only: while there are any, the fork is not found. */
  let oneSided = 0;
  /** The oldest time among one-sided commits taken without a generation number. */
  let oldestOneSided = Number.POSITIVE_INFINITY;
  let taken = 0;
  let truncated: Divergence["truncated"];
  const pause = timeSlices(signal);

  const paint = (id: number, flags: number) => {
    let node = nodes.get(id);
    if (node === undefined) {
      node = { id, commit: load(id), flags: 0, taken: 0, queued: false };
      nodes.set(id, node);
    }
    const merged = node.flags | flags;
    if (merged === node.flags) return;
    if (node.queued && node.flags !== BOTH && merged === BOTH) oneSided--;
    node.flags = merged;
    if (node.queued) return;
    node.queued = true;
    if (merged !== BOTH) oneSided++;
    push(heap, node);
  };

  paint(baseId, BASE);
  paint(branchId, BRANCH);
  while (heap.length > 0) {
    const top = heap[0] as Node;
    if (oneSided === 0 && (top.commit.generation !== INFINITE_GENERATION || top.commit.time < oldestOneSided)) break;
    if (taken >= limit) {
      truncated = "walk_limit";
      break;
    }
    if (budget.spent) {
      truncated = "budget";
      break;
    }
    await pause();
    pop(heap);
    taken++;
    top.taken = taken;
    top.queued = false;
    if (top.flags !== BOTH) {
      oneSided--;
      if (top.commit.shallow) truncated ??= "shallow";
      if (top.commit.generation === INFINITE_GENERATION) oldestOneSided = Math.min(oldestOneSided, top.commit.time);
    }
    for (const parent of top.commit.parents) paint(parent, top.flags);
  }

  let behind = 0;
  const aheadNodes: Node[] = [];
  for (const node of nodes.values()) {
    // Only commits already taken count: a queued one's paint may still change.
    if (node.taken === 0 || node.queued) continue;
    if (node.flags === BRANCH) aheadNodes.push(node);
    else if (node.flags === BASE) behind++;
  }
  const aheadIds = aheadNodes
    .sort((a, b) => a.taken - b.taken)
    .slice(0, listed)
    .map((node) => node.id);
  const counts = { ahead: aheadNodes.length, behind, aheadIds };
  return truncated === undefined ? counts : { ...counts, truncated };
}

function push(heap: Node[], node: Node): void {
  heap.push(node);
  let i = heap.length - 1;
  while (i > 0) {
    const parent = (i - 1) >> 1;
    if (!before(node, heap[parent] as Node)) break;
    heap[i] = heap[parent] as Node;
    i = parent;
  }
  heap[i] = node;
}

function pop(heap: Node[]): void {
  const last = heap.pop() as Node;
  if (heap.length === 0) return;
  let i = 0;
  for (;;) {
    const left = 2 * i + 1;
    if (left >= heap.length) break;
    const right = left + 1;
    const child = right < heap.length && before(heap[right] as Node, heap[left] as Node) ? right : left;
    if (!before(heap[child] as Node, last)) break;
    heap[i] = heap[child] as Node;
    i = child;
  }
  heap[i] = last;
}
