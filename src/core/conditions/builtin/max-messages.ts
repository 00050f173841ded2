/**
 * `max_messages: N`: holds once this round has N agent results (not the task, user messages or
 * retries). It also bounds the loops: when it can end the run by itself and no cap is configured,
 * the hard cap leaves room for N results.
 */
import { z } from 'zod';
import { fromSchema, type ConditionPlugin } from '../plugin';
import { registerBuiltinCondition } from '../store';

/** Compiled form. */
export interface MaxMessages {
  kind: 'max_messages';
  n: number;
}

/** The `max_messages` condition. */
export const maxMessages: ConditionPlugin<MaxMessages> = {
  ...fromSchema(z.number().int().positive(), (n): MaxMessages => ({ kind: 'max_messages', n })),
  holds: (c, v) => v.messages >= c.n,
  reason: 'max_messages', priority: 3, status: 'exhausted',
  reasonText: (c, v) => `max_messages: ${v.messages} agent results >= ${c.n}`,
  describe: (c) => `${c.n} messages`,
  label: (c) => `${c.n} messages`,
  hint: 'raise the max_messages condition to allow more agent results',
  loopBound: (c) => ({ kind: 'messages', n: c.n }),
};

registerBuiltinCondition('max_messages', maxMessages);
