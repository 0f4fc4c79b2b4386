import type { Stats } from "node:fs";
import { type BoundedRead, readBounded } from "./bounded-read.ts";
import { statIfExists } from "./local-fs.ts";

/** What reading a small file gave: its parsed form, its absence, or the reason it could not be read. */
export type FileRead<T> = { kind: "found"; value: T } | { kind: "missing" } | { kind: "unreadable"; cause: string };

/** Files we parse are small, but a state file can be hand-edited into anything; refuse the absurd. */
export const MAX_FILE_BYTES = 64 * 1024 * 1024;

/** What says a file is unchanged: its inode, size, and last modification and status change. */
type FileStamp = Pick<Stats, "mtimeMs" | "ctimeMs" | "size" | "ino">;

/**
 * File times come from a coarse clock: a kernel tick (up to 10 ms) on Linux before 6.13 and on
 * most network file systems, a second on HFS+, two on FAT. Two writes within one tick, the second
 * of the same size and in place (twig rewriting a PR number, a tool rewriting HEAD), leave the
 * stamp exactly as it was. So a stamp only vouches for what was read under it once the file's last
 * change is older than this when the stamp is taken — git's "racy clean" rule, with the system
 * clock standing in for the index file's mtime. Until then the file is read again on every use.
 */
export const RACY_WINDOW_MS = 3_000;

/** Whether `stamp`, taken at `takenAt` (ms since the epoch), can vouch for the content read with it. */
export function isSettled(stamp: FileStamp, takenAt: number): boolean {
  // ctime cannot be set back by `touch -d` or an archive extractor the way mtime can; mtime still
  // counts when it is later (a server clock ahead of ours).
  return Math.max(stamp.ctimeMs, stamp.mtimeMs) < takenAt - RACY_WINDOW_MS;
}

/**
 * Re-reads a file only when its (mtime, ctime, size, inode) changes, so every tool call sees the
 * file as it is now without parsing an unchanged file twice. The cache is a bounded LRU keyed by
 * path and parser, so memory stays flat however many repositories and files are read. A file
 * changed in the last few seconds is read and parsed again on every call (see `RACY_WINDOW_MS`).
 */
export class CachedFileReader {
  /** Map order is the LRU order; only an entry read under a settled stamp is ever handed out. */
  readonly #entries = new Map<string, { value: unknown; stamp: FileStamp; settled: boolean }>();

  constructor(
    readonly capacity = 256,
    readonly now: () => number = Date.now,
  ) {}

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
    const key = `${parserKey}\u0000${path}`;
    const cached = this.#entries.get(key);
    this.#entries.delete(key);
    if (cached?.settled) {
      const info = await statIfExists(path).catch(() => undefined);
      const { mtimeMs, ctimeMs, size, ino } = cached.stamp;
      if (info?.mtimeMs === mtimeMs && info.ctimeMs === ctimeMs && info.size === size && info.ino === ino) {
        this.#entries.set(key, cached);
        return { kind: "found", value: cached.value as T };
      }
    }
    // One descriptor, `fstat`ed: what was read is judged, and stamped, by what was opened.
    const read = readBounded(path, Math.min(options.maxBytes ?? MAX_FILE_BYTES, MAX_FILE_BYTES));
    if (read.kind !== "found") return describeRefusal(read);
    const value = parse(read.bytes);
    this.#entries.set(key, { value, stamp: read.info, settled: isSettled(read.info, this.now()) });
    const oldest = this.#entries.keys().next().value;
    if (this.#entries.size > this.capacity && oldest !== undefined) this.#entries.delete(oldest);
    return { kind: "found", value };
  }

  get size(): number {
    return this.#entries.size;
  }
}

/** A bounded read that found nothing to parse, as the reason callers show. */
function describeRefusal(read: Exclude<BoundedRead, { kind: "found" }>): FileRead<never> {
  if (read.kind === "missing") return read;
  const causes = { directory: "is a directory", special: "is not a regular file" } as const;
  if (read.kind === "too-large") return { kind: "unreadable", cause: `file is over the ${read.limit}-byte limit` };
  return { kind: "unreadable", cause: read.kind === "unreadable" ? describeFsError(read.error) : causes[read.kind] };
}

const FS_ERRORS: Record<string, string> = {
  EACCES: "permission denied",
  EPERM: "permission denied",
  EISDIR: "is a directory",
  ELOOP: "too many levels of symbolic links",
  ENOENT: "no such file or directory",
  ENOTDIR: "a path component is not a directory",
};

export function describeFsError(error: unknown): string {
  const code = (error as NodeJS.ErrnoException)?.code;
  return code ? (FS_ERRORS[code] ?? code) : String(error);
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
