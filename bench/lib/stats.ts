/** Order statistics for latency samples. Pure functions, no I/O. */

export interface Summary {
  n: number;
  min: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
  mean: number;
}

/**
 * The `p`-th percentile (0–100) of ascending `sorted` samples, interpolating linearly between the
 * two nearest ranks (the "type 7" definition spreadsheets and numpy use). `NaN` for no samples.
 */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  if (!(p >= 0 && p <= 100)) throw new RangeError(`percentile must be within 0..100, got ${p}`);
  const rank = (p / 100) * (sorted.length - 1);
  const low = Math.floor(rank);
  const high = Math.ceil(rank);
  const a = sorted[low] as number;
  const b = sorted[high] as number;
  return a + (b - a) * (rank - low);
}

export function median(samples: readonly number[]): number {
  return percentile(sortedCopy(samples), 50);
}

export function summarize(samples: readonly number[]): Summary {
  const sorted = sortedCopy(samples);
  let total = 0;
  for (const x of sorted) total += x;
  return {
    n: sorted.length,
    min: sorted[0] ?? Number.NaN,
    p50: percentile(sorted, 50),
    p90: percentile(sorted, 90),
    p99: percentile(sorted, 99),
    max: sorted[sorted.length - 1] ?? Number.NaN,
    mean: sorted.length === 0 ? Number.NaN : total / sorted.length,
  };
}

/**
 * How `y` grows with `x` between two points, as the exponent `k` of `y ∝ x^k`: 1 is linear,
 * below 1 sub-linear (fixed costs dominating), 2 quadratic.
 */
export function growthExponent(x1: number, y1: number, x2: number, y2: number): number {
  return Math.log(y2 / y1) / Math.log(x2 / x1);
}

function sortedCopy(samples: readonly number[]): number[] {
  return [...samples].sort((a, b) => a - b);
}
