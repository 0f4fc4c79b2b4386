/** What says a file or directory is unchanged: its inode, size, and last modification and status change. */
export interface FileStamp {
  mtimeMs: number;
  ctimeMs: number;
  size: number;
  ino: number;
}

export function stampOf(info: FileStamp): FileStamp {
  return { mtimeMs: info.mtimeMs, ctimeMs: info.ctimeMs, size: info.size, ino: info.ino };
}

export function sameStamp(a: FileStamp, b: FileStamp): boolean {
  return a.mtimeMs === b.mtimeMs && a.ctimeMs === b.ctimeMs && a.size === b.size && a.ino === b.ino;
}

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

interface Entry<V> {
  value: V;
  stamps: readonly FileStamp[];
  settled: boolean;
}

/**
 * A bounded LRU of values derived from files, each kept with the stamps of the files it came from.
 * A value is handed out only while every stamp is unchanged and was settled when taken
 * ({@link isSettled}).
 */
export class StampedCache<V> {
  readonly #entries = new Map<string, Entry<V>>();
  readonly #capacity: number;
  readonly #now: () => number;

  constructor(capacity: number, now: () => number = Date.now) {
    this.#capacity = capacity;
    this.#now = now;
  }

  /**
   * The value under `key` if it still holds: stored under settled stamps, and `unchanged` (which
   * may stat the file again) accepts each of them in order.
   */
  get(key: string, unchanged: (stamp: FileStamp) => boolean): V | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined || !entry.settled || !entry.stamps.every(unchanged)) return undefined;
    this.#entries.delete(key);
    this.#entries.set(key, entry);
    return entry.value;
  }

  /** Stores `value` with the stamps it was read under. */
  set(key: string, value: V, stamps: readonly FileStamp[]): void {
    const takenAt = this.#now();
    const settled = stamps.every((stamp) => isSettled(stamp, takenAt));
    this.#entries.delete(key);
    this.#entries.set(key, { value, stamps, settled });
    if (this.#entries.size > this.#capacity) {
      const oldest = this.#entries.keys().next().value;
      if (oldest !== undefined) this.#entries.delete(oldest);
    }
  }

  get size(): number {
    return this.#entries.size;
  }
}
