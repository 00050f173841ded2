/**
 * `max_iterations: N`: holds once some loop group's counter reaches N this round. It also bounds
 * the loops: without a configured `collaboration.max_iterations`, the hard cap is at least N. Its
 * reason is the hard cap's too, whose status, priority and hint `core/ending/reasons.ts` lists.
 */
import { LoopCapSchema } from '../../config/schema';
import { fromSchema, type ConditionPlugin } from '../plugin';
import { registerBuiltinCondition } from '../store';
import type { TerminationView } from '../view';

/** Compiled form. */
export interface MaxIterations {
  kind: 'max_iterations';
  n: number;
}

/** The first loop group (in counter order) whose counter reached `n`. */
function loopAtCap(n: number, v: TerminationView): string | undefined {
  return Object.keys(v.loopCounters).find((id) => v.loopCounters[id] >= n);
}

/** The `max_iterations` condition. */
export const maxIterations: ConditionPlugin<MaxIterations> = {
  ...fromSchema(LoopCapSchema, (n): MaxIterations => ({ kind: 'max_iterations', n })),
  holds: (c, v) => loopAtCap(c.n, v) !== undefined,
  reason: 'max_iterations', priority: 3, status: 'exhausted',
  reasonText: (c, v) => {
    const group = loopAtCap(c.n, v) as string;
    return `max_iterations: loop ${group} reached ${v.loopCounters[group]}`;
  },
  describe: (c) => `${c.n} iterations`,
  label: (c) => `${c.n} iterations`,
  loopBound: (c) => ({ kind: 'iterations', n: c.n }),
};

registerBuiltinCondition('max_iterations', maxIterations);
