import { type BoundedRead, readBounded } from "./bounded-read.ts";
import { statIfExists } from "./local-fs.ts";
import { StampedCache, sameStamp, stampOf } from "./stamped-cache.ts";

/** What reading a small file gave: its parsed form, its absence, or the reason it could not be read. */
export type FileRead<T> = { kind: "found"; value: T } | { kind: "missing" } | { kind: "unreadable"; cause: string };

/** Files we parse are small, but a state file can be hand-edited into anything; refuse the absurd. */
export const MAX_FILE_BYTES = 64 * 1024 * 1024;

/**
 * Re-reads a file only when its (mtime, ctime, size, inode) changes, so every tool call sees the
 * file as it is now without parsing an unchanged file twice. The cache is a bounded LRU keyed by
 * path and parser, so memory stays flat however many repositories and files are read. A file
 * changed in the last few seconds is read and parsed again on every call (its stamp could hide a
 * second change, see `RACY_WINDOW_MS`).
 */
export class CachedFileReader {
  readonly #entries: StampedCache<unknown>;
  /** The clock stamps are judged by (ms since the epoch). */
  readonly now: () => number;

  constructor(capacity = 256, now: () => number = Date.now) {
    this.#entries = new StampedCache(capacity, now);
    this.now = now;
  }

  /**
   * `maxBytes` bounds a file whose parser is slow per byte (a hand-written tokenizer): the parse
   * runs on the event loop, so a huge file would stall every other call while it lasts.
   */
  async read<T>(
    path: string,
    parserKey: string,
    parse: (bytes: Uint8Array) => T,
    options: { maxBytes?: number } = {},
  ): Promise<FileRead<T>> {
    const maxBytes = Math.min(options.maxBytes ?? MAX_FILE_BYTES, MAX_FILE_BYTES);
    let info: Awaited<ReturnType<typeof statIfExists>>;
    try {
      info = await statIfExists(path);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "ENOENT" || code === "ENOTDIR") return { kind: "missing" };
      return { kind: "unreadable", cause: describeFsError(error) };
    }
    if (info === undefined) return { kind: "missing" };
    if (info.isDirectory()) return { kind: "unreadable", cause: "is a directory" };
    // A FIFO would block the read forever and a device such as /dev/zero never ends: only regular
    // files (symlinks are followed) are read.
    if (!info.isFile()) return { kind: "unreadable", cause: "is not a regular file" };
    if (info.size > maxBytes) {
      return { kind: "unreadable", cause: `file is ${info.size} bytes, over the ${maxBytes}-byte limit` };
    }
    const key = `${parserKey}\u0000${path}`;
    const stamp = stampOf(info);
    const cached = this.#entries.get(key, (previous) => sameStamp(previous, stamp));
    if (cached !== undefined) return { kind: "found", value: cached as T };
    // Read through a fresh descriptor: the stat above only picks cache hits and refuses early; what
    // was read is judged, and stamped, by the descriptor's own `fstat`.
    const read = readBounded(path, maxBytes);
    if (read.kind !== "found") return describeRefusal(read);
    const value = parse(read.bytes);
    this.#entries.set(key, value, [stampOf(read.info)]);
    return { kind: "found", value };
  }

  get size(): number {
    return this.#entries.size;
  }
}

/** A bounded read that found nothing to parse, as the reason callers show. */
export function describeRefusal(read: Exclude<BoundedRead, { kind: "found" }>): FileRead<never> {
  switch (read.kind) {
    case "missing":
      return { kind: "missing" };
    case "directory":
      return { kind: "unreadable", cause: "is a directory" };
    case "special":
      return { kind: "unreadable", cause: "is not a regular file" };
    case "too-large":
      return { kind: "unreadable", cause: `file is over the ${read.limit}-byte limit` };
    case "unreadable":
      return { kind: "unreadable", cause: describeFsError(read.error) };
  }
}

export function describeFsError(error: unknown): string {
  const e = error as NodeJS.ErrnoException;
  switch (e?.code) {
    case "EACCES":
    case "EPERM":
      return "permission denied";
    case "EISDIR":
      return "is a directory";
    case "ELOOP":
      return "too many levels of symbolic links";
    case "ENOENT":
      return "no such file or directory";
    case "ENOTDIR":
      return "a path component is not a directory";
    default:
      return e?.code ? `${e.code}` : String(error);
  }
}

const strictUtf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false });

/** Decodes UTF-8, dropping a leading BOM; `null` for bytes that are not valid UTF-8. */
export function decodeUtf8(bytes: Uint8Array): string | null {
  try {
    return strictUtf8.decode(bytes);
  } catch {
    return null;
  }
}
