/**
 * `timeout_ms: N`: holds once the round's active time reaches N ms (the clock stops while the run
 * is paused or waits for a human). A durable timer fires at N, so the round ends in the middle of
 * a wave and its in-flight calls are cancelled; and as a hard limit it ends the run even while
 * humans are awaited. In a `when` guard it is read, not timed.
 */
import { z } from 'zod';
import { fromSchema, type ConditionPlugin } from '../plugin';
import { registerBuiltinCondition } from '../store';

/** Compiled form. */
export interface TimeoutMs {
  kind: 'timeout_ms';
  ms: number;
}

/** Duration in a reason text: `120s`, `1.5s`, `0.5s`. */
function secondsText(ms: number): string {
  return `${ms / 1000}s`;
}

/** Duration in a prompt: `1min`, `30s`, `500ms` (rounded). */
function promptDuration(ms: number): string {
  if (ms >= 60_000) return `${Math.round(ms / 60_000)}min`;
  if (ms >= 1_000) return `${Math.round(ms / 1_000)}s`;
  return `${Math.round(ms)}ms`;
}

/** Duration in a picture, to a tenth: `1.5min`, `2.5s`, `500ms`. */
function pictureDuration(ms: number): string {
  if (ms >= 60_000) return `${+(ms / 60_000).toFixed(1)}min`;
  if (ms >= 1_000) return `${+(ms / 1_000).toFixed(1)}s`;
  return `${Math.round(ms)}ms`;
}

/** The `timeout_ms` condition. */
export const timeoutMs: ConditionPlugin<TimeoutMs> = {
  ...fromSchema(z.number().int().positive(), (ms): TimeoutMs => ({ kind: 'timeout_ms', ms })),
  holds: (c, v) => v.roundActiveMs >= c.ms,
  reason: 'timeout', priority: 4, status: 'exhausted',
  reasonText: (c) => `timeout: ${secondsText(c.ms)} of active time elapsed`,
  describe: (c) => `${promptDuration(c.ms)} elapsed`,
  label: (c) => `${pictureDuration(c.ms)} elapsed`,
  hint: 'raise the timeout_ms condition to allow more time',
  hard: true,
  timerMs: (c) => c.ms,
};

registerBuiltinCondition('timeout_ms', timeoutMs);
