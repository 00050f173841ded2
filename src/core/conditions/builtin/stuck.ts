/**
 * `stuck: { repeats: N, agent? }`: holds when the last N results of one agent this round (of the
 * named agent, when given) are identical, compared by hash. The run keeps the last N hashes of
 * each agent for it.
 */
import { z } from 'zod';
import { CONFIG_MESSAGES as M } from '../../config/messages';
import { agentField, fromSchema, type ConditionPlugin } from '../plugin';
import { registerBuiltinCondition } from '../store';
import type { TerminationView } from '../view';

/** Compiled form. */
export interface Stuck {
  kind: 'stuck';
  repeats: number;
  agent?: string;
}

const schema = z.strictObject({
  repeats: z.number().int(M.integerAtLeast(2)).min(2, M.integerAtLeast(2)),
  agent: z.string().min(1).optional(),
});

/** Whether the last `repeats` hashes are all equal. */
function repeated(hashes: readonly string[] | undefined, repeats: number): boolean {
  if (!hashes || hashes.length < repeats) return false;
  const tail = hashes.slice(hashes.length - repeats);
  return tail.every((h) => h === tail[0]);
}

/** The first agent (the named one, or any) whose last results repeat. */
function stuckAgent(c: Stuck, v: TerminationView): string | undefined {
  const agents = c.agent !== undefined ? [c.agent] : Object.keys(v.hashes);
  return agents.find((a) => repeated(v.hashes[a], c.repeats));
}

/** The `stuck` condition. */
export const stuck: ConditionPlugin<Stuck> = {
  ...fromSchema(schema, (d): Stuck => ({ kind: 'stuck', repeats: d.repeats, ...(d.agent !== undefined && { agent: d.agent.trim() }) })),
  agents: agentField,
  holds: (c, v) => stuckAgent(c, v) !== undefined,
  reason: 'stuck', priority: 2, status: 'exhausted',
  reasonText: (c, v) => `stuck: ${stuckAgent(c, v) as string} repeated the same result ${c.repeats} times`,
  describe: (c) => `${c.repeats} repeated identical results`,
  label: (c) => `${c.repeats} identical results${c.agent ? ` from ${c.agent}` : ''}`,
  hint: 'an agent kept returning the same result; revise its instructions or raise stuck.repeats',
  hashWindow: (c) => c.repeats,
};

registerBuiltinCondition('stuck', stuck);
