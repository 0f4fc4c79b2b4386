import { TimeSlice } from "../objects/budget.ts";
import type { ObjectStore } from "../objects/object-store.ts";
import { isBinary, type LineRange, mergeText } from "./text-merge.ts";
import {
  BudgetSpent,
  checkTreeDepth,
  DIR_MODE,
  diffTrees,
  entryTree,
  sameEntry,
  type Tree,
  type TreeEntry,
} from "./trees.ts";

type ConflictKind = "content" | "modify/delete" | "add/add" | "binary" | "mode";
/** `lines`: content conflicts in the branch's version, at most 5; `lines_omitted`: how many more. */
export type ConflictFile = { path: string; kind: ConflictKind; lines?: LineRange[]; lines_omitted?: number };
/** A file the merge cannot decide, and why. */
export type UndecidedFile = { path: string; reason: string };
export type TreeMerge = { tree: TreeEntry; conflicts: ConflictFile[]; undecided: UndecidedFile[] };

/** A path's entry on one side; `undefined` where that side has none. */
type Side = TreeEntry | undefined;

/** As the limit: a larger file is `unknown`, not merged. */
const MAX_MERGED_BLOB_BYTES = 1024 * 1024;
const LINES_PER_FILE = 5;

const FILE_MODES = new Set(["100644", "100755"]);

/**
 * A 3-way merge of trees, as git's merge-ort without rename detection: where a side left a path as the
 * base had it, the other side's entry is taken unread, so unchanged subtrees are never read; only files
 * changed on both sides are merged. A rename on one side and an edit on the other would be a
 * modify/delete here; git follows the rename, so such a file is `undecided`.
 */
export async function mergeTrees(
  store: ObjectStore,
  root: { base: TreeEntry; ours: TreeEntry; theirs: TreeEntry },
  signal?: AbortSignal,
): Promise<TreeMerge> {
  const conflicts: ConflictFile[] = [];
  const undecided: UndecidedFile[] = [];
  const deletions: { path: string; old: TreeEntry; side: TreeEntry }[] = [];
  const slice = new TimeSlice();
  const blob = (entry: TreeEntry) => entry.data ?? store.readObject(entry.oid as string).data;

  /** Unreadable results keep ours: a forecast that conflicts or is undecided has no child built on its tree. */
  const conflict = (path: string, kind: ConflictKind, keep?: TreeEntry) => {
    conflicts.push({ path, kind });
    return keep;
  };
  const undecide = (path: string, reason: string, keep?: TreeEntry) => {
    undecided.push({ path, reason });
    return keep;
  };
  const sameContent = (x: TreeEntry | undefined, y: TreeEntry) =>
    x !== undefined && sameEntry({ ...x, mode: "" }, { ...y, mode: "" });

  /** Both sides changed the file differently: its mode and its content merge apart, as in git. */
  const mergeFile = (path: string, o: Side, a: TreeEntry, b: TreeEntry) => {
    const mode = a.mode === b.mode || b.mode === o?.mode ? a.mode : a.mode === o?.mode ? b.mode : undefined;
    const pick = sameContent(a, b) || sameContent(o, b) ? a : sameContent(o, a) ? b : undefined;
    if (pick !== undefined) return mode === undefined ? conflict(path, "mode", a) : { ...pick, mode };
    const kind: ConflictKind = o === undefined ? "add/add" : "content";
    if (![a.mode, b.mode].every((m) => FILE_MODES.has(m))) {
      // Links and submodules changed on both sides: git merges neither.
      if (a.mode === "160000" || b.mode === "160000") return undecide(path, "a submodule changed on both sides", a);
      return conflict(path, kind, a);
    }
    const [base, ours, theirs] = [o === undefined ? new Uint8Array() : blob(o), blob(a), blob(b)];
    if ([base, ours, theirs].some((data) => data.length > MAX_MERGED_BLOB_BYTES))
      return undecide(path, "over 1 MiB, not merged", a);
    if ([base, ours, theirs].some(isBinary)) return conflict(path, o === undefined ? "add/add" : "binary", a);
    const merged = mergeText(base, ours, theirs, store.budget);
    if ("tooCostly" in merged) return undecide(path, "too many repeated lines to merge within the budget", a);
    if ("conflicts" in merged) {
      const { conflicts: lines } = merged;
      conflicts.push({
        path,
        kind,
        lines: lines.slice(0, LINES_PER_FILE),
        ...(lines.length > LINES_PER_FILE ? { lines_omitted: lines.length - LINES_PER_FILE } : {}),
      });
      return a;
    }
    return mode === undefined ? conflict(path, "mode", a) : { mode, data: merged.merged };
  };

  const mergeEntry = async (path: string, depth: number, o?: TreeEntry, a?: TreeEntry, b?: TreeEntry) => {
    if (sameEntry(a, b) || sameEntry(o, b)) return a;
    if (sameEntry(o, a)) return b;
    const dirs = [o, a, b].filter((entry) => entry !== undefined).map((entry) => entry.mode === DIR_MODE);
    if (dirs.every(Boolean)) return mergeDir(path, depth, o, a, b);
    if (dirs.some(Boolean)) return undecide(path, "a file on one side is a directory on the other", a);
    if (a === undefined || b === undefined) {
      deletions.push({ path, old: o as TreeEntry, side: a === undefined ? root.ours : root.theirs });
      return conflict(path, "modify/delete", a);
    }
    // A file merged on both sides can take milliseconds: a directory of many yields between them too.
    if (slice.due) await slice.yield(signal);
    if (store.budget.spent) throw new BudgetSpent();
    return mergeFile(path, o, a, b);
  };

  const mergeDir = async (path: string, depth: number, o?: TreeEntry, a?: TreeEntry, b?: TreeEntry): Promise<Side> => {
    if (store.budget.spent) throw new BudgetSpent();
    checkTreeDepth(depth);
    if (slice.due) await slice.yield(signal);
    const [to, ta, tb] = [entryTree(store, o), entryTree(store, a), entryTree(store, b)];
    const tree: Tree = new Map();
    const names = new Set([...to.keys(), ...ta.keys(), ...tb.keys()]);
    store.budget.treeEntries += names.size;
    for (const name of names) {
      const at = path === "" ? name : `${path}/${name}`;
      const merged = await mergeEntry(at, depth + 1, to.get(name), ta.get(name), tb.get(name));
      if (merged !== undefined) tree.set(name, merged);
    }
    return tree.size === 0 ? undefined : { mode: DIR_MODE, tree };
  };

  const tree = (await mergeDir("", 0, root.base, root.ours, root.theirs)) ?? { mode: DIR_MODE, tree: new Map() };
  // A deleted file whose deleting side has a file of its name or its content elsewhere was likely renamed. Names and
  // ids are looked up in sets: tens of thousands of deletions against as many changes must not cost their product.
  const changedOn = new Map<TreeEntry, Set<string>>();
  const renamed = new Set<string>();
  const nameOf = (path: string) => `/${path.slice(path.lastIndexOf("/") + 1)}`;
  for (const { path, old, side } of deletions) {
    let changed = changedOn.get(side);
    if (changed === undefined) {
      changed = new Set();
      for (const [other, entry] of diffTrees(store, root.base, side)) {
        if (entry !== undefined) changed.add(nameOf(other)).add(entry.oid ?? "");
      }
      changedOn.set(side, changed);
    }
    if (!changed.has(nameOf(path)) && !changed.has(old.oid ?? "-")) continue;
    renamed.add(path);
    undecided.push({ path, reason: "renamed on one side and changed on the other (renames are not followed)" });
  }
  return { tree, conflicts: conflicts.filter((file) => !renamed.has(file.path)), undecided };
}
