import Bottleneck from "bottleneck/light.js";

let applied = false;

/**
 * Bottleneck — the scheduler inside Octokit's throttling and retry plugins — yields to the event
 * loop with `setTimeout(resolve, 0)` several times per scheduled job. Runtimes clamp such timers
 * to at least 1 ms, and each GitHub request passes through three limiters, so the yields alone add
 * about 10 ms per request (a third of a round trip on a fast network). Yielding with `setImmediate`
 * still runs the continuation on a later turn of the event loop, without the clamp. Timed waits
 * (rate-limit and retry back-off) are untouched. If Bottleneck's internals ever change shape this
 * does nothing.
 */
export function useFastSchedulerYields(): void {
  if (applied) return;
  applied = true;
  try {
    const limiter = new Bottleneck() as unknown as { _store?: object };
    const store = limiter._store ? (Object.getPrototypeOf(limiter._store) as Record<string, unknown>) : null;
    const original = store?.yieldLoop;
    if (!store || typeof original !== "function") return;
    store.yieldLoop = function yieldLoop(this: { Promise: PromiseConstructor }, t = 0): Promise<void> {
      if (t > 0) return (original as (t: number) => Promise<void>).call(this, t);
      return new this.Promise<void>((resolve) => setImmediate(resolve));
    };
  } catch {
    // Keep Bottleneck as it is.
  }
}
