// Hand-written: isomorphic-git reads a whole pack into memory; this reader stays bounded on any pack.
import { readdirSync, realpathSync } from "node:fs";
import { join, resolve } from "node:path";
import { inflateSync } from "node:zlib";
import { decodeUtf8 } from "../../fs/cached-file.ts";
import { isInside } from "../../fs/path-inside.ts";
import { corrupt, findOid, isLink, ObjectReadError, PositionalFile, readLines, view } from "./positional-file.ts";

const OBJECT_TYPES = ["", "commit", "tree", "blob", "tag"] as const;
type GitObject = { type: Exclude<(typeof OBJECT_TYPES)[number], "">; data: Uint8Array };

/** Commits are small; a larger object is refused before it is read (a message of megabytes is an attack). */
const MAX_OBJECT_BYTES = 4 * 1024 * 1024;
/** git's own ceiling for `--depth` (pack-objects clamps to 4095); anything longer is a loop or an attack. */
const MAX_DELTA_DEPTH = 4095;
/** All deltas of one chain, and apart all the objects they build: either could otherwise take minutes. */
const MAX_CHAIN_BYTES = 64 * 1024 * 1024;
/** git reads alternates five levels deep. */
const MAX_ALTERNATE_DEPTH = 5;

/** A repository's packs and loose objects, and its alternates' inside `places`; files open on first use. */
export class ObjectStore {
  #packs: Pack[] | null = null;
  readonly notes: string[] = [];

  private constructor(readonly dirs: string[]) {}

  /** An alternate is followed only when its canonical path is inside `places`: it could name any directory. */
  static open(objectsDir: string, places: readonly string[]): ObjectStore {
    const dirs: string[] = [];
    const store = new ObjectStore(dirs);
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

  /** The object named `oid` (40 hex digits); throws `ObjectReadError` when it is missing or broken. */
  read(oid: string): GitObject {
    const packed = this.#findPacked(Buffer.from(oid, "hex"));
    if (packed !== null) return this.#fromPack(packed);
    for (const dir of this.dirs) {
      const fanout = join(dir, oid.slice(0, 2));
      if (isLink(fanout)) corrupt(`${fanout} is a link, not read`);
      const found = readLoose(join(fanout, oid.slice(2)));
      if (found !== null) return found;
    }
    return corrupt(`object ${oid} is missing`);
  }

  close(): void {
    for (const pack of this.#packs ?? []) pack.close();
    this.#packs = [];
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

  /** Resolves a delta chain without recursion: headers collected down to the base, then applied up. */
  #fromPack(start: { pack: Pack; offset: number }): GitObject {
    const chain: { pack: Pack; entry: PackEntry }[] = [];
    const seen = new Set<string>();
    let chainBytes = 0;
    let at = start;
    for (;;) {
      const key = `${at.pack.path}:${at.offset}`;
      if (seen.has(key)) corrupt(`${at.pack.path} has a delta loop at offset ${at.offset}`);
      seen.add(key);
      const entry = at.pack.entry(at.offset);
      if (entry.type !== OBJ_OFS_DELTA && entry.type !== OBJ_REF_DELTA) {
        let data = at.pack.inflate(entry);
        let built = 0;
        for (const step of chain.toReversed()) {
          data = applyDelta(data, step.pack.inflate(step.entry));
          built += data.length;
          if (built > MAX_CHAIN_BYTES)
            corrupt(`${start.pack.path} has a delta chain building over ${MAX_CHAIN_BYTES} bytes`);
        }
        return { type: OBJECT_TYPES[entry.type] as GitObject["type"], data };
      }
      chain.push({ pack: at.pack, entry });
      chainBytes += entry.size;
      if (chain.length > MAX_DELTA_DEPTH)
        corrupt(`${start.pack.path} has a delta chain deeper than ${MAX_DELTA_DEPTH}`);
      if (chainBytes > MAX_CHAIN_BYTES)
        corrupt(`${start.pack.path} has a delta chain of over ${MAX_CHAIN_BYTES} bytes`);
      if (entry.baseOffset !== undefined) at = { pack: at.pack, offset: entry.baseOffset };
      else {
        // A REF_DELTA entry always names its base.
        const base = entry.baseOid as Uint8Array;
        at =
          this.#findPacked(base) ??
          corrupt(`delta base ${Buffer.from(base).toString("hex")} is missing from every pack`);
      }
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
  const file = PositionalFile.open(path);
  if (file === null) return null;
  try {
    const limit = MAX_OBJECT_BYTES + 32;
    if (file.size > maxDeflatedBytes(limit)) corrupt(`${path} is over the ${MAX_OBJECT_BYTES}-byte object limit`);
    const raw = inflateCapped(file.read(0, file.size), limit, path);
    if (raw.length > limit) corrupt(`${path} is over the ${MAX_OBJECT_BYTES}-byte object limit`);
    const nul = raw.indexOf(0);
    const header = nul > 0 && nul <= 32 ? decodeUtf8(raw.subarray(0, nul)) : null;
    const match = header === null ? null : /^(commit|tree|blob|tag) (0|[1-9][0-9]{0,15})$/.exec(header);
    if (match === null) return corrupt(`${path} has no valid object header`);
    const data = raw.subarray(nul + 1);
    if (data.length !== Number(match[2]))
      corrupt(`${path} holds ${data.length} bytes, not the ${match[2]} it declares`);
    return { type: match[1] as GitObject["type"], data };
  } finally {
    file.close();
  }
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
    const idx = PositionalFile.open(`${base}.idx`);
    if (idx === null) return null;
    let pack: PositionalFile | null = null;
    try {
      pack = PositionalFile.open(`${base}.pack`);
      if (pack === null) idx.close();
      return pack && new Pack(idx, pack);
    } catch (error) {
      pack?.close();
      idx.close();
      throw error;
    }
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

  close(): void {
    this.idx.close();
    this.pack.close();
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
