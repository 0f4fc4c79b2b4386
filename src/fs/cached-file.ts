import type { Stats } from "node:fs";
import { type BoundedFailure, readBounded } from "./bounded-read.ts";
import { statIfExists } from "./local-fs.ts";

export type FileRead<T> = { kind: "found"; value: T } | { kind: "missing" } | { kind: "unreadable"; cause: string };

/** Files we parse are small, but a state file can be hand-edited into anything; refuse the absurd. */
const MAX_FILE_BYTES = 64 * 1024 * 1024;

/** What says a file is unchanged: its inode, size, and last modification and status change. */
const STAMP = ["mtimeMs", "ctimeMs", "size", "ino"] as const;
type FileStamp = Pick<Stats, (typeof STAMP)[number]>;

/** File times are coarse (2 s on FAT): a stamp vouches for a read only once older than this (git's "racy clean"). */
export const RACY_WINDOW_MS = 3_000;

export function isSettled(stamp: FileStamp, takenAt: number): boolean {
  // ctime cannot be set back as mtime can; mtime counts when later (a server clock ahead of ours).
  return Math.max(stamp.ctimeMs, stamp.mtimeMs) < takenAt - RACY_WINDOW_MS;
}

/** Re-reads a file only when its (mtime, ctime, size, inode) changes; a bounded LRU by path and parser. */
export class CachedFileReader {
  /** Map order is the LRU order; only an entry read under a settled stamp is ever handed out. */
  readonly #entries = new Map<string, { value: unknown; stamp: FileStamp; settled: boolean }>();

  constructor(
    readonly capacity = 256,
    readonly now: () => number = Date.now,
  ) {}

  /** `maxBytes` bounds a file whose parser is slow per byte: it runs on the event loop. */
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
      if (info && STAMP.every((key) => info[key] === cached.stamp[key])) {
        this.#entries.set(key, cached);
        return { kind: "found", value: cached.value as T };
      }
    }
    // One descriptor, `fstat`ed: what was read is judged, and stamped, by what was opened.
    const read = readBounded(path, Math.min(options.maxBytes ?? MAX_FILE_BYTES, MAX_FILE_BYTES));
    if (read.kind === "missing") return read;
    if (read.kind !== "found") return { kind: "unreadable", cause: whyUnreadable(read) };
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

const FS_ERRORS: Record<string, string> = {
  directory: "is a directory",
  special: "is not a regular file",
  EACCES: "permission denied",
  EPERM: "permission denied",
  EISDIR: "is a directory",
  ELOOP: "too many levels of symbolic links",
  ENOENT: "no such file or directory",
  ENOTDIR: "a path component is not a directory",
};

/** Why a file that is there could not be read, in a few words. */
export function whyUnreadable(failure: Exclude<BoundedFailure, { kind: "missing" }>): string {
  if (failure.kind === "too-large") return `file is over the ${failure.limit}-byte limit`;
  return failure.kind === "unreadable" ? describeFsError(failure.error) : (FS_ERRORS[failure.kind] as string);
}

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
