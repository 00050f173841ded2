/**
 * Routing after a wave: which edges each finished agent follows, the next wave (deduplicated,
 * first-seen order, joins merged), exits taken and back edges traversed (docs/semantics.md,
 * "Routing"). Pure: `when` guards are evaluated by an injected predicate on the state after judging.
 */
import type { Condition } from '../conditions/types';
import { USER, type CompiledGraph } from '../graph/types';
import { TO_BE_SELECTED } from './types';
import { RUN_END_TEXTS } from '../ending/texts';
import { warn, type RunState } from '../state/state';
import type { WaveItem } from './types';

export type { WaveItem } from './types';


/** A finished agent as routing reads it: its text, and the transfer it made. */
interface FinishedAgent {
  agent: string;
  text: string;
  handoff?: { to: string };
}

/**
 * A team's route (docs/teams.md): in a swarm, the target of a transfer, else the same agent again;
 * in a selector team, {@link TO_BE_SELECTED}. Undefined in a graph.
 */
function teamRoute(graph: CompiledGraph, agent: string, to: string | undefined): string | undefined {
  if (graph.selector) return TO_BE_SELECTED;
  if (graph.topology !== 'swarm') return undefined;
  return to !== undefined && to !== USER ? to : agent;
}

/** What routing decided for one wave. */
interface RoutingOutcome {
  next: WaveItem[];
  /** Agents that took an exit edge, in wave order. */
  exits: string[];
  /** Indexes of back edges followed (one per traversal). */
  backEdges: number[];
  /** Agents whose branch ended with no edge to follow. */
  deadEnds: string[];
}

/**
 * Route the finished agents of a wave, in wave order. `holds(when)` answers a guard; `results` maps
 * each routed agent to the text it passes on. Agents listed in `held` are not routed (they wait for
 * a human).
 * @internal exported for tests
 */
export function routeWave(
  graph: CompiledGraph,
  finished: FinishedAgent[],
  holds: (when: Condition) => boolean,
): RoutingOutcome {
  const outcome: RoutingOutcome = { next: [], exits: [], backEdges: [], deadEnds: [] };
  const byTarget = new Map<string, WaveItem>();
  const backEdgeSet = new Set(graph.loopGroups.flatMap((g) => g.backEdges));
  const send = (to: string, from: string, text: string, transferred = false): void => {
    let item = byTarget.get(to);
    if (!item) {
      item = { agent: to, triggers: [] };
      byTarget.set(to, item);
      outcome.next.push(item);
    }
    item.triggers.push({ from, text });
    if (transferred) item.via = { kind: 'handoff', from };
  };

  for (const { agent, text, handoff } of finished) {
    const team = teamRoute(graph, agent, handoff?.to);
    if (team !== undefined) {
      send(team, agent, text, team !== agent && handoff !== undefined);
      continue;
    }
    // a transfer follows exactly its edge, whatever the edges' guards say (docs/teams.md, "Handoffs")
    const chosen = handoff ? graph.edges.findIndex((e) => e.from === agent && e.to === handoff.to && !e.exit) : -1;
    const outgoing = graph.edges
      .map((edge, index) => ({ edge, index }))
      .filter(({ edge, index }) => (chosen >= 0 ? index === chosen : edge.from === agent && !edge.handoff && (edge.when === undefined || holds(edge.when))));

    if (outgoing.some(({ edge }) => edge.exit && edge.when !== undefined)) {
      outcome.exits.push(agent);
      continue;
    }
    const forward = outgoing.filter(({ edge }) => !edge.exit);
    if (forward.length > 0) {
      for (const { edge, index } of forward) {
        if (backEdgeSet.has(index)) outcome.backEdges.push(index);
        send(edge.to, agent, text, chosen >= 0);
      }
      continue;
    }
    if (outgoing.some(({ edge }) => edge.exit)) {
      outcome.exits.push(agent);
      continue;
    }
    outcome.deadEnds.push(agent);
  }
  return outcome;
}

/**
 * Increment loop counters for the back edges followed; returns the new counters.
 * @internal exported for tests
 */
export function countBackEdges(
  graph: CompiledGraph,
  counters: Record<string, number>,
  backEdges: number[],
): Record<string, number> {
  const next = { ...counters };
  for (const index of backEdges) {
    for (const group of graph.loopGroups) {
      if (group.backEdges.includes(index)) next[group.id] = (next[group.id] ?? 0) + 1;
    }
  }
  return next;
}

/** The loop group whose counter reached the hard cap, if any. */
export function hardCapReached(
  graph: CompiledGraph,
  counters: Record<string, number>,
): { group: string; count: number } | null {
  if (graph.maxIterations <= 0) return null;
  for (const group of graph.loopGroups) {
    const count = counters[group.id] ?? 0;
    if (count >= graph.maxIterations) return { group: group.id, count };
  }
  return null;
}

/** The loop-iteration number an agent is on (its group's counter + 1, from 1), for prompts. */
export function iterationOf(graph: CompiledGraph, agent: string, counters: Record<string, number>): number {
  const group = graph.loopGroups.find((g) => g.nodes.includes(agent));
  return group ? Math.max(0, counters[group.id] ?? 0) + 1 : 1;
}

/** The iterations each loop completed, as a run shows them: a continued run's lead-in lap (counter -1, `core/state/team-state.ts`) shows as 0. */
export function completedIterations(counters: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.entries(counters).map(([group, n]) => [group, Math.max(0, n)]));
}

/** Merge routed items into a frontier: one dispatch per agent with all its triggers (joins). */
export function mergeWaves(frontier: WaveItem[], next: WaveItem[]): WaveItem[] {
  const merged = frontier.map((w): WaveItem => ({ ...w, triggers: [...w.triggers] }));
  for (const item of next) {
    const existing = merged.find((w) => w.agent === item.agent);
    if (existing) existing.triggers.push(...item.triggers);
    else merged.push({ ...item, triggers: [...item.triggers] });
  }
  return merged;
}

/**
 * Route finished agents and apply the outcome to the run state: back edges increment the round's
 * loop counters, exits are remembered, dead ends are warned about, and the routed agents join the
 * frontier. Used after a wave and after a human approves a held result, so both route alike.
 */
export function routeIntoState(
  state: RunState,
  graph: CompiledGraph,
  finished: FinishedAgent[],
  holds: (when: Condition) => boolean,
): RoutingOutcome {
  const routing = routeWave(graph, finished, holds);
  state.round.loopCounters = countBackEdges(graph, state.round.loopCounters, routing.backEdges);
  state.round.exits.push(...routing.exits);
  for (const agent of routing.deadEnds) warn(state, RUN_END_TEXTS.deadEnd(agent, state.round.round));
  state.frontier = mergeWaves(state.frontier, routing.next);
  return routing;
}

/**
 * Start the next wave: its agents are the frontier; the agents that waited behind a re-dispatched
 * (rejected) agent become the frontier again, to which the wave's routing adds. Returns the wave.
 */
export function beginWave(state: RunState): WaveItem[] {
  const items = state.frontier;
  state.frontier = state.deferred;
  state.deferred = [];
  state.round.wave += 1;
  state.round.lastWave = items.map((i) => i.agent);
  return items;
}
