import { ObjectReadError, type ObjectStore } from "../objects/object-store.ts";

/**
 * A tree entry, read from the store (`oid`) or built by a forecast in memory: a merged file's bytes
 * (`data`), a directory with changed entries (`tree`). Names are kept as latin1 strings: byte-exact keys.
 */
export type TreeEntry = { mode: string; oid?: string; data?: Uint8Array; tree?: Tree };
export type Tree = Map<string, TreeEntry>;

export const DIR_MODE = "40000";

/** Thrown when the call's work budget runs out mid-merge or mid-diff; a kind of read failure to the squash search. */
export class BudgetSpent extends ObjectReadError {}

/**
 * Trees parsed in this call, per store: a stack's forecasts share the old and new bases' trees
 * (bench/forecast.ts, 10 pairs: 60.1 MB inflated and 15,328 deltas applied without it, 54.4 MB and
 * 13,893 with it); past its size it starts afresh.
 */
const parsed = new WeakMap<ObjectStore, Map<string, Tree>>();
const MAX_PARSED_TREES = 20_000;

/** A tree object's entries: `<mode> <name>\0<20-byte id>`, repeated. */
function readTree(store: ObjectStore, oid: string): Tree {
  let trees = parsed.get(store);
  if (trees === undefined || trees.size >= MAX_PARSED_TREES) {
    trees = new Map();
    parsed.set(store, trees);
  }
  const cached = trees.get(oid);
  if (cached !== undefined) return cached;
  const object = store.readObject(oid);
  if (object.type !== "tree") throw new ObjectReadError(`${oid} is a ${object.type}, not a tree`);
  const { data } = object;
  const bytes = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  const tree: Tree = new Map();
  for (let pos = 0; pos < bytes.length; ) {
    const space = bytes.indexOf(0x20, pos);
    const nul = bytes.indexOf(0, space + 1);
    if (space < 0 || nul < 0 || nul + 21 > bytes.length) throw new ObjectReadError(`tree ${oid} is malformed`);
    const mode = bytes.toString("latin1", pos, space);
    tree.set(bytes.toString("latin1", space + 1, nul), { mode, oid: bytes.toString("hex", nul + 1, nul + 21) });
    pos = nul + 21;
  }
  trees.set(oid, tree);
  return tree;
}

/** A commit's root tree: its first header line. */
export function treeOfCommit(store: ObjectStore, oid: string): string {
  const object = store.readObject(oid);
  const tree =
    object.type === "commit"
      ? /^tree ([0-9a-f]{40})\n/.exec(Buffer.from(object.data.subarray(0, 46)).toString("latin1"))
      : null;
  if (tree === null) throw new ObjectReadError(`${oid} is not a commit with a tree`);
  return tree[1] as string;
}

export function entryTree(store: ObjectStore, entry: TreeEntry | undefined): Tree {
  if (entry === undefined) return new Map();
  return entry.tree ?? readTree(store, entry.oid as string);
}

/** Two entries hold the same thing; an entry built in memory equals another only in its bytes or as the same object. */
export function sameEntry(a: TreeEntry | undefined, b: TreeEntry | undefined): boolean {
  if (a === b) return true;
  if (a === undefined || b === undefined || a.mode !== b.mode) return false;
  if (a.oid !== undefined && b.oid !== undefined) return a.oid === b.oid;
  return a.data !== undefined && b.data !== undefined && Buffer.from(a.data).equals(b.data);
}

/** git's `core.maxTreeDepth`: deeper, git stops too; here the recursion would outgrow the stack (30,000 did). */
const MAX_TREE_DEPTH = 2048;

/** Throws past git's depth: a stored tree may even name itself (a loose object under another's id). */
export function checkTreeDepth(depth: number): void {
  if (depth > MAX_TREE_DEPTH) throw new ObjectReadError(`a tree is over ${MAX_TREE_DEPTH} directories deep`);
}

/** Paths whose entry differs between two trees, with the entry in `after` (undefined: deleted); equal subtrees are not read. */
export function diffTrees(
  store: ObjectStore,
  before: TreeEntry | undefined,
  after: TreeEntry | undefined,
  prefix = "",
  out = new Map<string, TreeEntry | undefined>(),
  depth = 0,
): Map<string, TreeEntry | undefined> {
  const isDir = (entry: TreeEntry | undefined) => entry?.mode === DIR_MODE;
  if (sameEntry(before, after)) return out;
  checkTreeDepth(depth);
  if (!isDir(before) && !isDir(after)) {
    out.set(prefix, after);
    return out;
  }
  if (isDir(before) !== isDir(after)) out.set(prefix, isDir(after) ? undefined : after);
  const left = isDir(before) ? entryTree(store, before) : new Map<string, TreeEntry>();
  const right = isDir(after) ? entryTree(store, after) : new Map<string, TreeEntry>();
  store.budget.treeEntries += left.size + right.size;
  if (store.budget.spent) throw new BudgetSpent("the call's work budget ran out");
  for (const name of new Set([...left.keys(), ...right.keys()])) {
    diffTrees(store, left.get(name), right.get(name), prefix === "" ? name : `${prefix}/${name}`, out, depth + 1);
  }
  return out;
}
