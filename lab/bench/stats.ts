/**
 * Sample statistics for the benchmark: every number it prints is a median over repeated trials
 * (warm-up excluded), with the 10th and 90th percentiles to show the spread.
 */

export interface Spread {
  median: number;
  p10: number;
  p90: number;
  n: number;
}

/** Median (mean of the middle two for an even count) and nearest-rank p10 / p90. */
export function spread(samples: readonly number[]): Spread {
  if (samples.length === 0) throw new Error('no samples to summarise');
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
  const mid = sorted.length >> 1;
  const median = sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
  return { median: round(median), p10: round(at(0.1)), p90: round(at(0.9)), n: sorted.length };
}

export function median(samples: readonly number[]): number {
  return spread(samples).median;
}

/** Two (or three) significant decimals are all a noisy machine supports. */
export function round(value: number, decimals = 2): number {
  const f = 10 ** decimals;
  return Math.round(value * f) / f;
}

/** Milliseconds `fn` takes, wall clock. */
export async function timed<T>(fn: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const started = performance.now();
  const value = await fn();
  return { ms: performance.now() - started, value };
}
