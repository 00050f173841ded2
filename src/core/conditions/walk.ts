/**
 * The one walker over condition trees. A tree mirrors its YAML: item `j` of an `any_of`/`all_of`
 * at path `P` sits at `[...P, kind, j]`. The walker answers what the compiler and the run need to
 * know about a termination expression and the edges' `when` guards (which agents to judge, how many
 * result hashes to keep, the durable timers, the score contract, line-structured text, the round's
 * event latches, what bounds the loops) and locates condition items for the validator. Pure.
 */
import type { Path } from '../config/issues';
import type { AgentMention, ParsedCondition } from './parse';
import type { ConditionPattern, ConditionPlugin, JudgeTarget, LoopBound } from './plugin';
import { pluginOf } from './registry';
import type { Condition, Termination } from './types';
import { verdictKey } from './view';

/** Anything that may carry a guard condition, e.g. a compiled edge. */
interface Guarded {
  when?: Condition;
}

/** All conditions in `c`, depth first, itself included. */
function flatten(c: Condition): Condition[] {
  return c.kind === 'any_of' || c.kind === 'all_of' ? [c, ...c.items.flatMap(flatten)] : [c];
}

/** Every condition of the expression and of the guards, nested ones included, in list order. */
function* allConditions(t: Termination, edges: readonly Guarded[] = []): Generator<Condition> {
  const roots = [...t.anyOf, ...t.allOf, ...edges.flatMap((e) => (e.when ? [e.when] : []))];
  for (const root of roots) yield* flatten(root);
}

/**
 * Whether a termination condition ends the run when an agent transfers to `user` (`handoff: user`),
 * so that the transfer asks nobody (docs/teams.md, "Handoffs").
 */
export function endsAtUserHandoff(t: Termination): boolean {
  return endingAlone(t).some((c) => c.kind === 'handoff' && (c as { target?: unknown }).target === 'user');
}

/** Ask a leaf's plugin; undefined for composites, keys nobody registered, and plugins without the hook. */
function ask<T>(c: Condition, question: (plugin: ConditionPlugin<unknown>, params: unknown) => T | undefined): T | undefined {
  if (c.kind === 'any_of' || c.kind === 'all_of') return undefined;
  const { plugin, params } = pluginOf(c);
  return plugin ? question(plugin, params) : undefined;
}

/** A leaf's latch, bound to its params. */
function latchOf(c: Condition): { key: string; fires: (agent: string, normalizedText: string) => boolean } | undefined {
  return ask(c, (plugin, params) => {
    const latch = plugin.latch;
    return latch && { key: latch.key(params), fires: (agent, text) => latch.fires(params, agent, text) };
  });
}

/**
 * Set every latch (of the expression and the guards) that this agent result fires. Only agent
 * results come here, never the task text, so a task that quotes a stop word cannot end its own
 * run. Returns `latches` itself when nothing new latched, else a new object.
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
    const latch = latchOf(c);
    if (!latch || next[latch.key] || !latch.fires(agent, normalizedText)) continue;
    next = { ...next, [latch.key]: true };
  }
  return next;
}

/** The (agent, criteria) pairs to judge after an agent completes, deduplicated, guards included. */
export function judgeTargets(t: Termination, edges: readonly Guarded[] = []): JudgeTarget[] {
  const seen = new Set<string>();
  const out: JudgeTarget[] = [];
  for (const c of allConditions(t, edges)) {
    for (const target of ask(c, (plugin, params) => plugin.judgeTargets?.(params)) ?? []) {
      const key = verdictKey(target.agent, target.criteria);
      if (seen.has(key)) continue;
      seen.add(key);
      out.push(target);
    }
  }
  return out;
}

/** Whether any of the conditions needs the convergence judge. */
export function usesJudge(conditions: readonly Condition[]): boolean {
  return judgeTargets({ anyOf: [...conditions], allOf: [] }).length > 0;
}

/** Hashes per agent every view keeps, whatever the conditions: enough to tell a repeated result (plugins may rely on it). */
const MIN_HASH_WINDOW = 2;

/** How many recent hashes per agent the run state must keep: the largest any condition asks for, at least {@link MIN_HASH_WINDOW}. */
export function hashWindow(t: Termination, edges: readonly Guarded[] = []): number {
  let n = MIN_HASH_WINDOW;
  for (const c of allConditions(t, edges)) n = Math.max(n, ask(c, (plugin, params) => plugin.hashWindow?.(params)) ?? 0);
  return n;
}

/** The active round times (ms) at which a durable timer must fire, in list order. Guards are read, not timed. */
export function timersMs(t: Termination): number[] {
  return [...allConditions(t)].flatMap((c) => {
    const ms = ask(c, (plugin, params) => plugin.timerMs?.(params));
    return ms === undefined ? [] : [ms];
  });
}

/**
 * The earliest timer of the expression; undefined when there is none.
 * @internal exported for tests
 */
export function timeoutMs(t: Termination): number | undefined {
  const timers = timersMs(t);
  return timers.length > 0 ? Math.min(...timers) : undefined;
}

/** Agents whose results a condition reads a `score: N` from (their prompts ask for it), deduplicated. */
export function scoreReaders(t: Termination, edges: readonly Guarded[] = []): string[] {
  const out: string[] = [];
  for (const c of allConditions(t, edges)) {
    for (const agent of ask(c, (plugin, params) => plugin.scoreReaders?.(params)) ?? []) if (!out.includes(agent)) out.push(agent);
  }
  return out;
}

/** Whether a condition reads results with their line structure (then the run keeps it). */
export function readsLines(t: Termination, edges: readonly Guarded[] = []): boolean {
  for (const c of allConditions(t, edges)) if (ask(c, (plugin, params) => plugin.readsLines?.(params)) === true) return true;
  return false;
}

/** How a condition bounds loops, if it does. */
export function loopBoundOf(c: Condition): LoopBound | undefined {
  return ask(c, (plugin, params) => plugin.loopBound?.(params));
}

/** Leaves of `c` that make it hold by themselves (through any_of items and one-item all_of lists). */
function leavesThatEndAlone(c: Condition): Condition[] {
  if (c.kind === 'any_of') return c.items.flatMap(leavesThatEndAlone);
  if (c.kind === 'all_of') return c.items.length === 1 ? leavesThatEndAlone(c.items[0]) : [];
  return [c];
}

/** The leaves that end the run by themselves when they hold (see {@link loopBounds}). */
function endingAlone(t: Termination): Condition[] {
  return [...t.anyOf.flatMap(leavesThatEndAlone), ...(t.allOf.length === 1 ? leavesThatEndAlone(t.allOf[0]) : [])];
}

/**
 * The loop bounds of the expression's conditions (nested ones included, guards not), each with
 * whether its condition ends the run by itself when it holds: an item of `any_of` (nested any_of
 * included) or the only item of a one-item `all_of`. A leaf beside other `all_of` items does not:
 * it holds without stopping the run.
 */
export function loopBounds(t: Termination): Array<{ bound: LoopBound; endsAlone: boolean }> {
  const alone = new Set(endingAlone(t));
  return [...allConditions(t)].flatMap((c) => {
    const bound = loopBoundOf(c);
    return bound ? [{ bound, endsAlone: alone.has(c) }] : [];
  });
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

/** Every leaf of `c` with the YAML path of its key (`path` is the item's), nested lists included. */
function leavesAt(c: Condition, path: Path): Array<{ leaf: Condition; path: Path }> {
  if (c.kind === 'any_of' || c.kind === 'all_of') return c.items.flatMap((item, i) => leavesAt(item, [...path, c.kind, i]));
  return [{ leaf: c, path: [...path, c.kind === 'custom' ? c.key : c.kind] }];
}

/**
 * The regular expressions the valid condition items run on agent output (termination and `when`
 * guards), each with the absolute YAML path of its value, for the backtracking check.
 */
export function conditionPatterns(located: readonly LocatedCondition[]): ConditionPattern[] {
  return located.flatMap(({ condition, path }) =>
    condition
      ? leavesAt(condition, path).flatMap(({ leaf, path: at }) =>
          (ask(leaf, (plugin, params) => plugin.patterns?.(params)) ?? []).map((p) => ({ ...p, path: [...at, ...p.path] })),
        )
      : [],
  );
}
