/**
 * The effective hard cap: one number that every loop group's counter is held under, per round (the
 * round ends when a counter reaches it). A configured `collaboration.max_iterations` is the cap.
 * Without one, the cap comes from the conditions' loop bounds (their plugins' `loopBound`): an
 * `iterations: N` bound (`max_iterations: N`) gives N; a `messages: N` bound (`max_messages: N`)
 * of a condition that can end the run by itself gives enough iterations for N agent results (see
 * {@link iterationsForMessages}); the largest wins. Only a cyclic graph bounded by neither gets
 * {@link DEFAULT_MAX_ITERATIONS}, with the "Cycle detected" warning. Pure.
 */
import type { LoopBound } from '../conditions/plugin';
import type { Termination } from '../conditions/types';
import { loopBounds } from '../conditions/walk';
import { PARENT, type LoopGroup } from './types';

/** Hard cap on a cyclic graph that nothing else bounds (the validator warns about it). */
const DEFAULT_MAX_ITERATIONS = 3;

type EdgeLike = { from: string; to: string; exit: boolean };

/**
 * What the cap needs to know about one loop group.
 *
 * - `ring`: every member has exactly one edge to a member, so the group is one cycle of `length`
 *   agents with one back edge, and other agents enter it only where that back edge lands. Place
 *   its members at positions 0 … length−1 along the cycle from the back edge's target; `slack` is
 *   the largest sum of positions of the agents a round can start with inside the loop (its entry
 *   wave, or, with `approval.before_exit`, the final agents a rejected round restarts from).
 * - `general`: any other shape; `backEdgesPerAgent` is the most back edges of the group that
 *   leave one member.
 * @internal exported for tests
 */
export type LoopShape =
  | { kind: 'ring'; length: number; slack: number }
  | { kind: 'general'; backEdgesPerAgent: number };

function isAgentEdge(e: { from: string; to: string }): boolean {
  return e.from !== PARENT && e.to !== PARENT;
}

/** Positions along the cycle, or undefined when the group is not a ring. */
function ringPositions(group: LoopGroup, edges: readonly EdgeLike[]): Map<string, number> | undefined {
  if (group.backEdges.length !== 1) return undefined;
  const members = new Set(group.nodes);
  const next = new Map<string, string[]>();
  for (const e of edges) {
    if (isAgentEdge(e) && members.has(e.from) && members.has(e.to)) next.set(e.from, [...(next.get(e.from) ?? []), e.to]);
  }
  if (group.nodes.some((n) => next.get(n)?.length !== 1)) return undefined;
  const positions = new Map<string, number>();
  let at = edges[group.backEdges[0]].to;
  while (!positions.has(at)) {
    positions.set(at, positions.size);
    at = next.get(at)![0];
  }
  return positions.size === group.nodes.length ? positions : undefined;
}

function sumOfPositions(agents: Iterable<string>, positions: ReadonlyMap<string, number>): number {
  let sum = 0;
  for (const a of new Set(agents)) sum += positions.get(a) ?? 0;
  return sum;
}

/** Classify a loop group for the cap (see {@link LoopShape}). */
export function loopShape(group: LoopGroup, edges: readonly EdgeLike[], beforeExit: boolean): LoopShape {
  const members = new Set(group.nodes);
  const positions = ringPositions(group, edges);
  const enteredMidway = edges.some((e) => e.from !== PARENT && !members.has(e.from) && (positions?.get(e.to) ?? 0) > 0);
  if (!positions || enteredMidway) {
    const perAgent = new Map<string, number>();
    for (const i of group.backEdges) perAgent.set(edges[i].from, (perAgent.get(edges[i].from) ?? 0) + 1);
    return { kind: 'general', backEdgesPerAgent: Math.max(1, ...perAgent.values()) };
  }
  const entry = sumOfPositions(edges.filter((e) => e.from === PARENT).map((e) => e.to), positions);
  const exiting = sumOfPositions(edges.filter((e) => e.exit && members.has(e.from)).map((e) => e.from), positions);
  const rejected = beforeExit ? Math.max(exiting, group.nodes.length - 1) : 0;
  return { kind: 'ring', length: group.nodes.length, slack: Math.max(entry, rejected) };
}

/**
 * The smallest cap that lets a round reach `messages` agent results before this loop's counter
 * reaches the cap (when both happen on the same wave the condition wins, so reaching it together
 * is enough). Writing R for the agent results of the round so far and C for the loop's counter:
 *
 * - ring of L agents with slack S: `floor((messages − 1 + S) / L) + 1`. Why it is enough: give
 *   each pending dispatch of a member at position p the potential p/L. A member's result removes
 *   its dispatch and creates at most one dispatch of its successor (p+1), or follows the back edge
 *   (C + 1, a dispatch at position 0): either way C + potential grows by at most 1/L per result;
 *   merged dispatches, exits and ended branches only lower it, and agents outside the loop add
 *   dispatches only at position 0. A round starts with potential at most S/L, so C ≤ (R + S)/L
 *   at every wave. With R ≤ messages − 1 that is below the cap, so the counter reaches the cap
 *   only once R ≥ messages, when the `max_messages` condition holds too. A round-robin of 3 with
 *   `max_messages: 10` gets 4: the tenth result is the first agent's fourth turn, with C = 3.
 * - general: `backEdgesPerAgent × (messages − 1) + 1`, because every increment is one back edge
 *   followed by one result, and one result follows at most `backEdgesPerAgent` of them, so
 *   C ≤ backEdgesPerAgent × R. Never too few, but it can be more than the loop will use.
 * @internal exported for tests
 */
export function iterationsForMessages(messages: number, shape: LoopShape): number {
  switch (shape.kind) {
    case 'ring':
      return Math.floor((messages - 1 + shape.slack) / shape.length) + 1;
    case 'general':
      return shape.backEdgesPerAgent * (messages - 1) + 1;
    default: {
      const never: never = shape;
      return never;
    }
  }
}

/** What {@link effectiveCap} reads. */
interface CapInput {
  /** `collaboration.max_iterations`, when set. */
  configured?: number;
  termination: Termination;
  loopGroups: readonly LoopGroup[];
  shapes: readonly LoopShape[];
}

/** The cap, and whether it was configured or derived from a condition (false: the default, which the validator warns about). */
interface EffectiveCap {
  cap: number;
  bounded: boolean;
}

/** Iterations every loop needs for `messages` results: the most any of them needs (0 without loops). */
export function iterationsForMessagesInAll(messages: number, shapes: readonly LoopShape[]): number {
  return Math.max(0, ...shapes.map((s) => iterationsForMessages(messages, s)));
}

/**
 * The cap one loop bound asks for: an `iterations` bound its N wherever it sits; a `messages` bound
 * the iterations its N results need, but only when its condition ends the run alone (beside other
 * `all_of` items it holds without stopping anything).
 */
function capFor(bound: LoopBound, endsAlone: boolean, shapes: readonly LoopShape[]): number | undefined {
  switch (bound.kind) {
    case 'iterations':
      return bound.n;
    case 'messages':
      return endsAlone ? iterationsForMessagesInAll(bound.n, shapes) : undefined;
    default: {
      const never: never = bound;
      return never;
    }
  }
}

/** The effective hard cap (module doc). 0 on an acyclic graph without a configured cap. */
export function effectiveCap(input: CapInput): EffectiveCap {
  if (input.configured !== undefined) return { cap: input.configured, bounded: true };
  if (input.loopGroups.length === 0) return { cap: 0, bounded: true };
  const derived = loopBounds(input.termination).flatMap(({ bound, endsAlone }) => {
    const cap = capFor(bound, endsAlone, input.shapes);
    return cap === undefined ? [] : [cap];
  });
  return derived.length === 0 ? { cap: DEFAULT_MAX_ITERATIONS, bounded: false } : { cap: Math.max(...derived), bounded: true };
}
