import type { CommitGraph } from "../objects/commit-graph.ts";
import { corrupt } from "../objects/object-error.ts";
import type { ObjectStore } from "../objects/object-store.ts";
import { type ParsedCommit, parseCommit } from "./commit.ts";

/** One commit as the walk sees it. */
export interface WalkCommit {
  oid: string;
  parents: string[];
  /** Topological level from the commit-graph; `INFINITE_GENERATION` for a commit it does not cover. */
  generation: number;
  time: number;
  /** A boundary of a shallow clone: git records no parents for it. */
  shallow: boolean;
}

/** Commits newer than the graph sort before every commit in it, as in git. */
export const INFINITE_GENERATION = 2 ** 32;

/**
 * Commits by name, from the commit-graph when it covers them (no object read at all) and from the
 * object store otherwise. The graph hands out parents by position, so names learnt that way are
 * remembered and a parent is never searched for.
 */
export class CommitSource {
  readonly #positions = new Map<string, number>();

  constructor(
    readonly store: ObjectStore,
    readonly graph: CommitGraph | null,
    readonly shallow: ReadonlySet<string>,
  ) {}

  walkCommit(oid: string): WalkCommit {
    const shallow = this.shallow.has(oid);
    const position =
      this.graph === null ? null : (this.#positions.get(oid) ?? this.graph.find(Buffer.from(oid, "hex")));
    if (this.graph !== null && position !== null) {
      const found = this.graph.commitAt(position);
      const parents = shallow
        ? []
        : found.parents.map((parent) => {
            const name = (this.graph as CommitGraph).oidAt(parent);
            this.#positions.set(name, parent);
            return name;
          });
      return { oid, parents, generation: found.generation, time: found.time, shallow };
    }
    const commit = this.commit(oid);
    return { oid, parents: shallow ? [] : commit.parents, generation: INFINITE_GENERATION, time: commit.time, shallow };
  }

  /** The commit object itself: needed for a branch tip's subject, and for commits the graph lacks. */
  commit(oid: string): ParsedCommit {
    const object = this.store.read(oid);
    if (object.type !== "commit") corrupt(`${oid} is a ${object.type}, not a commit`);
    return parseCommit(object.data, oid);
  }
}
