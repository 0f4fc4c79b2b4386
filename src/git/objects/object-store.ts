// Hand-written: isomorphic-git reads a whole pack into memory; this reader stays bounded on any pack.
import { closeSync, constants, fstatSync, lstatSync, openSync, readdirSync, readSync, realpathSync } from "node:fs";
import { join, resolve } from "node:path";
import { inflateSync } from "node:zlib";
import { decodeUtf8 } from "../../fs/cached-file.ts";
import { isInside } from "../../fs/path-inside.ts";
import { WorkBudget } from "./budget.ts";

/** Thrown by the byte-level readers (a `Result` through every varint costs more than it says); a branch's warning. */
export class ObjectReadError extends Error {
  override readonly name = "ObjectReadError";
}

function corrupt(message: string): never {
  throw new ObjectReadError(message);
}

/** Object files are never links (git writes none): a link in `objects/` could point anywhere. */
const OPEN_FLAGS =
  constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOCTTY ?? 0) | (constants.O_NOFOLLOW ?? 0);

const PAGE_BYTES = 4096;
/** Pages kept per file (2 MiB): a walk returns to the same pages; bench/commits.ts: 64 took 57 ms, 512 10 ms. */
const MAX_PAGES = 512;

/** git makes no links in an object directory; `open` refuses a link only as the file's own name. */
function isLink(path: string): boolean {
  return lstatSync(path, { throwIfNoEntry: false })?.isSymbolicLink() === true;
}

/** A pack, index or commit-graph read by offset: only the pages asked for are in memory, never the file. */
class PositionalFile {
  readonly #pages = new Map<number, Uint8Array>();

  private constructor(
    readonly path: string,
    readonly fd: number,
    readonly size: number,
  ) {}

  /** `null` when missing; throws `ObjectReadError` when it is a link, a directory or a device. */
  static open(path: string): PositionalFile | null {
    let fd: number;
    try {
      fd = openSync(path, OPEN_FLAGS);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "ENOENT" || code === "ENOTDIR") return null;
      throw new ObjectReadError(`cannot open ${path}: ${code ?? String(error)}`);
    }
    try {
      const info = fstatSync(fd);
      if (!info.isFile()) corrupt(`${path} is not a regular file`);
      return new PositionalFile(path, fd, info.size);
    } catch (error) {
      closeSync(fd);
      throw error;
    }
  }

  /** Exactly `length` bytes at `offset`; a read past the end means the file is truncated. */
  read(offset: number, length: number): Uint8Array {
    if (!Number.isSafeInteger(offset) || offset < 0 || length < 0 || offset + length > this.size) {
      corrupt(`${this.path} is truncated: ${length} bytes at offset ${offset} lie past its end (${this.size} bytes)`);
    }
    const first = Math.floor(offset / PAGE_BYTES);
    if (length === 0 || first !== Math.floor((offset + length - 1) / PAGE_BYTES)) return this.#direct(offset, length);
    let page = this.#pages.get(first);
    if (page === undefined) {
      page = this.#direct(first * PAGE_BYTES, Math.min(PAGE_BYTES, this.size - first * PAGE_BYTES));
      if (this.#pages.size >= MAX_PAGES) this.#pages.clear();
      this.#pages.set(first, page);
    }
    const start = offset - first * PAGE_BYTES;
    return page.subarray(start, start + length);
  }

  [Symbol.dispose](): void {
    this.#pages.clear();
    closeSync(this.fd);
  }

  #direct(offset: number, length: number): Uint8Array {
    const buffer = Buffer.allocUnsafe(length);
    for (let done = 0; done < length; ) {
      const n = readSync(this.fd, buffer, done, length - done, offset + done);
      if (n === 0) corrupt(`${this.path} shrank while being read`);
      done += n;
    }
    return buffer;
  }
}

/** The lines of a small file's first `max` bytes, with {@link PositionalFile.open}'s refusals; `null` when missing. */
function readLines(path: string, max: number): string[] | null {
  using file = PositionalFile.open(path);
  return file && (decodeUtf8(file.read(0, Math.min(file.size, max))) ?? "").split("\n");
}

function view(bytes: Uint8Array): DataView {
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** The index of `oid` (20 raw bytes) in the sorted names at `namesAt`, through its 256-entry fan-out. */
function findOid(file: PositionalFile, fanout: DataView, namesAt: number, oid: Uint8Array): number | null {
  const first = oid[0] as number;
  let low = first === 0 ? 0 : fanout.getUint32((first - 1) * 4);
  let high = fanout.getUint32(first * 4);
  if (low > high || high > fanout.getUint32(255 * 4)) corrupt(`${file.path} has a fan-out table out of order`);
  while (low < high) {
    const middle = (low + high) >>> 1;
    const name = file.read(namesAt + middle * 20, 20);
    let order = 0;
    for (let i = 0; i < 20 && order === 0; i++) order = (name[i] as number) - (oid[i] as number);
    if (order === 0) return middle;
    if (order < 0) low = middle + 1;
    else high = middle;
  }
  return null;
}

const OBJECT_TYPES = ["", "commit", "tree", "blob", "tag"] as const;
export type GitObject = { type: Exclude<(typeof OBJECT_TYPES)[number], "">; data: Uint8Array };

/** Commits are small; a larger object is refused before it is read (a message of megabytes is an attack). */
const MAX_OBJECT_BYTES = 4 * 1024 * 1024;
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

/** A repository's packs and loose objects, and its alternates' inside `places`; files open on first use. */
export class ObjectStore {
  #packs: Pack[] | null = null;
  readonly #resolved = new Map<string, GitObject>();
  #resolvedBytes = 0;
  readonly notes: string[] = [];
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
      store.notes.push(`commit-graph not used: ${error.message}`);
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
        store.notes.push(`object directory ${dir} is outside the repository, not read`);
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

  /** The commit named `oid` (40 hex digits); throws `ObjectReadError` when it is missing or broken. */
  readCommit(oid: string): Commit {
    const object = this.#read(oid);
    if (object.type !== "commit") corrupt(`${oid} is a ${object.type}, not a commit`);
    return parseCommit(object.data, oid);
  }

  /** Any object (a tree, a blob), up to the object limit; throws `ObjectReadError` when it is missing or broken. */
  readObject(oid: string): GitObject {
    return this.#read(oid);
  }

  /** Whether the object named `oid` is here at all (packed or loose), without reading it. */
  has(oid: string): boolean {
    if (this.#findPacked(Buffer.from(oid, "hex")) !== null) return true;
    return this.dirs.some((dir) => lstatSync(join(dir, oid.slice(0, 2), oid.slice(2)), { throwIfNoEntry: false }));
  }

  #read(oid: string): GitObject {
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

  #openPacks(): Pack[] {
    if (this.#packs !== null) return this.#packs;
    const packs: Pack[] = [];
    this.#packs = packs;
    for (const dir of this.dirs) {
      const packDir = join(dir, "pack");
      if (isLink(packDir)) {
        this.notes.push(`${packDir} is a link, not read`);
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
          const pack = Pack.open(join(packDir, name.slice(0, -".idx".length)));
          if (pack !== null) packs.push(pack);
        } catch (error) {
          // One broken pack must not hide the objects of the others; an object only it holds is reported missing.
          if (!(error instanceof ObjectReadError)) throw error;
          this.notes.push(error.message);
        }
      }
    }
    return packs;
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
    for (const pack of this.#openPacks()) {
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
/** git's own octopus merges stay far below this; more is a hostile commit. */
export const MAX_PARENTS = 256;

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
      const time = Number(committer[1]);
      const zone = committer[2] as string;
      const bodyFrom = end;
      return {
        parents,
        time,
        zone,
        get subject() {
          return subjectOf(data, bodyFrom);
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

/** Pack entry types (pack-format.txt); 5 is reserved. */
const OBJ_OFS_DELTA = 6;
const OBJ_REF_DELTA = 7;

/** `type`: 1 commit, 2 tree, 3 blob, 4 tag, or a delta naming its base by offset here or by object name. */
interface PackEntry {
  type: number;
  /** Inflated: of the object, or of the delta for a delta entry. */
  size: number;
  dataOffset: number;
  baseOffset?: number;
  baseOid?: Uint8Array;
}

const OIDS_AT = 8 + 256 * 4;
const HASH_BYTES = 20;

/** A pack and its version-2 index, read by offset (a binary search, then the object's own bytes), never whole. */
class Pack {
  readonly #fanout: DataView;
  readonly #count: number;

  private constructor(
    readonly idx: PositionalFile,
    readonly pack: PositionalFile,
    readonly path = pack.path,
  ) {
    const bytes = idx.read(0, OIDS_AT);
    const header = view(bytes);
    if (header.getUint32(0) !== 0xff744f63 || header.getUint32(4) !== 2)
      corrupt(`${idx.path} is not a version 2 pack index`);
    this.#fanout = view(bytes.subarray(8));
    this.#count = this.#fanout.getUint32(255 * 4);
    // Names, CRCs and offsets, then the two trailing hashes: a shorter file is truncated.
    if (OIDS_AT + this.#count * 28 + 2 * HASH_BYTES > idx.size) corrupt(`${idx.path} is truncated`);
    if (pack.size < 12 + HASH_BYTES) corrupt(`${pack.path} is truncated`);
    const packHeader = view(pack.read(0, 12));
    const version = packHeader.getUint32(4);
    if (packHeader.getUint32(0) !== 0x5041434b || (version !== 2 && version !== 3))
      corrupt(`${pack.path} is not a pack`);
    if (packHeader.getUint32(8) !== this.#count) corrupt(`${pack.path} and its index disagree on the object count`);
  }

  /** `null` when either file is missing; throws `ObjectReadError` when one is malformed. */
  static open(base: string): Pack | null {
    using opened = new DisposableStack();
    const idx = opened.use(PositionalFile.open(`${base}.idx`));
    const pack = idx && opened.use(PositionalFile.open(`${base}.pack`));
    if (idx === null || pack === null) return null;
    const result = new Pack(idx, pack);
    opened.move();
    return result;
  }

  /** The offset of the object named `oid` (20 raw bytes) in the pack, `null` when it is not here. */
  find(oid: Uint8Array): number | null {
    const index = findOid(this.idx, this.#fanout, OIDS_AT, oid);
    if (index === null) return null;
    const offsetsAt = OIDS_AT + this.#count * (HASH_BYTES + 4);
    const small = view(this.idx.read(offsetsAt + index * 4, 4)).getUint32(0);
    if ((small & 0x80000000) === 0) return small;
    // Offsets past 2 GiB live in a table of 8-byte values after the 4-byte ones.
    const largeAt = offsetsAt + this.#count * 4 + (small & 0x7fffffff) * 8;
    if (largeAt + 8 > this.idx.size - 2 * HASH_BYTES) corrupt(`${this.idx.path} names a large offset it lacks`);
    const large = view(this.idx.read(largeAt, 8));
    return large.getUint32(0) * 2 ** 32 + large.getUint32(4);
  }

  /** The entry header at `offset`: its type, declared size, and where its base and data are. */
  entry(offset: number): PackEntry {
    const at = `${this.path} entry at ${offset}`;
    if (!Number.isSafeInteger(offset) || offset < 12 || offset >= this.pack.size - HASH_BYTES)
      corrupt(`${this.path} has no entry at ${offset}`);
    const bytes = this.pack.read(offset, Math.min(32, this.pack.size - offset));
    let pos = 0;
    const next = () => (pos < bytes.length ? (bytes[pos++] as number) : corrupt(`${at} is truncated`));
    let byte = next();
    const type = (byte >> 4) & 7;
    let size = byte & 0x0f;
    for (let shift = 4; byte & 0x80; shift += 7) {
      if (shift > 46) corrupt(`${at} declares an impossible size`);
      byte = next();
      size += (byte & 0x7f) * 2 ** shift;
    }
    if (type === OBJ_OFS_DELTA) {
      // Each continuation byte adds one before shifting, so every distance has a single encoding.
      byte = next();
      let distance = byte & 0x7f;
      while (byte & 0x80) {
        if (distance > 2 ** 45) corrupt(`${at} has an impossible base distance`);
        byte = next();
        distance = (distance + 1) * 128 + (byte & 0x7f);
      }
      const baseOffset = offset - distance;
      if (distance === 0 || baseOffset < 12) corrupt(`${at} names a base outside the pack`);
      return { type, size, dataOffset: offset + pos, baseOffset };
    }
    if (type === OBJ_REF_DELTA) {
      if (pos + HASH_BYTES > bytes.length) corrupt(`${at} is truncated`);
      return { type, size, dataOffset: offset + pos + HASH_BYTES, baseOid: bytes.slice(pos, pos + HASH_BYTES) };
    }
    if (type < 1 || type > 4) corrupt(`${at} has the invalid type ${type}`);
    return { type, size, dataOffset: offset + pos };
  }

  /** The entry's inflated data, refused unread when it declares more than the object limit. */
  inflate(entry: PackEntry): Uint8Array {
    const what = `${this.path} entry at ${entry.dataOffset}`;
    if (entry.size > MAX_OBJECT_BYTES)
      corrupt(`${what} declares ${entry.size} bytes, over the ${MAX_OBJECT_BYTES}-byte limit`);
    const length = Math.max(0, Math.min(maxDeflatedBytes(entry.size), this.pack.size - HASH_BYTES - entry.dataOffset));
    const data = inflateCapped(this.pack.read(entry.dataOffset, length), entry.size, what);
    if (data.length !== entry.size)
      corrupt(`${what} inflates to ${data.length} bytes, not the ${entry.size} it declares`);
    return data;
  }

  [Symbol.dispose](): void {
    this.idx[Symbol.dispose]();
    this.pack[Symbol.dispose]();
  }
}

/** The most bytes a zlib stream of `size` bytes takes: 5 per stored block, 6 of wrapper, and a margin. */
function maxDeflatedBytes(size: number): number {
  return size + Math.ceil(size / 16_384) * 5 + 64;
}

/** Below this `Bun.inflateSync` (5× node:zlib) needs no cap: deflate expands ≤1,032-fold, 4 MiB (the limit). */
const FAST_INPUT_BYTES = 4096;

/** Inflates to at most about `maxBytes` (callers check the length); bytes after the stream are ignored. */
function inflateCapped(input: Uint8Array, maxBytes: number, what: string): Uint8Array {
  try {
    return input.length <= FAST_INPUT_BYTES
      ? // Pages and reads are plain `ArrayBuffer`s, never shared memory.
        Bun.inflateSync(input as Uint8Array<ArrayBuffer>, { windowBits: 15 })
      : inflateSync(input, { maxOutputLength: Math.max(1, maxBytes) });
  } catch (error) {
    return corrupt(`${what} does not inflate within ${maxBytes} bytes (${(error as Error).message})`);
  }
}

/** Applies a git delta to `base`, every copy and insert checked against both buffers and the object limit. */
function applyDelta(base: Uint8Array, delta: Uint8Array): Uint8Array {
  let pos = 0;
  // Sizes are varints: little-endian groups of 7 bits.
  const readSize = () => {
    let size = 0;
    for (let shift = 0; ; shift += 7) {
      if (pos >= delta.length || shift > 49) corrupt("delta header is truncated or too long");
      const byte = delta[pos++] as number;
      size += (byte & 0x7f) * 2 ** shift;
      if ((byte & 0x80) === 0) return size;
    }
  };
  const sourceSize = readSize();
  if (sourceSize !== base.length) corrupt(`delta expects a ${sourceSize}-byte base, found ${base.length} bytes`);
  const targetSize = readSize();
  if (targetSize > MAX_OBJECT_BYTES)
    corrupt(`delta result of ${targetSize} bytes exceeds the ${MAX_OBJECT_BYTES}-byte limit`);
  const out = new Uint8Array(targetSize);
  let written = 0;
  while (pos < delta.length) {
    const op = delta[pos++] as number;
    if (op & 0x80) {
      let offset = 0;
      let size = 0;
      for (let bit = 0; bit < 4; bit++) if (op & (1 << bit)) offset += (delta[pos++] ?? 0) * 2 ** (8 * bit);
      for (let bit = 0; bit < 3; bit++) if (op & (0x10 << bit)) size += (delta[pos++] ?? 0) * 2 ** (8 * bit);
      if (size === 0) size = 0x10000;
      if (pos > delta.length) corrupt("delta copy instruction is truncated");
      if (offset + size > base.length || written + size > targetSize)
        corrupt("delta copies outside its base or result");
      out.set(base.subarray(offset, offset + size), written);
      written += size;
    } else if (op !== 0) {
      if (pos + op > delta.length || written + op > targetSize) corrupt("delta insert runs past its data or result");
      out.set(delta.subarray(pos, pos + op), written);
      pos += op;
      written += op;
    } else {
      corrupt("delta holds the reserved instruction 0");
    }
  }
  if (written !== targetSize) corrupt(`delta builds ${written} bytes, not the ${targetSize} it declares`);
  return out;
}

/** One graph file, its chunks located; a position in it is `base` (commits in the layers below) + index. */
type Layer = ReturnType<typeof openLayer>;

const CDAT_BYTES = HASH_BYTES + 16;
const NO_PARENT = 0x70000000;
const EXTRA_EDGES = 0x80000000;
/** git reads split chains of at most this many layers in practice; more is a broken chain file. */
const MAX_LAYERS = 64;

/** The commit-graph, single or split (base layer first): parents and generations without reading commits. */
class CommitGraph {
  private constructor(
    readonly layers: Layer[],
    readonly total: number,
  ) {}

  /** `null` when the repository has none; throws `ObjectReadError` when the graph is malformed. */
  static open(objectsDir: string): CommitGraph | null {
    using opened = new DisposableStack();
    const files: PositionalFile[] = [];
    const info = join(objectsDir, "info");
    if (isLink(info)) corrupt(`${info} is a link, not read`);
    const single = opened.use(PositionalFile.open(join(info, "commit-graph")));
    if (single !== null) files.push(single);
    else {
      const chainDir = join(info, "commit-graphs");
      if (isLink(chainDir)) corrupt(`${chainDir} is a link, not read`);
      const chain = readLines(join(chainDir, "commit-graph-chain"), MAX_LAYERS * 42);
      if (chain === null) return null;
      const names = chain.filter((line) => line !== "");
      if (names.length === 0 || names.length > MAX_LAYERS || names.some((name) => !/^[0-9a-f]{40}$/.test(name)))
        corrupt(`${chainDir}/commit-graph-chain is malformed`);
      for (const name of names) {
        const file = opened.use(PositionalFile.open(join(chainDir, `graph-${name}.graph`)));
        files.push(file ?? corrupt(`commit-graph layer graph-${name}.graph is missing`));
      }
    }
    const layers: Layer[] = [];
    let total = 0;
    for (const file of files) {
      const layer = openLayer(file, total);
      layers.push(layer);
      total += layer.count;
    }
    opened.move();
    return new CommitGraph(layers, total);
  }

  /** The position of `oid` (20 raw bytes), newest layer first; `null` when the graph lacks it. */
  find(oid: Uint8Array): number | null {
    for (const layer of this.layers.toReversed()) {
      const index = findOid(layer.file, layer.fanout, layer.oids, oid);
      if (index !== null) return layer.base + index;
    }
    return null;
  }

  /** The hex name at `position`: only for a commit a reply names. */
  oidAt(position: number): string {
    const [layer, index] = this.#locate(position);
    return Buffer.from(layer.file.read(layer.oids + index * HASH_BYTES, HASH_BYTES)).toString("hex");
  }

  /** Parents by position; generation is the topological level (v1), above every ancestor's. */
  commitAt(position: number): { parents: number[]; generation: number; time: number } {
    const [{ file, data, edges }, index] = this.#locate(position);
    const entry = view(file.read(data + index * CDAT_BYTES + HASH_BYTES, 16));
    const parents: number[] = [];
    const add = (parent: number) => {
      if (parent >= this.total) corrupt(`${file.path} names parent position ${parent} of ${this.total}`);
      parents.push(parent);
    };
    const first = entry.getUint32(0);
    const second = entry.getUint32(4);
    if (first !== NO_PARENT) add(first);
    if (second & EXTRA_EDGES) {
      // An octopus merge: the second slot points into the edge list, whose last entry has the top bit set.
      if (edges === undefined) corrupt(`${file.path} lacks the EDGE chunk a merge needs`);
      for (let at = edges.start + (second & ~EXTRA_EDGES) * 4; ; at += 4) {
        if (at + 4 > edges.end) corrupt(`${file.path} has a broken edge list`);
        if (parents.length === MAX_PARENTS)
          corrupt(`commit-graph position ${position} has more than ${MAX_PARENTS} parents`);
        const edge = view(file.read(at, 4)).getUint32(0);
        add(edge & ~EXTRA_EDGES);
        if (edge & EXTRA_EDGES) break;
      }
    } else if (second !== NO_PARENT) {
      add(second);
    }
    const high = entry.getUint32(8);
    return { parents, generation: high >>> 2, time: (high & 3) * 2 ** 32 + entry.getUint32(12) };
  }

  [Symbol.dispose](): void {
    for (const layer of this.layers) layer.file[Symbol.dispose]();
  }

  #locate(position: number): [Layer, number] {
    for (const layer of this.layers) {
      if (position < layer.base + layer.count) return [layer, position - layer.base];
    }
    return corrupt(`commit-graph position ${position} is out of range`);
  }
}

function openLayer(file: PositionalFile, base: number) {
  const header = view(file.read(0, 8));
  if (header.getUint32(0) !== 0x43475048) corrupt(`${file.path} is not a commit-graph`);
  if (header.getUint8(4) !== 1) corrupt(`${file.path} has an unknown commit-graph version`);
  if (header.getUint8(5) !== 1) corrupt(`${file.path} is not a SHA-1 commit-graph`);
  const chunkCount = header.getUint8(6);
  const chunks = new Map<string, { start: number; end: number }>();
  const table = view(file.read(8, (chunkCount + 1) * 12));
  for (let i = 0; i < chunkCount; i++) {
    const id = String.fromCharCode(...file.read(8 + i * 12, 4));
    const start = table.getUint32(i * 12 + 4) * 2 ** 32 + table.getUint32(i * 12 + 8);
    const end = table.getUint32(i * 12 + 16) * 2 ** 32 + table.getUint32(i * 12 + 20);
    if (start > end || end > file.size) corrupt(`${file.path} has chunk ${id} outside the file`);
    chunks.set(id, { start, end });
  }
  const need = (id: string) => chunks.get(id) ?? corrupt(`${file.path} lacks its ${id} chunk`);
  const fanout = need("OIDF");
  if (fanout.end - fanout.start !== 1024) corrupt(`${file.path} has a malformed fan-out chunk`);
  const fanoutView = view(new Uint8Array(file.read(fanout.start, 1024)));
  const count = fanoutView.getUint32(255 * 4);
  const oids = need("OIDL");
  const data = need("CDAT");
  if (oids.end - oids.start !== count * HASH_BYTES || data.end - data.start !== count * CDAT_BYTES)
    corrupt(`${file.path} has chunks that disagree on the commit count`);
  return { file, base, count, fanout: fanoutView, oids: oids.start, data: data.start, edges: chunks.get("EDGE") };
}
