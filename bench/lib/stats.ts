/**
 * Small statistics helpers for the benchmarks: percentiles, medians and a least-squares line, so
 * every benchmark summarises samples the same way.
 */

/** The p-th percentile (0–100) of the samples, linear interpolation between ranks; NaN when empty. */
export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = (p / 100) * (sorted.length - 1);
  const lo = Math.floor(rank);
  const hi = Math.ceil(rank);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (rank - lo);
}

/** The median of the samples. */
export function median(samples: readonly number[]): number {
  return percentile(samples, 50);
}

/** The arithmetic mean of the samples; NaN when empty. */
export function mean(samples: readonly number[]): number {
  return samples.length === 0 ? Number.NaN : samples.reduce((a, b) => a + b, 0) / samples.length;
}

/** Summary of a latency sample in one shape for every table. */
export interface Summary {
  n: number;
  p50: number;
  p95: number;
  p99: number;
  mean: number;
  min: number;
  max: number;
}

/** Summarises a sample (n, p50/p95/p99, mean, min, max). */
export function summarize(samples: readonly number[]): Summary {
  return {
    n: samples.length,
    p50: percentile(samples, 50),
    p95: percentile(samples, 95),
    p99: percentile(samples, 99),
    mean: mean(samples),
    min: samples.length ? Math.min(...samples) : Number.NaN,
    max: samples.length ? Math.max(...samples) : Number.NaN,
  };
}

/** A least-squares line y = intercept + slope·x with its coefficient of determination. */
export interface LinearFit {
  slope: number;
  intercept: number;
  r2: number;
}

/** Fits y = a + b·x by least squares (replay time vs events, bytes vs iteration). */
export function linearFit(xs: readonly number[], ys: readonly number[]): LinearFit {
  const n = xs.length;
  const mx = mean(xs);
  const my = mean(ys);
  let sxy = 0;
  let sxx = 0;
  let syy = 0;
  for (let i = 0; i < n; i++) {
    sxy += (xs[i] - mx) * (ys[i] - my);
    sxx += (xs[i] - mx) ** 2;
    syy += (ys[i] - my) ** 2;
  }
  const slope = sxx === 0 ? 0 : sxy / sxx;
  const intercept = my - slope * mx;
  const r2 = syy === 0 ? 1 : (sxy * sxy) / (sxx * syy);
  return { slope, intercept, r2 };
}

/** Successive differences of a sorted series (arrival times → per-step intervals). */
export function intervals(times: readonly number[]): number[] {
  const out: number[] = [];
  for (let i = 1; i < times.length; i++) out.push(times[i] - times[i - 1]);
  return out;
}

/** Rounds to `digits` decimals for the JSON and the tables (keeps NaN as null-able NaN). */
export function round(x: number, digits = 2): number {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}
