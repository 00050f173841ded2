/**
 * `signal_observed: type` (also the string `"signal_observed(type)"`): holds once a signal of that
 * type was received this round, from a human (`troupe signal`) or from an agent's `signal` tool.
 * An event: it stays seen for the rest of the round.
 */
import { z } from 'zod';
import { CONFIG_MESSAGES as M } from '../../config/messages';
import { SIGNAL_TYPE_RE } from '../../config/schema';
import { fromSchema, type ConditionPlugin } from '../plugin';
import { registerBuiltinCondition } from '../store';

/** Compiled form. */
export interface SignalObserved {
  kind: 'signal_observed';
  type: string;
}

/** The `signal_observed` condition. */
export const signalObserved: ConditionPlugin<SignalObserved> = {
  ...fromSchema(z.string().regex(SIGNAL_TYPE_RE, M.signalType), (type): SignalObserved => ({ kind: 'signal_observed', type })),
  callForm: true,
  holds: (c, v) => v.signals.includes(c.type),
  reason: 'signal', priority: 1,
  reasonText: (c) => `signal: received ${JSON.stringify(c.type)}`,
  describe: (c) => `signal ${JSON.stringify(c.type)} observed`,
  label: (c) => `signal ${c.type}`,
};

registerBuiltinCondition('signal_observed', signalObserved);
