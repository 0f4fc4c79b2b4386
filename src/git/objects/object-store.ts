// Hand-written: isomorphic-git reads a whole pack into memory; this reader stays bounded on any pack.
import { lstatSync, readdirSync, realpathSync } from "node:fs";
import { join, resolve } from "node:path";
import { decodeUtf8 } from "../../fs/cached-file.ts";
import { isInside } from "../../fs/path-inside.ts";
import { TimeSlice, WorkBudget } from "./budget.ts";
import { CommitGraph, MAX_PARENTS } from "./commit-graph.ts";
import {
  applyDelta,
  inflateCapped,
  MAX_OBJECT_BYTES,
  maxDeflatedBytes,
  OBJ_OFS_DELTA,
  OBJ_REF_DELTA,
  Pack,
  type PackEntry,
} from "./pack.ts";
import { corrupt, FilePool, isLink, ObjectReadError, PositionalFile, readLines } from "./positional-file.ts";

export { ObjectReadError } from "./positional-file.ts";

const OBJECT_TYPES = ["", "commit", "tree", "blob", "tag"] as const;
export type GitObject = { type: Exclude<(typeof OBJECT_TYPES)[number], "">; data: Uint8Array };

/** git's own ceiling for `--depth` (pack-objects clamps to 4095); anything longer is a loop or an attack. */
const MAX_DELTA_DEPTH = 4095;
/** All deltas of one chain, and apart all the objects they build: either could otherwise take minutes. */
const MAX_CHAIN_BYTES = 64 * 1024 * 1024;
/** git reads alternates five levels deep. */
const MAX_ALTERNATE_DEPTH = 5;
/** Resolved pack objects kept for the call: a delta's base is read once however many deltas build on it. */
const MAX_CACHED_BYTES = 32 * 1024 * 1024;
/** A larger object is not kept: it would push out hundreds of commits. */
const MAX_CACHED_OBJECT_BYTES = 256 * 1024;
/** Notes kept word for word; thousands of broken packs are the rest's count. */
const MAX_NOTES = 5;

/** A repository's packs and loose objects, and its alternates' inside `places`; files open on first use. */
export class ObjectStore {
  #packs: Pack[] | null = null;
  /** The packs holding names that start with each byte: 19,000 one-commit packs took 18 s to search one by one. */
  #packsByFirstByte: Pack[][] = [];
  readonly #resolved = new Map<string, GitObject>();
  #resolvedBytes = 0;
  readonly #files = new FilePool();
  readonly #notes: string[] = [];
  #notesOmitted = 0;
  graph: CommitGraph | null = null;

  private constructor(
    readonly dirs: string[],
    readonly budget: WorkBudget,
  ) {}

  /**
   * An alternate is followed only when its canonical path is inside `places`: it could name any directory.
   * `withGraph`: git ignores the commit-graph in a shallow repository, as its parents would cross the boundary.
   */
  static open(
    objectsDir: string,
    places: readonly string[],
    withGraph: boolean,
    budget = new WorkBudget(),
  ): ObjectStore {
    const dirs: string[] = [];
    const store = new ObjectStore(dirs, budget);
    try {
      if (withGraph) store.graph = CommitGraph.open(objectsDir);
    } catch (error) {
      if (!(error instanceof ObjectReadError)) throw error;
      store.#note(`commit-graph not used: ${error.message}`);
    }
    const visit = (dir: string, depth: number) => {
      let canonical: string;
      try {
        canonical = realpathSync(dir);
      } catch {
        return;
      }
      if (dirs.includes(canonical)) return;
      if (!places.some((place) => isInside(canonical, place))) {
        store.#note(`object directory ${dir} is outside the repository, not read`);
        return;
      }
      dirs.push(canonical);
      if (depth >= MAX_ALTERNATE_DEPTH) return;
      for (const line of readAlternates(join(canonical, "info", "alternates"))) {
        visit(resolve(canonical, line), depth + 1);
      }
    };
    visit(objectsDir, 0);
    return store;
  }

  /** Object files not read, and why: the first few, then how many more. */
  get notes(): string[] {
    const more = this.#notesOmitted;
    return more === 0 ? this.#notes : [...this.#notes, `${more} more object file${more === 1 ? "" : "s"} not read`];
  }

  #note(message: string): void {
    if (this.#notes.length < MAX_NOTES) this.#notes.push(message);
    else this.#notesOmitted++;
  }

  /** The commit named `oid` (40 hex digits); throws `ObjectReadError` when it is missing or broken. */
  readCommit(oid: string): Commit {
    const object = this.readObject(oid);
    if (object.type !== "commit") corrupt(`${oid} is a ${object.type}, not a commit`);
    return parseCommit(object.data, oid);
  }

  /** Whether the object named `oid` is here at all (packed or loose), without reading it. */
  has(oid: string): boolean {
    if (this.#findPacked(Buffer.from(oid, "hex")) !== null) return true;
    return this.dirs.some((dir) => lstatSync(join(dir, oid.slice(0, 2), oid.slice(2)), { throwIfNoEntry: false }));
  }

  /** Any object (a tree, a blob), up to the object limit; throws `ObjectReadError` when it is missing or broken. */
  readObject(oid: string): GitObject {
    const packed = this.#findPacked(Buffer.from(oid, "hex"));
    if (packed !== null) return this.#fromPack(packed);
    for (const dir of this.dirs) {
      const fanout = join(dir, oid.slice(0, 2));
      if (isLink(fanout)) corrupt(`${fanout} is a link, not read`);
      const found = readLoose(join(fanout, oid.slice(2)));
      if (found !== null) {
        this.budget.inflatedBytes += found.data.length;
        return found;
      }
    }
    return corrupt(`object ${oid} is missing`);
  }

  [Symbol.dispose](): void {
    for (const pack of this.#packs ?? []) pack[Symbol.dispose]();
    this.#packs = [];
    this.graph?.[Symbol.dispose]();
  }

  /** Opens every pack before the walks, yielding to the event loop as it goes: 19,000 packs take seconds. */
  async openPacks(signal?: AbortSignal): Promise<void> {
    const slice = new TimeSlice();
    while (!this.#opening.next().done) if (slice.due) await slice.yield(signal);
  }

  /** One pass over the pack directories, a step per pack, shared by `openPacks` and the first lookup. */
  readonly #opening = this.#openPacks();

  *#openPacks(): Generator<void> {
    const packs: Pack[] = [];
    this.#packs = packs;
    for (const dir of this.dirs) {
      const packDir = join(dir, "pack");
      if (isLink(packDir)) {
        this.#note(`${packDir} is a link, not read`);
        continue;
      }
      let names: string[];
      try {
        names = readdirSync(packDir);
      } catch {
        continue;
      }
      for (const name of names.sort()) {
        if (!name.startsWith("pack-") || !name.endsWith(".idx")) continue;
        try {
          const pack = Pack.open(join(packDir, name.slice(0, -".idx".length)), this.#files);
          if (pack !== null) packs.push(pack);
        } catch (error) {
          // One broken pack must not hide the objects of the others; an object only it holds is reported missing.
          if (!(error instanceof ObjectReadError)) throw error;
          this.#note(error.message);
        }
        yield;
      }
    }
    this.#packsByFirstByte = Array.from({ length: 256 }, (_, byte) => packs.filter((pack) => pack.holds(byte)));
  }

  /** Resolves a delta chain without recursion: headers collected down to a base (or one already resolved), then applied up. */
  #fromPack(start: { pack: Pack; offset: number }): GitObject {
    const chain: { pack: Pack; entry: PackEntry; key: string }[] = [];
    const seen = new Set<string>();
    let chainBytes = 0;
    let at = start;
    let base: GitObject;
    for (;;) {
      const key = `${at.offset}:${at.pack.path}`;
      const cached = this.#resolved.get(key);
      if (cached !== undefined) {
        base = cached;
        break;
      }
      if (seen.has(key)) corrupt(`${at.pack.path} has a delta loop at offset ${at.offset}`);
      seen.add(key);
      const entry = at.pack.entry(at.offset);
      if (entry.type !== OBJ_OFS_DELTA && entry.type !== OBJ_REF_DELTA) {
        base = { type: OBJECT_TYPES[entry.type] as GitObject["type"], data: this.#inflate(at.pack, entry) };
        this.#remember(key, base);
        break;
      }
      chain.push({ pack: at.pack, entry, key });
      chainBytes += entry.size;
      if (chain.length > MAX_DELTA_DEPTH)
        corrupt(`${start.pack.path} has a delta chain deeper than ${MAX_DELTA_DEPTH}`);
      if (chainBytes > MAX_CHAIN_BYTES)
        corrupt(`${start.pack.path} has a delta chain of over ${MAX_CHAIN_BYTES} bytes`);
      if (entry.baseOffset !== undefined) at = { pack: at.pack, offset: entry.baseOffset };
      else {
        // A REF_DELTA entry always names its base.
        const oid = entry.baseOid as Uint8Array;
        at =
          this.#findPacked(oid) ?? corrupt(`delta base ${Buffer.from(oid).toString("hex")} is missing from every pack`);
      }
    }
    let { data } = base;
    let built = 0;
    for (const step of chain.toReversed()) {
      data = applyDelta(data, this.#inflate(step.pack, step.entry));
      this.budget.deltaApplications++;
      this.budget.inflatedBytes += data.length;
      built += data.length;
      if (built > MAX_CHAIN_BYTES)
        corrupt(`${start.pack.path} has a delta chain building over ${MAX_CHAIN_BYTES} bytes`);
      this.#remember(step.key, { type: base.type, data });
    }
    return { type: base.type, data };
  }

  #inflate(pack: Pack, entry: PackEntry): Uint8Array {
    this.budget.inflatedBytes += entry.size;
    return pack.inflate(entry);
  }

  /** Keeps a resolved object for the rest of the call, the oldest dropped past the cache's size. */
  #remember(key: string, object: GitObject): void {
    if (object.data.length > MAX_CACHED_OBJECT_BYTES) return;
    this.#resolved.set(key, object);
    this.#resolvedBytes += object.data.length;
    for (const [oldKey, old] of this.#resolved) {
      if (this.#resolvedBytes <= MAX_CACHED_BYTES) break;
      this.#resolved.delete(oldKey);
      this.#resolvedBytes -= old.data.length;
    }
  }

  /** Where an object is packed; a REF_DELTA's base may be in any pack (git completes thin packs). */
  #findPacked(oid: Uint8Array): { pack: Pack; offset: number } | null {
    while (!this.#opening.next().done); // what `openPacks` did not open, at once
    for (const pack of this.#packsByFirstByte[oid[0] as number] ?? []) {
      const offset = pack.find(oid);
      if (offset !== null) return { pack, offset };
    }
    return null;
  }
}

/** A loose object (`objects/xx/yyyy…`): a zlib stream of `<type> <size>\0<data>`; `null` when absent. */
function readLoose(path: string): GitObject | null {
  using file = PositionalFile.open(path);
  if (file === null) return null;
  const limit = MAX_OBJECT_BYTES + 32;
  if (file.size > maxDeflatedBytes(limit)) corrupt(`${path} is over the ${MAX_OBJECT_BYTES}-byte object limit`);
  const raw = inflateCapped(file.read(0, file.size), limit, path);
  if (raw.length > limit) corrupt(`${path} is over the ${MAX_OBJECT_BYTES}-byte object limit`);
  const nul = raw.indexOf(0);
  const header = nul > 0 && nul <= 32 ? decodeUtf8(raw.subarray(0, nul)) : null;
  const match = header === null ? null : /^(commit|tree|blob|tag) (0|[1-9][0-9]{0,15})$/.exec(header);
  if (match === null) return corrupt(`${path} has no valid object header`);
  const data = raw.subarray(nul + 1);
  if (data.length !== Number(match[2])) corrupt(`${path} holds ${data.length} bytes, not the ${match[2]} it declares`);
  return { type: match[1] as GitObject["type"], data };
}

const decoder = new TextDecoder("utf-8", { fatal: false });
/** A subject is shown as one line; the rest of a long first line is never decoded. */
const MAX_SUBJECT_BYTES = 4096;
/** git writes tree, parents, author, then committer: all within this, even with hundreds of parents. */
const MAX_HEADER_BYTES = 64 * 1024;

const PARENT = Buffer.from("parent ");
const COMMITTER = Buffer.from("committer ");
const HEX_OID = /^[0-9a-f]{40}$/;

function startsWith(data: Uint8Array, at: number, prefix: Uint8Array): boolean {
  for (let i = 0; i < prefix.length; i++) if (data[at + i] !== prefix[i]) return false;
  return true;
}

export type Commit = { parents: string[]; time: number; zone: string; readonly subject: string };

/**
 * A commit's parents and committer, found by comparing bytes up to the committer line; only the subject
 * is decoded, and only when asked for. Headers after the committer (`gpgsig`, `mergetag`) are never read.
 */
function parseCommit(data: Uint8Array, oid: string): Commit {
  const parents: string[] = [];
  let pos = 0;
  for (;;) {
    const end = data.indexOf(0x0a, pos);
    if (end < 0 || end === pos) corrupt(`commit ${oid} has no valid committer line`);
    if (end > MAX_HEADER_BYTES)
      corrupt(`commit ${oid} has over ${MAX_HEADER_BYTES} bytes of headers before its committer`);
    if (startsWith(data, pos, PARENT)) {
      const parent = Buffer.from(data.buffer, data.byteOffset + pos + 7, end - pos - 7).toString("latin1");
      if (!HEX_OID.test(parent)) corrupt(`commit ${oid} has a malformed parent line`);
      if (parents.length === MAX_PARENTS) corrupt(`commit ${oid} has more than ${MAX_PARENTS} parents`);
      parents.push(parent);
    } else if (startsWith(data, pos, COMMITTER)) {
      // Seconds since the epoch, and the zone as git writes it (`+0200`), at the line's end.
      const tail = Buffer.from(data.buffer, data.byteOffset + Math.max(pos, end - 40), end - Math.max(pos, end - 40));
      const committer = / (\d{1,15}) ([+-]\d{4})$/.exec(tail.toString("latin1"));
      if (committer === null) corrupt(`commit ${oid} has no valid committer line`);
      return {
        parents,
        time: Number(committer[1]),
        zone: committer[2] as string,
        get subject() {
          return subjectOf(data, end);
        },
      };
    }
    pos = end + 1;
  }
}

/** As `%s`: the first line after the headers, blank lines before it skipped. */
function subjectOf(data: Uint8Array, from: number): string {
  const bytes = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  const blank = bytes.indexOf("\n\n", from);
  if (blank < 0) return "";
  let pos = blank + 2;
  while (bytes[pos] === 0x0a) pos++;
  const lineEnd = bytes.indexOf(0x0a, pos);
  const subjectEnd = Math.min(lineEnd < 0 ? bytes.length : lineEnd, pos + MAX_SUBJECT_BYTES);
  return decoder.decode(bytes.subarray(pos, subjectEnd)).trim();
}

/** The alternates file's directories: one per line, `#` comments and blank lines skipped, quoted paths refused. */
function readAlternates(path: string): string[] {
  try {
    return (readLines(path, 64 * 1024) ?? [])
      .map((line) => line.replace(/\r$/, ""))
      .filter((line) => line !== "" && !line.startsWith("#") && !line.startsWith('"'));
  } catch {
    return [];
  }
}
