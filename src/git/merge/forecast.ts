import { join } from "node:path";
import { WALK_LIMIT } from "../commits/branch-commits.ts";
import { type CommitIds, commitIds, readShallow } from "../commits/commit-ids.ts";
import { countDivergence } from "../commits/divergence.ts";
import { WorkBudget } from "../objects/budget.ts";
import { ObjectReadError, ObjectStore } from "../objects/object-store.ts";
import type { RepoLocation } from "../refs.ts";
import { type ConflictFile, mergeTrees, type UndecidedFile } from "./merge-trees.ts";
import { BudgetSpent, DIR_MODE, type TreeEntry, treeOfCommit } from "./trees.ts";

/** One call's reading of the repository: its store (and the call's budget), commit ids, cancellation. */
export type ForecastContext = {
  store: ObjectStore;
  ids: CommitIds;
  shallow: ReadonlySet<string>;
  signal?: AbortSignal;
} & Disposable;

export function openForecastContext(
  repo: Pick<RepoLocation, "commonDir" | "workTree">,
  { budget = new WorkBudget(), signal }: { budget?: WorkBudget; signal?: AbortSignal } = {},
): ForecastContext {
  const shallow = readShallow(repo.commonDir);
  const places = [repo.commonDir, repo.workTree];
  const store = ObjectStore.open(join(repo.commonDir, "objects"), places, shallow.size === 0, budget);
  return { store, ids: commitIds(store, shallow), shallow, signal, [Symbol.dispose]: () => store[Symbol.dispose]() };
}

type UnknownReason = "budget" | "object_missing" | "shallow" | "waits_on_parent" | "undecided_files" | "old_base";

/** What rebasing a branch's own commits onto its new base will do, decided before anything is run. */
export type RestackForecast = {
  result: "clean" | "conflicts" | "unknown";
  /** For `unknown`: why, as a code and in plain words. */
  unknown?: { reason: UnknownReason; message: string };
  /** For `conflicts`: at most 20 files, each with its kind (and, for content, line ranges in the branch's version). */
  files: ConflictFile[];
  files_omitted: number;
  /** Files the forecast could not decide (over 1 MiB, renamed, a submodule), at most 20. */
  undecided: UndecidedFile[];
  undecided_omitted: number;
  /** The branch's commits the new base already carries, so the rewrite drops them: newest first, at most 20. */
  dropped: string[];
  dropped_omitted: number;
  /** Present when `dropped` and its count are lower bounds. */
  dropped_limited_by?: "walk_limit" | "shallow" | "budget";
};

/** What a child's forecast needs from its parent's: pass it as the child's `onto`. */
export type ForecastLink = {
  branch: string;
  forecast: RestackForecast;
  /** The parent's tree after its step, in memory; absent unless clean. */
  tree?: TreeEntry;
  /** The commit at the root of the chain: the first parent's new base. */
  rootBase: string;
  /** Every commit the parent's step drops (its own and its parent's). */
  droppedAll: ReadonlySet<string>;
};

/**
 * `branch` (`tip`) rebased from `oldBase` onto `onto`, as `git rebase --onto NEW OLD B` with merge-ort,
 * i.e. `git merge-tree --write-tree --merge-base=OLD NEW B`: `onto` is a commit, or the parent's link
 * when the parent is rewritten first (its result tree stands for the new base). Without `tip` or `oldBase` (not
 * read, not found) the forecast is `unknown` (`old_base`), and so are its children's.
 */
export type RestackStep = { branch: string; tip?: string; oldBase?: string; onto: string | ForecastLink };

const LISTED_FILES = 20;
const LISTED_DROPPED = 20;

export async function forecastRestack(context: ForecastContext, step: RestackStep): Promise<ForecastLink> {
  const { store, ids, signal } = context;
  signal?.throwIfAborted();
  const parent = typeof step.onto === "string" ? undefined : step.onto;
  const rootBase = parent?.rootBase ?? (step.onto as string);
  const link = (forecast: RestackForecast, tree?: TreeEntry, droppedAll: ReadonlySet<string> = new Set()) => ({
    branch: step.branch,
    forecast,
    rootBase,
    droppedAll,
    ...(tree === undefined ? {} : { tree }),
  });
  const unknown = (reason: UnknownReason, message: string) =>
    link({ ...EMPTY, result: "unknown", unknown: { reason, message } });
  if (parent !== undefined && parent.tree === undefined) {
    const why = parent.forecast.result === "conflicts" ? "conflicts" : "unknown result";
    return unknown("waits_on_parent", `waits on ${parent.branch}'s ${why}`);
  }
  const { tip, oldBase } = step;
  if (tip === undefined || oldBase === undefined) return unknown("old_base", "where its own commits start is unknown");
  try {
    const root = (commit: string): TreeEntry => ({ mode: DIR_MODE, oid: treeOfCommit(store, commit) });
    const ours = parent?.tree ?? root(rootBase);
    const merge = await mergeTrees(store, { base: root(oldBase), ours, theirs: root(tip) }, signal);
    const walk = await countDivergence(ids.load, ids.idOf(rootBase), ids.idOf(oldBase), {
      limit: WALK_LIMIT,
      listed: WALK_LIMIT,
      budget: store.budget,
      signal,
    });
    const dropped = walk.aheadIds.map(ids.oidOf).filter((oid) => parent === undefined || parent.droppedAll.has(oid));
    const omitted = parent === undefined ? walk.ahead - dropped.length : 0;
    const forecast: RestackForecast = {
      result: merge.conflicts.length > 0 ? "conflicts" : merge.undecided.length > 0 ? "unknown" : "clean",
      files: merge.conflicts.slice(0, LISTED_FILES).map((file) => ({ ...file, path: decoded(file.path) })),
      files_omitted: Math.max(0, merge.conflicts.length - LISTED_FILES),
      undecided: merge.undecided.slice(0, LISTED_FILES).map((file) => ({ ...file, path: decoded(file.path) })),
      undecided_omitted: Math.max(0, merge.undecided.length - LISTED_FILES),
      dropped: dropped.slice(0, LISTED_DROPPED),
      dropped_omitted: Math.max(0, dropped.length - LISTED_DROPPED) + omitted,
      ...(walk.truncated === undefined ? {} : { dropped_limited_by: walk.truncated }),
    };
    if (forecast.result === "unknown") {
      const count = merge.undecided.length;
      forecast.unknown = { reason: "undecided_files", message: `${count} file${count === 1 ? "" : "s"} not decided` };
    }
    return link(forecast, forecast.result === "clean" ? merge.tree : undefined, new Set(dropped));
  } catch (error) {
    if (error instanceof BudgetSpent) return unknown("budget", "the call's work budget ran out");
    if (!(error instanceof ObjectReadError)) throw error;
    if (context.shallow.size > 0 && error.message.includes("missing"))
      return unknown("shallow", `past the shallow clone's boundary: ${error.message}`);
    return unknown("object_missing", error.message);
  }
}

/** Paths are kept as bytes (latin1) while merging; shown as git shows them, UTF-8 (control characters are the caller's to escape). */
const decoded = (path: string) => Buffer.from(path, "latin1").toString("utf8");

const EMPTY = { files: [], files_omitted: 0, undecided: [], undecided_omitted: 0, dropped: [], dropped_omitted: 0 };
