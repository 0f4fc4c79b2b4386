import { closeSync, constants, fstatSync, openSync, readSync } from "node:fs";
import { corrupt, ObjectReadError } from "./object-error.ts";

/** Object files are never links (git writes none): a link in `objects/` could point anywhere. */
const OPEN_FLAGS =
  constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOCTTY ?? 0) | (constants.O_NOFOLLOW ?? 0);

const PAGE_BYTES = 4096;
/**
 * Pages kept per file, 2 MiB at most: a walk returns to the same index and commit-graph pages again
 * and again. In bench/commits.ts (30,000 commits, 5,000 behind) 64 pages took 57 ms, 512 take 10 ms.
 */
const MAX_PAGES = 512;

/**
 * A pack, index or commit-graph read by offset: only the pages asked for are in memory, never the
 * file. A walk returns to the same fan-out and graph pages again and again, so a few pages are kept.
 */
export class PositionalFile {
  readonly size: number;
  readonly #fd: number;
  readonly #pages = new Map<number, Uint8Array>();

  private constructor(
    readonly path: string,
    fd: number,
    size: number,
  ) {
    this.#fd = fd;
    this.size = size;
  }

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
    if (length === 0) return new Uint8Array(0);
    const first = Math.floor(offset / PAGE_BYTES);
    const last = Math.floor((offset + length - 1) / PAGE_BYTES);
    if (first === last) {
      const page = this.#page(first);
      const start = offset - first * PAGE_BYTES;
      return page.subarray(start, start + length);
    }
    return this.#direct(offset, length);
  }

  /** Up to `length` bytes at `offset`, fewer at the end of the file (zlib streams have no stored length). */
  readUpTo(offset: number, length: number): Uint8Array {
    return this.read(offset, Math.max(0, Math.min(length, this.size - offset)));
  }

  close(): void {
    this.#pages.clear();
    closeSync(this.#fd);
  }

  #page(index: number): Uint8Array {
    const cached = this.#pages.get(index);
    if (cached !== undefined) return cached;
    const start = index * PAGE_BYTES;
    const page = this.#direct(start, Math.min(PAGE_BYTES, this.size - start));
    if (this.#pages.size >= MAX_PAGES) this.#pages.clear();
    this.#pages.set(index, page);
    return page;
  }

  #direct(offset: number, length: number): Uint8Array {
    const buffer = Buffer.allocUnsafe(length);
    let done = 0;
    while (done < length) {
      const n = readSync(this.#fd, buffer, done, length - done, offset + done);
      if (n === 0) corrupt(`${this.path} shrank while being read`);
      done += n;
    }
    return buffer;
  }
}
