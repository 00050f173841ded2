/**
 * Settings of the property-based tests: CI-sized by default, seedable, and scalable locally.
 * `TROUPE_FUZZ_SEED=<n>` replays a run (fast-check prints the seed of a failure);
 * `TROUPE_FUZZ_SCALE=<k>` multiplies every test's number of runs (e.g. 20 for a long local run).
 */
import type { Parameters } from 'fast-check';

const scale = Math.max(1, Number(process.env.TROUPE_FUZZ_SCALE ?? 1) || 1);
const seed = process.env.TROUPE_FUZZ_SEED === undefined ? undefined : Number(process.env.TROUPE_FUZZ_SEED);

/** fast-check parameters for `runs` runs at scale 1. */
export function fuzzRuns<T>(runs: number): Parameters<T> {
  return { numRuns: runs * scale, ...(seed !== undefined && Number.isFinite(seed) ? { seed } : {}) };
}

/** Signs of an uncaught JavaScript failure leaking into text meant for users. */
export const LEAKS = [/Maximum call stack/, /\[object Object\]/, /\bundefined\b/, /\bNaN\b/, /TypeError|RangeError|SyntaxError|ReferenceError/, /\n\s+at /];

/** The leaks found in `text` (none, for a good message). */
export function leaksIn(text: string): RegExp[] {
  return LEAKS.filter((re) => re.test(text));
}
