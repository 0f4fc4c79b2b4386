import { countDivergence } from "../commits/divergence.ts";
import { TimeSlice } from "../objects/budget.ts";
import { ObjectReadError } from "../objects/object-store.ts";
import type { ForecastContext } from "./forecast.ts";
import { DIR_MODE, diffTrees, type TreeEntry, treeOfCommit } from "./trees.ts";

/** Commits looked at on either side: a squash lands soon after its branch forks, and a stack is short. */
const MAX_COMMITS = 1_000;

/** Walks `from..to`, at most the limits here. */
const walk = ({ store, ids, signal }: ForecastContext, from: string, to: string) =>
  countDivergence(ids.load, ids.idOf(from), ids.idOf(to), {
    limit: 10 * MAX_COMMITS,
    listed: MAX_COMMITS,
    budget: store.budget,
    signal,
  });

/**
 * The branch's own commits (those `newBase` lacks) along first parents from its tip, newest first, and the commit
 * they start from: where a plain `git rebase NEW B` replays from. `undefined` past the walk's limits, at an
 * unreadable object, or with no such commit (history of its own).
 */
export async function ownRun(
  context: ForecastContext,
  { branchTip, newBase }: { branchTip: string; newBase: string },
): Promise<{ run: number[]; fork: number } | undefined> {
  const { ids } = context;
  try {
    const own = await walk(context, newBase, branchTip);
    if (own.truncated !== undefined || own.ahead > MAX_COMMITS) return undefined;
    const mine = new Set(own.aheadIds);
    const run: number[] = [];
    let id: number | undefined = ids.idOf(branchTip);
    for (; id !== undefined && mine.has(id); id = ids.load(id).parents[0]) run.push(id);
    return id === undefined ? undefined : { run, fork: id };
  } catch (error) {
    if (error instanceof ObjectReadError) return undefined;
    throw error;
  }
}

/**
 * The parent's old tip when the parent branch is gone: the longest run of the branch's first commits
 * (oldest first, along first parents) whose combined change equals one commit's change on `newBase`
 * since the fork, i.e. that commit squashes them. Changes are compared as the paths touched and what
 * each became, so a squash of several commits is found where patch-ids compare one commit at a time.
 * `undefined` when none matches, or the walk runs past its limits or an unreadable object.
 */
export async function findSquashedBase(
  context: ForecastContext,
  { branchTip, newBase }: { branchTip: string; newBase: string },
): Promise<string | undefined> {
  const { store, ids, signal } = context;
  try {
    const own = await ownRun(context, { branchTip, newBase });
    const onBase = await walk(context, branchTip, newBase);
    if (own === undefined || own.run.length === 0 || onBase.truncated !== undefined) return undefined;
    const { run, fork } = own;
    const root = (id: number): TreeEntry => ({ mode: DIR_MODE, oid: treeOfCommit(store, ids.oidOf(id)) });
    const change = (from: number, to: number) => {
      return [...diffTrees(store, root(from), root(to))]
        .map(([path, entry]) => `${path}\0${entry?.mode ?? ""} ${entry?.oid ?? ""}`)
        .sort()
        .join("\n");
    };
    const slice = new TimeSlice();
    const squashes = new Set<string>();
    for (const id of onBase.aheadIds) {
      const [parent, ...merged] = ids.load(id).parents;
      if (parent !== undefined && merged.length === 0) squashes.add(change(parent, id));
      if (store.budget.spent) return undefined;
      if (slice.due) await slice.yield(signal);
    }
    // `run` is newest first: the longest run ends at the newest commit that matches.
    for (const id of run) {
      if (store.budget.spent) return undefined;
      if (slice.due) await slice.yield(signal);
      if (squashes.has(change(fork, id))) return ids.oidOf(id);
    }
    return undefined;
  } catch (error) {
    if (error instanceof ObjectReadError) return undefined;
    throw error;
  }
}
