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

/** git makes no links in an object directory; `open` refuses a link only as the file's own name. */
export function isLink(path: string): boolean {
  return lstatSync(path, { throwIfNoEntry: false })?.isSymbolicLink() === true;
}

/** A pack, index or commit-graph read by offset: only the pages asked for are in memory, never the file. */
export class PositionalFile {
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

  close(): void {
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
export function readLines(path: string, max: number): string[] | null {
  const file = PositionalFile.open(path);
  if (file === null) return null;
  try {
    return (decodeUtf8(file.read(0, Math.min(file.size, max))) ?? "").split("\n");
  } finally {
    file.close();
  }
}

export function view(bytes: Uint8Array): DataView {
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

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
