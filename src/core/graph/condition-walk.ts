/**
 * Walks over compiled conditions with their YAML paths (the condition tree mirrors the YAML: an
 * `any_of`/`all_of` item `j` of the condition at `P` sits at `[...P, kind, j]`). Used by the
 * validator and the cap computation. Pure.
 */
import type { Path } from '../config/issues';
import type { Condition } from '../termination/types';

/** A condition with the YAML path of its item and where it appears. */
export interface LocatedCondition {
  condition: Condition;
  path: Path;
  scope: 'termination' | 'when';
  /** True for an item of the top-level `termination.all_of` list. */
  inAllOf: boolean;
}

/** An agent named by a condition, with the path of the name. */
export interface AgentRef {
  kind: Condition['kind'];
  agent: string;
  path: Path;
}

/** Every agent named by `c` (converged, result_matches, stuck, text_mention sources), nested too. */
export function agentRefs(c: Condition, path: Path): AgentRef[] {
  switch (c.kind) {
    case 'converged':
    case 'result_matches':
      return [{ kind: c.kind, agent: c.agent, path: [...path, c.kind, 'agent'] }];
    case 'stuck':
      return c.agent === undefined ? [] : [{ kind: c.kind, agent: c.agent, path: [...path, 'stuck', 'agent'] }];
    case 'text_mention':
      return (c.sources ?? []).map((agent, i) => ({ kind: c.kind, agent, path: [...path, 'text_mention', 'sources', i] }));
    case 'any_of':
    case 'all_of':
      return c.items.flatMap((item, i) => agentRefs(item, [...path, c.kind, i]));
    case 'max_iterations':
    case 'timeout_ms':
    case 'signal_observed':
    case 'max_messages':
    case 'token_usage':
    case 'custom':
      return [];
    default: {
      const never: never = c;
      return never;
    }
  }
}

/** All conditions in `c`, depth first, itself included. */
export function flatten(c: Condition): Condition[] {
  return c.kind === 'any_of' || c.kind === 'all_of' ? [c, ...c.items.flatMap(flatten)] : [c];
}

/** The largest `max_iterations` among the conditions, if any. */
export function largestMaxIterations(conditions: readonly Condition[]): number | undefined {
  let best: number | undefined;
  for (const c of conditions.flatMap(flatten)) if (c.kind === 'max_iterations') best = Math.max(best ?? 0, c.n);
  return best;
}

/** Whether any condition needs the convergence judge. */
export function usesJudge(conditions: readonly Condition[]): boolean {
  return conditions.flatMap(flatten).some((c) => c.kind === 'converged');
}

/** `max_iterations` conditions that sit directly in an all_of (`inAllOf` says whether `c` does), with paths. */
export function allOfMaxIterations(c: Condition, path: Path, inAllOf: boolean): Array<{ n: number; path: Path }> {
  if (c.kind === 'max_iterations') return inAllOf ? [{ n: c.n, path: [...path, 'max_iterations'] }] : [];
  if (c.kind === 'any_of' || c.kind === 'all_of') {
    return c.items.flatMap((item, i) => allOfMaxIterations(item, [...path, c.kind, i], c.kind === 'all_of'));
  }
  return [];
}
