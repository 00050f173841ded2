/**
 * The one walker over condition trees. A tree mirrors its YAML: item `j` of an `any_of`/`all_of`
 * at path `P` sits at `[...P, kind, j]`. The walker answers what the compiler and the run need to
 * know about a termination expression and the edges' `when` guards (which agents to judge, how many
 * result hashes to keep, the durable timers, the score contract, line-structured text, the round's
 * event latches, what bounds the loops) and locates condition items for the validator. Pure.
 */
import type { Path } from '../config/issues';
import { normalizeResult } from '../waves/capture';
import type { AgentMention, ParsedCondition } from './parse';
import type { Condition, Termination } from './types';
import { verdictKey } from './view';

type TextMention = Extract<Condition, { kind: 'text_mention' }>;

/** Anything that may carry a guard condition, e.g. a compiled edge. */
export interface Guarded {
  when?: Condition;
}

/** All conditions in `c`, depth first, itself included. */
export function flatten(c: Condition): Condition[] {
  return c.kind === 'any_of' || c.kind === 'all_of' ? [c, ...c.items.flatMap(flatten)] : [c];
}

/** Every condition of the expression and of the guards, nested ones included, in list order. */
export function* allConditions(t: Termination, edges: readonly Guarded[] = []): Generator<Condition> {
  const roots = [...t.anyOf, ...t.allOf, ...edges.flatMap((e) => (e.when ? [e.when] : []))];
  for (const root of roots) yield* flatten(root);
}

/** Key of a `text_mention` latch in `TerminationView.latches` (text plus sorted sources). */
export function latchKey(c: TextMention): string {
  return `text_mention:${JSON.stringify([c.text, [...(c.sources ?? [])].sort()])}`;
}

/** The needle a text matcher looks for: normalized like the result, unless that would empty it. */
export function needleOf(text: string): string {
  return normalizeResult(text) || text;
}

/**
 * Latch every `text_mention` (of the expression and the guards) that this agent result triggers:
 * the agent is one of its `sources` (any agent when none) and the normalized text contains it. Only
 * agent results come here, never the task text, so the task cannot end its own run. Returns
 * `latches` itself when nothing new latched, else a new object.
 */
export function updateLatches(
  t: Termination,
  agent: string,
  normalizedText: string,
  latches: Record<string, true>,
  edges: readonly Guarded[] = [],
): Record<string, true> {
  let next = latches;
  for (const c of allConditions(t, edges)) {
    if (c.kind !== 'text_mention') continue;
    const key = latchKey(c);
    if (next[key]) continue;
    if (c.sources && !c.sources.includes(agent)) continue;
    if (!normalizedText.includes(needleOf(c.text))) continue;
    next = { ...next, [key]: true };
  }
  return next;
}

/** The (agent, criteria) pairs to judge after an agent completes, deduplicated, guards included. */
export function judgeTargets(
  t: Termination,
  edges: readonly Guarded[] = [],
): Array<{ agent: string; criteria?: string }> {
  const seen = new Set<string>();
  const out: Array<{ agent: string; criteria?: string }> = [];
  for (const c of allConditions(t, edges)) {
    if (c.kind !== 'converged') continue;
    const key = verdictKey(c.agent, c.criteria);
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(c.criteria === undefined ? { agent: c.agent } : { agent: c.agent, criteria: c.criteria });
  }
  return out;
}

/** Whether any of the conditions needs the convergence judge. */
export function usesJudge(conditions: readonly Condition[]): boolean {
  return judgeTargets({ anyOf: [...conditions], allOf: [] }).length > 0;
}

/** How many recent hashes per agent the run state must keep: the largest `stuck.repeats`, at least 2 (`no_changes`). */
export function hashWindow(t: Termination, edges: readonly Guarded[] = []): number {
  let n = 2;
  for (const c of allConditions(t, edges)) if (c.kind === 'stuck') n = Math.max(n, c.repeats);
  return n;
}

/** The active round times (ms) at which a durable timer must fire, in list order. Guards are read, not timed. */
export function timersMs(t: Termination): number[] {
  return [...allConditions(t)].flatMap((c) => (c.kind === 'timeout_ms' ? [c.ms] : []));
}

/** The smallest timer of the expression; undefined when there is none. */
export function timeoutMs(t: Termination): number | undefined {
  const timers = timersMs(t);
  return timers.length > 0 ? Math.min(...timers) : undefined;
}

/** Agents whose `score: N` a `score_gte` matcher reads (their prompt gets the score contract), deduplicated. */
export function scoreReaders(t: Termination, edges: readonly Guarded[] = []): string[] {
  const out: string[] = [];
  for (const c of allConditions(t, edges)) {
    if (c.kind === 'result_matches' && c.scoreGte !== undefined && !out.includes(c.agent)) out.push(c.agent);
  }
  return out;
}

/** Whether a `regex` matcher reads any agent (then results keep their line structure for it). */
export function readsLines(t: Termination, edges: readonly Guarded[] = []): boolean {
  for (const c of allConditions(t, edges)) if (c.kind === 'result_matches' && c.regex !== undefined) return true;
  return false;
}

/** The largest `max_iterations` among the conditions, nested ones included, if any. */
export function largestMaxIterations(conditions: readonly Condition[]): number | undefined {
  let best: number | undefined;
  for (const c of conditions.flatMap(flatten)) if (c.kind === 'max_iterations') best = Math.max(best ?? 0, c.n);
  return best;
}

/** Leaves of `c` that make it hold by themselves (through any_of items and one-item all_of lists). */
function leavesThatEndAlone(c: Condition): Condition[] {
  if (c.kind === 'any_of') return c.items.flatMap(leavesThatEndAlone);
  if (c.kind === 'all_of') return c.items.length === 1 ? leavesThatEndAlone(c.items[0]) : [];
  return [c];
}

/**
 * The conditions that end the run by themselves when they hold: items of `any_of` (nested any_of
 * included) and the only item of a one-item `all_of`. A leaf beside other `all_of` items is not one
 * of them: it holds without stopping the run.
 */
export function conditionsThatEndAlone(t: Termination): Condition[] {
  return [...t.anyOf.flatMap(leavesThatEndAlone), ...(t.allOf.length === 1 ? leavesThatEndAlone(t.allOf[0]) : [])];
}

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

/** Leaf conditions that sit directly in an all_of (`inAllOf` says whether `c` does), with the path of their key. */
export function allOfLeaves(c: Condition, path: Path, inAllOf: boolean): Array<{ leaf: Condition; path: Path }> {
  if (c.kind === 'any_of' || c.kind === 'all_of') {
    return c.items.flatMap((item, i) => allOfLeaves(item, [...path, c.kind, i], c.kind === 'all_of'));
  }
  return inAllOf ? [{ leaf: c, path: [...path, c.kind === 'custom' ? c.key : c.kind] }] : [];
}
