import { join } from "node:path";
import { readBounded } from "../../fs/bounded-read.ts";
import { decodeUtf8 } from "../../fs/cached-file.ts";
import type { ObjectStore } from "../objects/object-store.ts";
import { INFINITE_GENERATION, type WalkCommit } from "./divergence.ts";

/** Commits a call remembers between its walks; past it the memory starts afresh. */
const MAX_REMEMBERED_COMMITS = 200_000;
/** The `shallow` file lists one boundary commit per line. */
const MAX_SHALLOW_BYTES = 4 * 1024 * 1024;

/** The boundary commits of a shallow clone (`<common dir>/shallow`); empty when it is a full clone. */
export function readShallow(commonDir: string): Set<string> {
  const read = readBounded(join(commonDir, "shallow"), MAX_SHALLOW_BYTES);
  if (read.kind !== "found") return new Set();
  return new Set((decodeUtf8(read.bytes) ?? "").split("\n").filter((line) => /^[0-9a-f]{40}$/.test(line)));
}

export type CommitIds = ReturnType<typeof commitIds>;

/**
 * Commits named by integers for the walks: commit-graph positions (parents read in place), then the
 * commits the graph lacks, read from their objects and numbered on from its end. Every walk of a call
 * shares what was read; only an object can be a shallow boundary.
 */
export function commitIds(store: ObjectStore, shallow: ReadonlySet<string>) {
  const { graph, budget } = store;
  const inGraph = graph?.total ?? 0;
  const ids = new Map<string, number>();
  const outside: string[] = [];
  const idOf = (oid: string) => {
    let id = ids.get(oid);
    if (id === undefined) {
      id = graph?.find(Buffer.from(oid, "hex")) ?? inGraph + outside.push(oid) - 1;
      ids.set(oid, id);
    }
    return id;
  };
  const oidOf = (id: number) => (graph !== null && id < inGraph ? graph.oidAt(id) : (outside[id - inGraph] as string));
  const remembered = new Map<number, WalkCommit>();
  const load = (id: number): WalkCommit => {
    let commit = remembered.get(id);
    if (commit !== undefined) return commit;
    if (graph !== null && id < inGraph) commit = { ...graph.commitAt(id), shallow: false };
    else {
      const oid = outside[id - inGraph] as string;
      const boundary = shallow.has(oid);
      const { parents, time } = store.readCommit(oid);
      commit = { parents: boundary ? [] : parents.map(idOf), generation: INFINITE_GENERATION, time, shallow: boundary };
    }
    budget.parentEdges += commit.parents.length;
    if (remembered.size >= MAX_REMEMBERED_COMMITS) remembered.clear();
    remembered.set(id, commit);
    return commit;
  };
  return { idOf, oidOf, load };
}
