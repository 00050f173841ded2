/**
 * Deadlines for the chaos run's waits (RELIABILITY.md §1). A run that never ends must turn into a
 * report, not a driver that waits forever: `handle.result()` of a run that waits for a decision
 * nobody will send never resolves, and a retry loop's own timeout only counts its failures.
 */
import { setTimeout as delay } from 'node:timers/promises';

/** How a wait under a deadline came out: with its value, or at the deadline (its signal aborted). */
export type Deadlined<T> = { kind: 'ended'; value: T } | { kind: 'deadline'; afterMs: number };

/**
 * `wait`, raced against `ms`. At the deadline the wait's signal is aborted so it can stop its polls
 * and calls; the timer is cleared and the signal aborted however the race ends, so nothing is left to
 * keep node alive. A wait that fails before the deadline rejects with its error.
 */
export async function withinDeadline<T>(ms: number, wait: (signal: AbortSignal) => Promise<T>): Promise<Deadlined<T>> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<Deadlined<T>>((resolve) => {
    timer = setTimeout(() => resolve({ kind: 'deadline', afterMs: ms }), ms);
  });
  const waiting = wait(controller.signal).then((value): Deadlined<T> => ({ kind: 'ended', value }));
  // once the deadline has won the race, the wait's rejection (its cancelled calls) is expected
  waiting.catch(() => undefined);
  try {
    return await Promise.race([waiting, expired]);
  } finally {
    clearTimeout(timer);
    controller.abort();
  }
}

/**
 * `fn`, tried again every 500 ms while it fails (the server is away during a restart), until it
 * succeeds, `signal` is aborted or `timeoutMs` has passed; then its last error is thrown. Never
 * called once `signal` is aborted: a call started then would not be cancelled by it.
 */
export async function retrying<T>(fn: () => Promise<T>, { signal, timeoutMs = Infinity }: { signal?: AbortSignal; timeoutMs?: number } = {}): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    signal?.throwIfAborted();
    try {
      return await fn();
    } catch (err) {
      if (signal?.aborted || Date.now() > deadline) throw err;
      await pause(500, signal);
      if (signal?.aborted) throw err;
    }
  }
}

/** Wait `ms`, or less when `signal` is aborted first; never rejects. */
export async function pause(ms: number, signal?: AbortSignal): Promise<void> {
  await delay(ms, undefined, { signal }).catch(() => undefined);
}

/** Per-run deadlines of the chaos run's two phases, in ms, each counted from its phase's start. */
export interface Deadlines {
  baseline: number;
  chaos: number;
}
