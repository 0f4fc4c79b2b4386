import type { CommitGraph } from "../objects/commit-graph.ts";
import type { ObjectStore } from "../objects/object-store.ts";
import { corrupt } from "../objects/positional-file.ts";

export interface ParsedCommit {
  parents: string[];
  /** Committer time, seconds since the epoch. */
  time: number;
  /** The committer's zone as git writes it (`+0200`). */
  zone: string;
  /** The message's first line, raw (the caller filters it for display). */
  subject: string;
}

const decoder = new TextDecoder("utf-8", { fatal: false });
/** A subject is shown as one line; the rest of a long first line is never decoded. */
const MAX_SUBJECT_BYTES = 4096;

/** A commit object's parents, committer and subject; continuation lines (`gpgsig`) are skipped unread. */
export function parseCommit(data: Uint8Array, oid: string): ParsedCommit {
  const parents: string[] = [];
  let committer: RegExpExecArray | null = null;
  let pos = 0;
  for (;;) {
    const end = data.indexOf(0x0a, pos);
    if (end < 0) corrupt(`commit ${oid} ends inside its headers`);
    if (end === pos) {
      pos = end + 1;
      break;
    }
    if (data[pos] !== 0x20) {
      const line = decoder.decode(data.subarray(pos, Math.min(end, pos + 1024)));
      if (line.startsWith("parent ")) {
        const parent = line.slice(7);
        if (!/^[0-9a-f]{40}$/.test(parent)) corrupt(`commit ${oid} has a malformed parent line`);
        parents.push(parent);
      } else if (line.startsWith("committer ")) {
        committer = / (\d{1,15}) ([+-]\d{4})$/.exec(line);
      }
    }
    pos = end + 1;
  }
  if (committer === null) corrupt(`commit ${oid} has no valid committer line`);
  // As `%s`: blank lines before the message's first line are skipped.
  while (data[pos] === 0x0a) pos++;
  const lineEnd = data.indexOf(0x0a, pos);
  const subjectEnd = Math.min(lineEnd < 0 ? data.length : lineEnd, pos + MAX_SUBJECT_BYTES);
  return {
    parents,
    time: Number(committer[1]),
    zone: committer[2] as string,
    subject: decoder.decode(data.subarray(pos, subjectEnd)).trim(),
  };
}

/** git's `%cI`: the committer's local time with its zone, strict ISO 8601. */
export function isoWithZone(time: number, zone: string): string {
  const sign = zone.startsWith("-") ? -1 : 1;
  const minutes = sign * (Number(zone.slice(1, 3)) * 60 + Number(zone.slice(3, 5)));
  const local = new Date((time + minutes * 60) * 1000);
  if (Number.isNaN(local.getTime())) return new Date(0).toISOString();
  return `${local.toISOString().slice(0, 19)}${zone.slice(0, 3)}:${zone.slice(3, 5)}`;
}

export interface WalkCommit {
  parents: string[];
  /** Topological level from the commit-graph; `INFINITE_GENERATION` for a commit it does not cover. */
  generation: number;
  time: number;
  /** A boundary of a shallow clone: git records no parents for it. */
  shallow: boolean;
}

/** Commits newer than the graph sort before every commit in it, as in git. */
export const INFINITE_GENERATION = 2 ** 32;

/** Commits by name, from the commit-graph when it covers them (positions remembered), else the object store. */
export class CommitSource {
  readonly #positions = new Map<string, number>();

  constructor(
    readonly store: ObjectStore,
    readonly graph: CommitGraph | null,
    readonly shallow: ReadonlySet<string>,
  ) {}

  /** A shallow repository has no graph (git ignores it there), so only an object can be a boundary. */
  walkCommit(oid: string): WalkCommit {
    const graph = this.graph;
    const position = graph === null ? null : (this.#positions.get(oid) ?? graph.find(Buffer.from(oid, "hex")));
    if (graph !== null && position !== null) {
      const { parents, generation, time } = graph.commitAt(position);
      const names = parents.map((parent) => {
        const name = graph.oidAt(parent);
        this.#positions.set(name, parent);
        return name;
      });
      return { parents: names, generation, time, shallow: false };
    }
    const commit = this.commit(oid);
    const shallow = this.shallow.has(oid);
    return { parents: shallow ? [] : commit.parents, generation: INFINITE_GENERATION, time: commit.time, shallow };
  }

  /** The commit object itself: needed for a branch tip's subject, and for commits the graph lacks. */
  commit(oid: string): ParsedCommit {
    const object = this.store.read(oid);
    if (object.type !== "commit") corrupt(`${oid} is a ${object.type}, not a commit`);
    return parseCommit(object.data, oid);
  }
}
