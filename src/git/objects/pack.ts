// Hand-written: isomorphic-git reads a whole pack into memory; this reader stays bounded on any pack.
import { inflateSync } from "node:zlib";
import { corrupt, type FilePool, findOid, HASH_BYTES, PositionalFile, view } from "./positional-file.ts";

/** Commits are small; a larger object is refused before it is read (a message of megabytes is an attack). */
export const MAX_OBJECT_BYTES = 4 * 1024 * 1024;

/** Pack entry types (pack-format.txt); 5 is reserved. */
export const OBJ_OFS_DELTA = 6;
export const OBJ_REF_DELTA = 7;

/** `type`: 1 commit, 2 tree, 3 blob, 4 tag, or a delta naming its base by offset here or by object name. */
export interface PackEntry {
  type: number;
  /** Inflated: of the object, or of the delta for a delta entry. */
  size: number;
  dataOffset: number;
  baseOffset?: number;
  baseOid?: Uint8Array;
}

const OIDS_AT = 8 + 256 * 4;

/** A pack and its version-2 index, read by offset (a binary search, then the object's own bytes), never whole. */
export class Pack {
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
    // A copy: the page it came from may be dropped while the pack stays listed.
    this.#fanout = view(new Uint8Array(bytes.subarray(8)));
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
  static open(base: string, pool: FilePool): Pack | null {
    using opened = new DisposableStack();
    const idx = opened.use(PositionalFile.open(`${base}.idx`, pool));
    const pack = idx && opened.use(PositionalFile.open(`${base}.pack`, pool));
    if (idx === null || pack === null) return null;
    const result = new Pack(idx, pack);
    opened.move();
    return result;
  }

  /** Whether the fan-out gives any names starting with `first` (an out-of-order one does: `find` reports it). */
  holds(first: number): boolean {
    return this.#fanout.getUint32(first * 4) !== (first === 0 ? 0 : this.#fanout.getUint32(first * 4 - 4));
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
export function maxDeflatedBytes(size: number): number {
  return size + Math.ceil(size / 16_384) * 5 + 64;
}

/** Below this `Bun.inflateSync` (5× node:zlib) needs no cap: deflate expands ≤1,032-fold, 4 MiB (the limit). */
const FAST_INPUT_BYTES = 4096;

/** Inflates to at most about `maxBytes` (callers check the length); bytes after the stream are ignored. */
export function inflateCapped(input: Uint8Array, maxBytes: number, what: string): Uint8Array {
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
export function applyDelta(base: Uint8Array, delta: Uint8Array): Uint8Array {
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
