/**
 * `src/workflows/run-metrics.ts` with every recording left out (bench-only): `b1-threads.ts` bundles
 * it in its place to measure what the workflow's metrics cost a step (their sink calls cross from
 * the workflow thread to the main thread, exported or not).
 */

/** Records nothing. */
export function meterEvent(): void {}

/** Records nothing. */
export function meterCall(): void {}
