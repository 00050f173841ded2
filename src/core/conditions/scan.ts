/**
 * Walks over a termination expression (and edge guards) that the run state needs between waves:
 * which agents to judge, how many hashes to keep, the durable timer, and the round's event latches.
 */
import { normalizeResult } from '../waves/capture';
import type { Condition, Termination } from './types';

type TextMention = Extract<Condition, { kind: 'text_mention' }>;

/** Anything that may carry a guard condition, e.g. a compiled edge. */
export interface Guarded {
  when?: Condition;
}

/** Every condition of the expression and of the guards, nested ones included, in list order. */
export function* allConditions(t: Termination, edges: readonly Guarded[] = []): Generator<Condition> {
  const roots = [...t.anyOf, ...t.allOf, ...edges.flatMap((e) => (e.when ? [e.when] : []))];
  const stack = [...roots].reverse();
  while (stack.length > 0) {
    const c = stack.pop() as Condition;
    yield c;
    if (c.kind === 'any_of' || c.kind === 'all_of') stack.push(...[...c.items].reverse());
  }
}

/**
 * Key of a judge verdict in `TerminationView.verdicts`: the agent alone, or `agent:criteria`
 * (agent names cannot contain `:`).
 */
export function verdictKey(agent: string, criteria?: string): string {
  return criteria === undefined ? agent : `${agent}:${criteria}`;
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
 * agent results come here, never the task text (AutoGen #6826). Returns `latches` itself when
 * nothing new latched, else a new object.
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

/** How many recent hashes per agent the run state must keep: the largest `stuck.repeats`, at least 2 (`no_changes`). */
export function stuckWindow(t: Termination, edges: readonly Guarded[] = []): number {
  let n = 2;
  for (const c of allConditions(t, edges)) if (c.kind === 'stuck') n = Math.max(n, c.repeats);
  return n;
}

/** The smallest `timeout_ms` in the expression, for the durable timer; undefined when there is none. Guards are read, not timed. */
export function timeoutMs(t: Termination): number | undefined {
  let ms: number | undefined;
  for (const c of allConditions(t)) if (c.kind === 'timeout_ms') ms = ms === undefined ? c.ms : Math.min(ms, c.ms);
  return ms;
}

/** Agents whose `score: N` a `score_gte` matcher reads (their prompt gets the score contract, §11.12), deduplicated. */
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
