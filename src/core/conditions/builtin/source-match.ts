/**
 * `source_match: [agents]` (or one agent): holds once one of these agents produced a result this
 * round (AutoGen SourceMatchTermination). Only agent results count, never the task, so a run
 * cannot end before the agent has answered. A state condition that stays true for the rest of
 * the round: an agent's latest result is kept until the round ends.
 */
import type { Path } from '../../config/issues';
import { capitalize } from '../texts';
import { fromSchema, oneOrMoreNames, nameIn, type ConditionPlugin } from '../plugin';
import { registerBuiltinCondition } from '../store';
import type { TerminationView } from '../view';

/** Compiled form. */
export interface SourceMatch {
  kind: 'source_match';
  /** The agents, in the order written. */
  sources: string[];
}


/** The first of the sources, in list order, that has a result this round. */
function answered(c: SourceMatch, v: TerminationView): string | undefined {
  return c.sources.find((a) => Object.prototype.hasOwnProperty.call(v.latest, a));
}

/** The agents a raw value names: one, or each of a list, located under the key. */
function namedSources(value: unknown): Array<{ agent: string; path: Path }> {
  const located: Array<{ v: unknown; path: Path }> = Array.isArray(value) ? value.map((v, i) => ({ v, path: [i] })) : [{ v: value, path: [] }];
  return located.flatMap(({ v, path }) => {
    const agent = nameIn(v);
    return agent === undefined || agent === '' ? [] : [{ agent, path }];
  });
}

/** The `source_match` condition. */
export const sourceMatch: ConditionPlugin<SourceMatch> = {
  ...fromSchema(oneOrMoreNames(), (sources): SourceMatch => ({ kind: 'source_match', sources })),
  agents: namedSources,
  holds: (c, v) => answered(c, v) !== undefined,
  reason: 'source_match', priority: 1,
  reasonText: (c, v) => `source_match: '${answered(c, v) ?? c.sources[0]}' answered`,
  describe: (c) => `${c.sources.map(capitalize).join(' or ')} answers`,
  label: (c) => `${c.sources.join(' or ')} answered`,
};

registerBuiltinCondition('source_match', sourceMatch);
