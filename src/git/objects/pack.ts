import { inflateExactly, maxDeflatedBytes } from "./inflate.ts";
import { corrupt } from "./object-error.ts";
import { PositionalFile } from "./positional-file.ts";

/** Pack entry types (pack-format.txt); 5 is reserved. */
export const OBJ_OFS_DELTA = 6;
export const OBJ_REF_DELTA = 7;

export interface PackEntry {
  /** 1 commit, 2 tree, 3 blob, 4 tag, or one of the delta types. */
  type: number;
  /** The inflated size: of the object itself, or of the delta for a delta entry. */
  size: number;
  /** Where the zlib stream starts. */
  dataOffset: number;
  /** OFS_DELTA: the base entry's offset in this pack. */
  baseOffset?: number;
  /** REF_DELTA: the base object's name. */
  baseOid?: Uint8Array;
}

const IDX_MAGIC = 0xff744f63;
const FANOUT_AT = 8;
const OIDS_AT = FANOUT_AT + 256 * 4;
const HASH_BYTES = 20;
const MIN_PACK_BYTES = 12 + HASH_BYTES;

/**
 * One pack file and its version-2 index, read by offset: a lookup is a binary search over the
 * index's sorted object names (a few 20-byte reads) and an object is read from its own bytes, so
 * neither file is ever held whole.
 */
export class Pack {
  readonly #idx: PositionalFile;
  readonly #pack: PositionalFile;
  readonly #fanout: DataView;
  readonly count: number;

  private constructor(idx: PositionalFile, pack: PositionalFile) {
    this.#idx = idx;
    this.#pack = pack;
    const header = view(idx.read(0, OIDS_AT));
    if (header.getUint32(0) !== IDX_MAGIC || header.getUint32(4) !== 2)
      corrupt(`${idx.path} is not a version 2 pack index`);
    this.#fanout = new DataView(header.buffer, header.byteOffset + FANOUT_AT, 256 * 4);
    this.count = this.#fanout.getUint32(255 * 4);
    // Names, CRCs and offsets, then the two trailing hashes: a shorter file is truncated.
    if (OIDS_AT + this.count * 28 + 2 * HASH_BYTES > idx.size) corrupt(`${idx.path} is truncated`);
    const packHeader = view(pack.read(0, 12));
    const version = packHeader.getUint32(4);
    if (packHeader.getUint32(0) !== 0x5041434b || (version !== 2 && version !== 3))
      corrupt(`${pack.path} is not a pack`);
    if (packHeader.getUint32(8) !== this.count) corrupt(`${pack.path} and its index disagree on the object count`);
  }

  /** `null` when either file is missing; throws `ObjectReadError` when one is malformed. */
  static open(idxPath: string, packPath: string): Pack | null {
    const idx = PositionalFile.open(idxPath);
    if (idx === null) return null;
    let pack: PositionalFile | null = null;
    try {
      pack = PositionalFile.open(packPath);
      if (pack === null) {
        idx.close();
        return null;
      }
      if (pack.size < MIN_PACK_BYTES) corrupt(`${packPath} is truncated`);
      return new Pack(idx, pack);
    } catch (error) {
      idx.close();
      pack?.close();
      throw error;
    }
  }

  get path(): string {
    return this.#pack.path;
  }

  /** The offset of the object named `oid` (20 raw bytes) in the pack, `null` when it is not here. */
  find(oid: Uint8Array): number | null {
    const first = oid[0] as number;
    let low = first === 0 ? 0 : this.#fanout.getUint32((first - 1) * 4);
    let high = this.#fanout.getUint32(first * 4);
    if (low > high || high > this.count) corrupt(`${this.#idx.path} has a fan-out table out of order`);
    while (low < high) {
      const middle = (low + high) >>> 1;
      const order = compareOid(this.#idx.read(OIDS_AT + middle * HASH_BYTES, HASH_BYTES), oid);
      if (order === 0) return this.#offsetAt(middle);
      if (order < 0) low = middle + 1;
      else high = middle;
    }
    return null;
  }

  /** The entry header at `offset`: its type, declared size, and where its base and data are. */
  entry(offset: number): PackEntry {
    const end = this.#pack.size - HASH_BYTES;
    if (!Number.isSafeInteger(offset) || offset < 12 || offset >= end)
      corrupt(`${this.path} has no entry at ${offset}`);
    const bytes = this.#pack.readUpTo(offset, 32);
    let pos = 0;
    const next = () =>
      pos < bytes.length ? (bytes[pos++] as number) : corrupt(`${this.path} entry at ${offset} is truncated`);
    let byte = next();
    const type = (byte >> 4) & 7;
    let size = byte & 0x0f;
    let shift = 4;
    while (byte & 0x80) {
      if (shift > 46) corrupt(`${this.path} entry at ${offset} declares an impossible size`);
      byte = next();
      size += (byte & 0x7f) * 2 ** shift;
      shift += 7;
    }
    if (type === OBJ_OFS_DELTA) {
      // Each continuation byte adds one before shifting, so every distance has a single encoding.
      byte = next();
      let distance = byte & 0x7f;
      while (byte & 0x80) {
        if (distance > 2 ** 45) corrupt(`${this.path} entry at ${offset} has an impossible base distance`);
        byte = next();
        distance = (distance + 1) * 128 + (byte & 0x7f);
      }
      const baseOffset = offset - distance;
      if (distance === 0 || baseOffset < 12) corrupt(`${this.path} entry at ${offset} names a base outside the pack`);
      return { type, size, dataOffset: offset + pos, baseOffset };
    }
    if (type === OBJ_REF_DELTA) {
      if (pos + HASH_BYTES > bytes.length) corrupt(`${this.path} entry at ${offset} is truncated`);
      const baseOid = bytes.slice(pos, pos + HASH_BYTES);
      return { type, size, dataOffset: offset + pos + HASH_BYTES, baseOid };
    }
    if (type < 1 || type > 4) corrupt(`${this.path} entry at ${offset} has the invalid type ${type}`);
    return { type, size, dataOffset: offset + pos };
  }

  /** The entry's inflated data; refused before any read when it declares more than `maxBytes`. */
  inflate(entry: PackEntry, maxBytes: number): Uint8Array {
    const what = `${this.path} entry at ${entry.dataOffset}`;
    if (entry.size > maxBytes) corrupt(`${what} declares ${entry.size} bytes, over the ${maxBytes}-byte limit`);
    const end = this.#pack.size - HASH_BYTES;
    const input = this.#pack.read(
      entry.dataOffset,
      Math.max(0, Math.min(maxDeflatedBytes(entry.size), end - entry.dataOffset)),
    );
    return inflateExactly(input, entry.size, what);
  }

  close(): void {
    this.#idx.close();
    this.#pack.close();
  }

  #offsetAt(index: number): number {
    const offsetsAt = OIDS_AT + this.count * (HASH_BYTES + 4);
    const small = view(this.#idx.read(offsetsAt + index * 4, 4)).getUint32(0);
    if ((small & 0x80000000) === 0) return small;
    // Offsets past 2 GiB live in a table of 8-byte values after the 4-byte ones.
    const largeAt = offsetsAt + this.count * 4 + (small & 0x7fffffff) * 8;
    if (largeAt + 8 > this.#idx.size - 2 * HASH_BYTES) corrupt(`${this.#idx.path} names a large offset it lacks`);
    const large = view(this.#idx.read(largeAt, 8));
    return large.getUint32(0) * 2 ** 32 + large.getUint32(4);
  }
}

export function view(bytes: Uint8Array): DataView {
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

export function compareOid(a: Uint8Array, b: Uint8Array): number {
  for (let i = 0; i < HASH_BYTES; i++) {
    const diff = (a[i] as number) - (b[i] as number);
    if (diff !== 0) return diff;
  }
  return 0;
}
