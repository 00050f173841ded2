/**
 * `handoff: target`: holds once an agent transferred to `target` this round (AutoGen
 * HandoffTermination), `target` being an agent or `user`. The run records each transfer in the
 * round, so it stays seen for the rest of the round; with `handoff: user` the run ends instead of
 * asking a human.
 */
import { z } from 'zod';
import { USER } from '../../graph/user';
import { capitalize } from '../texts';
import { fromSchema, nameIn, type ConditionPlugin } from '../plugin';
import { registerBuiltinCondition } from '../store';
import type { TerminationView } from '../view';

/** Compiled form. */
export interface Handoff {
  kind: 'handoff';
  /** An agent, or `user`. */
  target: string;
}

/** The first transfer to the target this round. */
function transferTo(c: Handoff, v: TerminationView): { from: string; to: string } | undefined {
  return v.handoffs?.find((h) => h.to === c.target);
}

/** The `handoff` condition. */
export const handoff: ConditionPlugin<Handoff> = {
  ...fromSchema(z.string().trim().min(1), (target): Handoff => ({ kind: 'handoff', target })),
  agents: (value) => {
    const agent = nameIn(value);
    return agent === undefined || agent === '' || agent === USER ? [] : [{ agent, path: [] }];
  },
  holds: (c, v) => transferTo(c, v) !== undefined,
  reason: 'handoff', priority: 1,
  reasonText: (c, v) => {
    const h = transferTo(c, v);
    return h ? `handoff: ${h.from} handed off to ${h.to}` : `handoff: an agent handed off to ${c.target}`;
  },
  describe: (c) => (c.target === USER ? 'a handoff to the user' : `a handoff to ${capitalize(c.target)}`),
  label: (c) => `handoff to ${c.target}`,
};

registerBuiltinCondition('handoff', handoff);
