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
};

/** One per call, shared by every walk: past any limit, walks stop and their counts are lower bounds. */
export class WorkBudget {
  inflatedBytes = 0;
  deltaApplications = 0;
  parentEdges = 0;

  constructor(readonly limits: typeof CALL_BUDGET = CALL_BUDGET) {}

  get spent(): boolean {
    return (
      this.inflatedBytes > this.limits.inflatedBytes ||
      this.deltaApplications > this.limits.deltaApplications ||
      this.parentEdges > this.limits.parentEdges
    );
  }
}

/** Work between two yields to the event loop: other requests (a `ping`, a cancel) are read meanwhile. */
const SLICE_MS = 10;

/** A pause to call often in a long walk: every 10 ms it yields to the event loop, then checks `signal`. */
export function timeSlices(signal?: AbortSignal): () => Promise<void> {
  let sliceStart = performance.now();
  return async () => {
    if (performance.now() - sliceStart < SLICE_MS) return;
    await new Promise<void>((resolve) => setImmediate(resolve));
    signal?.throwIfAborted();
    sliceStart = performance.now();
  };
}
