/**
 * What one call may spend reading commits, across all its walks. Far above what an ordinary repository
 * needs (docs/security.md), so only a hostile one, or a history far past the walk limit, reaches it.
 */
export const CALL_BUDGET = {
  /** Bytes inflated from objects and built by deltas. */
  inflatedBytes: 512 * 1024 * 1024,
  deltaApplications: 1_000_000,
  /** Parent edges of walked commits. */
  parentEdges: 4_000_000,
  /** Tree entries a restack forecast compares: a tree can name one subtree many times, so paths grow as its powers. */
  treeEntries: 1_000_000,
  /** Equal-line pairs (and lines) a forecast's text merges compare: node-diff3's work, ~0.2 s per 1,000,000. */
  mergeLinePairs: 20_000_000,
};

/** One per call, shared by every walk: past any limit, walks stop and their counts are lower bounds. */
export class WorkBudget {
  inflatedBytes = 0;
  deltaApplications = 0;
  parentEdges = 0;
  treeEntries = 0;
  mergeLinePairs = 0;
  readonly limits: typeof CALL_BUDGET;

  constructor(limits: Partial<typeof CALL_BUDGET> = {}) {
    this.limits = { ...CALL_BUDGET, ...limits };
  }

  get spent(): boolean {
    return (
      this.inflatedBytes > this.limits.inflatedBytes ||
      this.deltaApplications > this.limits.deltaApplications ||
      this.parentEdges > this.limits.parentEdges ||
      this.treeEntries > this.limits.treeEntries ||
      this.mergeLinePairs > this.limits.mergeLinePairs
    );
  }
}

/** Work between two yields to the event loop: other requests (a `ping`, a cancel) are read meanwhile. */
const SLICE_MS = 10;

/** Long synchronous work checks `due` as it goes, and yields when it is, ending there if the call was cancelled. */
export class TimeSlice {
  #start = performance.now();

  get due(): boolean {
    return performance.now() - this.#start > SLICE_MS;
  }

  async yield(signal?: AbortSignal): Promise<void> {
    await new Promise<void>((resolve) => setImmediate(resolve));
    signal?.throwIfAborted();
    this.#start = performance.now();
  }
}
