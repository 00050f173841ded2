/**
 * Gathering the {@link Situation} a decision reads from the run state: the round's termination view,
 * the loop cap, the budgets (before a wave: including the wave about to start), the requests and the
 * pauses. Pure: the workflow passes in its time and what the last wave brought.
 */
import { checkWaveBudget } from '../budgets/ledger';
import { shareWave, waveParties } from '../budgets/shares';
import type { CompiledGraph } from '../graph/types';
import { awaitingHumans, holdsResults } from '../humans/requests';
import { activeMs } from '../state/clock';
import type { RunState } from '../state/state';
import { terminationView } from '../state/view';
import { evaluateTermination } from '../conditions/evaluate';
import { hardCapReached } from '../waves/routing';
import type { DecisionPoint, Situation } from './decide';
import type { RunEnd } from './result';

/** What the last wave brought that the next decision must see (reset when a wave starts). */
export interface WaveEffects {
  /** An agent failed, or its prompt could not be prepared. */
  failure?: RunEnd;
  /** A durable timer fired and the termination expression held. */
  timedOut?: RunEnd;
  /** The wave's `goal` tool events completed or blocked the goal. */
  goalEnd?: RunEnd;
}

/** The situation at `point` of the loop, at workflow time `now`. */
export function situationOf(state: RunState, graph: CompiledGraph, point: DecisionPoint, wave: WaveEffects, now: number): Situation {
  const cap = hardCapReached(graph, state.round.loopCounters);
  const waveSize = point === 'after_wave' ? 0 : point === 'before_retry' ? 1 : state.frontier.length;
  return {
    point,
    ...(state.stop ? { stop: state.stop } : {}),
    ...wave,
    paused: state.paused,
    goalPaused: state.goal?.status === 'paused',
    awaitingHumans: awaitingHumans(state),
    holdsResults: holdsResults(state),
    frontierEmpty: state.frontier.length === 0,
    exits: state.round.exits,
    termination: point === 'before_retry' ? null : evaluateTermination(graph.termination, terminationView(state, now)),
    cap: cap ? { group: cap.group, cap: graph.maxIterations } : null,
    ...(graph.maxTurns !== undefined && state.round.messages >= graph.maxTurns ? { turns: graph.maxTurns } : {}),
    budget: waveBudget(state, graph, point, waveSize, now),
  };
}

/**
 * The budget check before a wave: a crossed budget, a wave past `max_agent_calls`, or team agents
 * whose shares of what is left cannot each cover what they need (`core/budgets/shares.ts`).
 */
function waveBudget(state: RunState, graph: CompiledGraph, point: DecisionPoint, waveSize: number, now: number) {
  const active = activeMs(state, now);
  const crossed = checkWaveBudget(graph.budget, state.usage, active, waveSize);
  if (crossed || point !== 'before_wave') return crossed;
  return shareWave(graph.budget, state.usage, active, waveParties(graph, state.frontier.map((w) => w.agent))).short ?? null;
}
