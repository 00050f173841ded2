/**
 * Condition items with their YAML paths, and walks over compiled conditions (the condition tree
 * mirrors the YAML: an `any_of`/`all_of` item `j` of the condition at `P` sits at
 * `[...P, kind, j]`). Used by the validator and the cap computation. Pure.
 */
import type { Path } from '../config/issues';
import type { AgentMention, ParsedCondition } from '../conditions/parse';
import type { Condition } from '../conditions/types';

/**
 * A condition item with the YAML path of the item and where it appears. `condition` is missing
 * when the item is invalid; `agents` (absolute paths) are there either way, so the unknown-agent
 * check runs on every item.
 */
export interface LocatedCondition {
  condition?: Condition;
  agents: AgentMention[];
  path: Path;
  scope: 'termination' | 'when';
  /** True for an item of the top-level `termination.all_of` list. */
  inAllOf: boolean;
}

/** Locate a parsed item at `path`: mention paths become absolute. */
export function locateParsed(
  parsed: ParsedCondition,
  path: Path,
  scope: LocatedCondition['scope'],
  inAllOf = false,
): LocatedCondition {
  const agents = parsed.agents.map((m) => ({ ...m, path: [...path, ...m.path], item: [...path, ...m.item] }));
  return { ...(parsed.condition && { condition: parsed.condition }), agents, path, scope, inAllOf };
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

/** Leaf conditions that sit directly in an all_of (`inAllOf` says whether `c` does), with the path of their key. */
export function allOfLeaves(c: Condition, path: Path, inAllOf: boolean): Array<{ leaf: Condition; path: Path }> {
  if (c.kind === 'any_of' || c.kind === 'all_of') {
    return c.items.flatMap((item, i) => allOfLeaves(item, [...path, c.kind, i], c.kind === 'all_of'));
  }
  return inAllOf ? [{ leaf: c, path: [...path, c.kind === 'custom' ? c.key : c.kind] }] : [];
}
