import { closeSync, constants, fstatSync, lstatSync, openSync, readSync } from "node:fs";
import { decodeUtf8 } from "../../fs/cached-file.ts";

/** Thrown by the byte-level readers (a `Result` through every varint costs more than it says); a branch's warning. */
export class ObjectReadError extends Error {
  override readonly name = "ObjectReadError";
}

export function corrupt(message: string): never {
  throw new ObjectReadError(message);
}

/** Object files are never links (git writes none): a link in `objects/` could point anywhere. */
const OPEN_FLAGS =
  constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOCTTY ?? 0) | (constants.O_NOFOLLOW ?? 0);

const PAGE_BYTES = 4096;
/** Pages kept per file (2 MiB): a walk returns to the same pages; bench/commits.ts: 64 took 57 ms, 512 10 ms. */
const MAX_PAGES = 512;
/** Descriptors one store keeps open, as git's `pack_max_fds`: thousands of packs would exhaust the process's. */
const MAX_OPEN_FILES = 64;
/** Page bytes one store keeps over all its files: a small file's page is the file, so 19,000 tiny packs fit. */
const MAX_PAGED_BYTES = 64 * 1024 * 1024;

/** git makes no links in an object directory; `open` refuses a link only as the file's own name. */
export function isLink(path: string): boolean {
  return lstatSync(path, { throwIfNoEntry: false })?.isSymbolicLink() === true;
}

/** `null` when missing; throws `ObjectReadError` when it is a link, a directory or a device. */
function openRegular(path: string): { fd: number; size: number; ino: number } | null {
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
    return { fd, size: info.size, ino: info.ino };
  } catch (error) {
    closeSync(fd);
    throw error;
  }
}

/**
 * The descriptors and pages of one store's files, the least recently read from disk giving theirs up first:
 * at most {@link MAX_OPEN_FILES} descriptors and {@link MAX_PAGED_BYTES} of pages, however many packs there are.
 */
export class FilePool {
  readonly #open = new Set<PositionalFile>();
  readonly #paged = new Set<PositionalFile>();
  #bytes = 0;

  /** `file` has just read from disk with its descriptor, and keeps `added` more bytes of pages. */
  used(file: PositionalFile, added: number): void {
    for (const set of [this.#open, this.#paged]) {
      set.delete(file);
      set.add(file);
    }
    this.#bytes += added;
    for (const old of this.#open) {
      if (this.#open.size <= MAX_OPEN_FILES) break;
      this.#open.delete(old);
      old.closeDescriptor();
    }
    for (const old of this.#paged) {
      if (this.#bytes <= MAX_PAGED_BYTES || old === file) break;
      this.#paged.delete(old);
      this.#bytes -= old.dropPages();
    }
  }

  forget(file: PositionalFile): void {
    this.#open.delete(file);
    if (this.#paged.delete(file)) this.#bytes -= file.pagedBytes;
  }
}

/** A pack, index or commit-graph read by offset: only the pages asked for are in memory, never the file. */
export class PositionalFile {
  readonly #pages = new Map<number, Uint8Array>();
  #fd: number | null;
  pagedBytes = 0;

  private constructor(
    readonly path: string,
    opened: { fd: number; size: number; ino: number },
    readonly pool: FilePool | null,
    readonly size = opened.size,
    readonly ino = opened.ino,
  ) {
    this.#fd = opened.fd;
  }

  /**
   * `null` when missing; throws `ObjectReadError` when it is a link, a directory or a device. In a `pool`, the
   * descriptor may be closed between reads and the file opened again, refused if it is no longer the same.
   */
  static open(path: string, pool: FilePool | null = null): PositionalFile | null {
    const opened = openRegular(path);
    return opened && new PositionalFile(path, opened, pool);
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
      const dropped = this.#pages.size >= MAX_PAGES ? this.dropPages() : 0;
      const pageBytes = Math.min(PAGE_BYTES, this.size - first * PAGE_BYTES);
      page = this.#direct(first * PAGE_BYTES, pageBytes, pageBytes - dropped);
      this.#pages.set(first, page);
      this.pagedBytes += pageBytes;
    }
    const start = offset - first * PAGE_BYTES;
    return page.subarray(start, start + length);
  }

  closeDescriptor(): void {
    if (this.#fd !== null) closeSync(this.#fd);
    this.#fd = null;
  }

  /** Empties the page cache; returns the bytes it held. */
  dropPages(): number {
    const bytes = this.pagedBytes;
    this.#pages.clear();
    this.pagedBytes = 0;
    return bytes;
  }

  [Symbol.dispose](): void {
    this.pool?.forget(this);
    this.#pages.clear();
    this.closeDescriptor();
  }

  /** `added`: the change in this file's paged bytes the read brings. */
  #direct(offset: number, length: number, added = 0): Uint8Array {
    const fd = this.#fd ?? this.#reopen();
    const buffer = Buffer.allocUnsafe(length);
    for (let done = 0; done < length; ) {
      const n = readSync(fd, buffer, done, length - done, offset + done);
      if (n === 0) corrupt(`${this.path} shrank while being read`);
      done += n;
    }
    this.pool?.used(this, added);
    return buffer;
  }

  #reopen(): number {
    const opened = openRegular(this.path);
    if (opened?.size !== this.size || opened.ino !== this.ino) {
      if (opened) closeSync(opened.fd);
      corrupt(`${this.path} changed while being read`);
    }
    this.#fd = opened.fd;
    return opened.fd;
  }
}

/** The lines of a small file's first `max` bytes, with {@link PositionalFile.open}'s refusals; `null` when missing. */
export function readLines(path: string, max: number): string[] | null {
  using file = PositionalFile.open(path);
  return file && (decodeUtf8(file.read(0, Math.min(file.size, max))) ?? "").split("\n");
}

export function view(bytes: Uint8Array): DataView {
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

export const HASH_BYTES = 20;

/** The index of `oid` (20 raw bytes) in the sorted names at `namesAt`, through its 256-entry fan-out. */
export function findOid(file: PositionalFile, fanout: DataView, namesAt: number, oid: Uint8Array): number | null {
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
