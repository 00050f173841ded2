/**
 * `converged: agent` or `converged: { agent, criteria }`: holds when the judge said the agent's
 * latest result of this round meets the criteria (the task by default). The run asks the judge
 * after each result of the agent; a verdict counts only for the result it judged.
 */
import { z } from 'zod';
import { capitalize } from '../texts';
import { fieldOf, fromSchema, nameIn, type ConditionPlugin } from '../plugin';
import { registerBuiltinCondition } from '../store';
import { verdictKey, type TerminationView } from '../view';

/** Compiled form. */
export interface Converged {
  kind: 'converged';
  agent: string;
  criteria?: string;
}

const schema = z.union([
  z.string().min(1),
  z.strictObject({ agent: z.string().min(1), criteria: z.string().min(1).optional() }),
]);

/** The judge's verdict when it accepted the agent's latest result. */
function acceptedVerdict(c: Converged, v: TerminationView) {
  const verdict = v.verdicts[verdictKey(c.agent, c.criteria)];
  const latest = v.latest[c.agent];
  return verdict && verdict.converged && latest && verdict.hash === latest.hash ? verdict : undefined;
}

/** The `converged` condition. */
export const converged: ConditionPlugin<Converged> = {
  ...fromSchema(
    schema,
    (d): Converged =>
      typeof d === 'string'
        ? { kind: 'converged', agent: d.trim() }
        : { kind: 'converged', agent: d.agent.trim(), ...(d.criteria !== undefined && { criteria: d.criteria }) },
  ),
  agents: (value) => {
    const agent = nameIn(value) ?? nameIn(fieldOf(value, 'agent'));
    return agent === undefined ? [] : [{ agent, path: ['agent'] }];
  },
  holds: (c, v) => acceptedVerdict(c, v) !== undefined,
  reason: 'converged', priority: 0,
  reasonText: (c, v) => {
    const judgeReason = acceptedVerdict(c, v)?.reason;
    return `converged: judge accepted ${c.agent}${judgeReason ? ` (${judgeReason})` : ''}`;
  },
  describe: (c) => `${capitalize(c.agent)} approves`,
  label: (c) => `${c.agent} converged`,
  judgeTargets: (c) => [c.criteria === undefined ? { agent: c.agent } : { agent: c.agent, criteria: c.criteria }],
};

registerBuiltinCondition('converged', converged);
