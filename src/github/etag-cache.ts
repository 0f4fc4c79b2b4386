/** A response kept for revalidation: GitHub answers `If-None-Match` with a free 304 when unchanged. */
export interface CachedResponse {
  etag: string;
  body: string;
  /** Headers the body depends on (`content-type`, `link`, …), replayed with the cached body. */
  headers: ReadonlyArray<readonly [string, string]>;
}

/**
 * Bounded LRU of GET responses keyed by token identity + URL (two tokens may see different data).
 * Limits are on entry count and total body size, so memory stays flat over a long session.
 */
export class EtagCache {
  readonly #entries = new Map<string, CachedResponse>();
  readonly #limits;
  #bytes = 0;

  constructor({ maxEntries = 200, maxBytes = 16 * 1024 * 1024, maxEntryBytes = 2 * 1024 * 1024 } = {}) {
    this.#limits = { maxEntries, maxBytes, maxEntryBytes };
  }

  get(key: string): CachedResponse | undefined {
    const entry = this.#entries.get(key);
    if (entry) {
      this.#entries.delete(key);
      this.#entries.set(key, entry);
    }
    return entry;
  }

  set(key: string, entry: CachedResponse): void {
    this.delete(key);
    const size = entry.body.length;
    if (size > this.#limits.maxEntryBytes) return;
    this.#entries.set(key, entry);
    this.#bytes += size;
    for (const oldest of this.#entries.keys()) {
      if (this.#entries.size <= this.#limits.maxEntries && this.#bytes <= this.#limits.maxBytes) break;
      this.delete(oldest);
    }
  }

  delete(key: string): void {
    const entry = this.#entries.get(key);
    if (!entry) return;
    this.#bytes -= entry.body.length;
    this.#entries.delete(key);
  }

  get size(): number {
    return this.#entries.size;
  }
}
