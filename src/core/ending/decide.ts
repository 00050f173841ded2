/**
 * Why a run ends, in one place: every end it can have ({@link ENDS}, nothing else builds a
 * {@link RunEnd}) and what the run loop does next. A condition's or a budget's status and reason are
 * declared by the condition plugin (`core/conditions/builtin/`) or the budget (`budgets/ledger.ts`)
 * and turned into an end here.
 *
 * What the run loop does next is decided here too. Between waves `situationOf` gathers a
 * {@link Situation} from the run state (signals received, the wave's failure or goal events, the
 * termination conditions, the loop cap, the budgets, before a wave including the wave about to
 * start, requests waiting for humans) and `decideNext` turns it into one {@link NextStep}: run the
 * next wave, wait, or end. When several ends apply, `pickEnd` chooses
 * by the priority of their reasons (`core/ending/reasons.ts`; lower wins, ties by candidate order).
 * Pure and unit-tested; the workflow only carries the step out (docs/architecture.md, "The run loop").
 */
import { checkWaveBudget, type BudgetStop } from '../budgets/ledger';
import { evaluateTermination, type Stop } from '../conditions/evaluate';
import { endsWhileWaiting, priorityOf } from './reasons';
import type { Diagnostics, RunEnd } from './result';
import { RUN_END_TEXTS } from './texts';
import { shareWave, waveParties } from '../budgets/shares';
import type { CompiledGraph } from '../graph/types';
import { awaitingHumans, holdsResults } from '../humans/requests';
import { activeMs } from '../state/clock';
import type { RunState } from '../state/state';
import { terminationView } from '../state/view';
import { hardCapReached } from '../waves/routing';
import { GOAL_TEXTS, type GoalState } from '../goals';

/** What the loop does next. */
export type NextStep =
  /** Dispatch the frontier as the next wave. */
  | { kind: 'run_wave' }
  /** Wait, clocks stopped, until a signal changes the situation. */
  | { kind: 'wait'; for: 'humans' | 'goal' | 'pause' }
  /** The round's graph stopped: completion checks and `before_exit` may still continue the run. */
  | { kind: 'end_round'; end: RunEnd }
  /** The run ends now, with no further check, approval or round. */
  | { kind: 'end_run'; end: RunEnd };

/**
 * Where in the loop the decision is taken: before a wave of the graph, after one, or before a final
 * agent is re-dispatched alone at the round's end (a schema retry or a completion check's request),
 * where termination and the loop cap are not re-evaluated.
 */
export type DecisionPoint = 'before_wave' | 'after_wave' | 'before_retry';

/** Everything the decision reads, gathered by the workflow from the run state. */
export interface Situation {
  point: DecisionPoint;
  /** `stop` was received (with its reason). */
  stop?: { reason?: string };
  /** The last wave failed: an agent failed, compaction tripped its breaker, a prompt did not fit. */
  failure?: RunEnd;
  /** A durable timer fired during the last wave and the termination expression then held. */
  timedOut?: RunEnd;
  /** The `pause` signal holds the run. */
  paused: boolean;
  /** The `goal` tool paused the goal; `resume` makes it active again. */
  goalPaused: boolean;
  /** Requests wait for a human decision. */
  awaitingHumans: boolean;
  /** Agent results are held back from routing (open requests, or decisions not yet acted on). */
  holdsResults: boolean;
  /** The next wave is empty. */
  frontierEmpty: boolean;
  /** Agents that took an exit edge this round. */
  exits: readonly string[];
  /** The last wave's `goal` tool events completed or blocked the goal. */
  goalEnd?: RunEnd;
  /** The termination expression, evaluated now. */
  termination: Stop | null;
  /** A loop group whose counter reached the hard cap. */
  cap: { group: string; cap: number } | null;
  /** A swarm or selector team reached its turns this round (`max_turns`). */
  turns?: number;
  /** A crossed budget (before a wave: including a wave that would cross `max_agent_calls`). */
  budget: BudgetStop | null;
}

/** A step that ends: through the round end when the status allows completion checks, else at once. */
function endStep(end: RunEnd): NextStep {
  return end.status === 'completed' || end.status === 'exhausted' ? { kind: 'end_round', end } : { kind: 'end_run', end };
}

/**
 * The end with the best (lowest) priority among the candidates; ties go to the earlier candidate.
 * Undefined when there is none.
 * @internal exported for tests
 */
export function pickEnd(candidates: ReadonlyArray<RunEnd | undefined | null>): RunEnd | undefined {
  let best: RunEnd | undefined;
  let bestPriority = Infinity;
  for (const c of candidates) {
    if (!c) continue;
    const p = priorityOf(c.reason);
    if (p < bestPriority) {
      best = c;
      bestPriority = p;
    }
  }
  return best;
}

/**
 * How a round's graph ends once its next wave is empty: `exit` when an agent exited, else `dead_end`.
 * @internal exported for tests
 */
export function graphEnd(exits: readonly string[]): RunEnd {
  return exits.length > 0
    ? { status: 'completed', reason: 'exit', reasonText: RUN_END_TEXTS.exit([...exits]) }
    : { status: 'exhausted', reason: 'dead_end', reasonText: RUN_END_TEXTS.deadEndRound() };
}

function stopEnd(stop: Stop | null): RunEnd | undefined {
  return stop ? ENDS.condition(stop) : undefined;
}

function capEnd(cap: Situation['cap']): RunEnd | undefined {
  return cap ? { status: 'exhausted', reason: 'max_iterations', reasonText: RUN_END_TEXTS.hardCap(cap.group, cap.cap) } : undefined;
}

function turnsEnd(turns: number | undefined): RunEnd | undefined {
  return turns !== undefined ? { status: 'exhausted', reason: 'max_turns', reasonText: RUN_END_TEXTS.turnCap(turns) } : undefined;
}

function budgetEnd(budget: BudgetStop | null): RunEnd | undefined {
  return budget ? ENDS.budget(budget) : undefined;
}

/** Decide the next step of the loop. */
export function decideNext(s: Situation): NextStep {
  if (s.stop) return { kind: 'end_run', end: ENDS.userStop(s.stop.reason) };
  if (s.failure) return { kind: 'end_run', end: s.failure };
  if (s.timedOut) return endStep(s.timedOut);
  switch (s.point) {
    case 'before_wave':
      return beforeWave(s);
    case 'after_wave':
      return afterWave(s);
    case 'before_retry':
      return waitFor(s, true) ?? (s.budget ? { kind: 'end_run', end: budgetEnd(s.budget) as RunEnd } : { kind: 'run_wave' });
    default: {
      const never: never = s.point;
      throw new Error(`decideNext: unknown point ${String(never)}`);
    }
  }
}

function waitFor(s: Situation, userPause: boolean): NextStep | undefined {
  if (s.awaitingHumans) return { kind: 'wait', for: 'humans' };
  if (s.goalPaused) return { kind: 'wait', for: 'goal' };
  if (userPause && s.paused) return { kind: 'wait', for: 'pause' };
  return undefined;
}

/**
 * Before a wave: wait for humans and pauses, then end if the round is over, else run the wave. The
 * loop cap is checked here too, so a human decision cannot route a loop past it.
 */
function beforeWave(s: Situation): NextStep {
  const wait = waitFor(s, true);
  if (wait) return wait;
  const graph = s.frontierEmpty && !s.holdsResults ? graphEnd(s.exits) : undefined;
  const end = pickEnd([graph, stopEnd(s.termination), capEnd(s.cap), turnsEnd(s.turns)]);
  if (end) return endStep(end);
  const budget = budgetEnd(s.budget);
  return budget ? { kind: 'end_run', end: budget } : { kind: 'run_wave' };
}

/**
 * After a wave: the ends the wave brought (goal, termination, loop cap, an empty next wave), a crossed
 * budget, or on to the next wave. Open requests and a paused goal hold condition ends back: only hard
 * limits (budgets, a condition marked `hard` such as `timeout_ms`) end the run then. A tool call the
 * budget refused ends the run `budget_exceeded` even when the agent exited on the same wave: its work
 * was cut short, which an `exit` would hide.
 */
function afterWave(s: Situation): NextStep {
  const wait = waitFor(s, false);
  if (wait) {
    const limit = s.termination && endsWhileWaiting(s.termination.reason) ? stopEnd(s.termination) : undefined;
    const hard = budgetEnd(s.budget) ?? limit;
    return hard ? endStep(hard) : wait;
  }
  const refused = s.budget?.reason === 'tool_budget_exceeded';
  const graph = s.frontierEmpty && !s.holdsResults && !refused ? graphEnd(s.exits) : undefined;
  const end = pickEnd([s.goalEnd, stopEnd(s.termination), capEnd(s.cap), turnsEnd(s.turns), graph]);
  if (end) return endStep(end);
  const budget = budgetEnd(s.budget);
  return budget ? { kind: 'end_run', end: budget } : { kind: 'run_wave' };
}

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

/** Why a call failed, as the workflow read it from Temporal's failure. */
export interface CallFailure {
  diagnostics: Diagnostics;
  /** The call failed for good at once (a fatal LLM error), rather than after its retries. */
  fatal: boolean;
}

/** The ends, by what happened. */
export const ENDS = {
  /** A termination condition holds (evaluated between waves, or when a round's timer fires). */
  condition: (stop: Stop): RunEnd => ({ status: stop.status, reason: stop.reason, reasonText: stop.reasonText }),
  /** A budget is crossed (or the next wave would cross `max_agent_calls`). */
  budget: (budget: BudgetStop): RunEnd => ({ status: 'budget_exceeded', reason: budget.reason, reasonText: budget.reasonText }),
  /** How a finished goal ends the run (its reason text is the goal's stop reason); undefined while it is `active` or `paused`. */
  goal: (g: GoalState): RunEnd | undefined => {
    switch (g.status) {
      case 'completed':
        return { status: 'completed', reason: 'goal_completed', reasonText: g.stopReason ?? GOAL_TEXTS.completedFallback };
      case 'blocked':
        return { status: 'blocked', reason: 'goal_blocked', reasonText: g.stopReason ?? GOAL_TEXTS.blockedFallback };
      case 'limit_reached': {
        const reason = g.limitReason ?? 'goal_turn_limit';
        return { status: 'limit_reached', reason, reasonText: g.stopReason ?? reason };
      }
      case 'active':
      case 'paused':
        return undefined;
      default: {
        const never: never = g.status;
        return never;
      }
    }
  },
  /** `stop`: graceful, after the work in flight. */
  userStop: (reason?: string): RunEnd => ({ status: 'cancelled', reason: 'user_stop', reasonText: RUN_END_TEXTS.userStop(reason) }),
  /** The workflow was cancelled: in-flight work was aborted. */
  userAbort: (): RunEnd => ({ status: 'cancelled', reason: 'user_abort', reasonText: RUN_END_TEXTS.userAbort() }),
  /** The worker refused the run at its start (endpoints, tools, the graph's check). */
  refused: (message: string, diagnostics?: Diagnostics): RunEnd => ({
    status: 'failed',
    reason: 'fatal_error',
    reasonText: RUN_END_TEXTS.prepareFailed(message),
    ...(diagnostics ? { diagnostics } : {}),
  }),
  /** A start input carried state, which only a run continuing as new may pass on. */
  carriedAtStart: (): RunEnd => ({ status: 'failed', reason: 'fatal_error', reasonText: RUN_END_TEXTS.carriedAtStart }),
  /** An agent's call failed: at once when fatal, else after its attempts. */
  /** A team agent's child run ended neither completed nor exhausted (docs/teams.md, "Nested teams"). */
  teamFailed: (agent: string, child: { status: string; reason: string; reasonText: string; workflowId: string }): RunEnd => ({
    status: 'failed',
    reason: 'team_failed',
    reasonText: RUN_END_TEXTS.teamFailed(agent, child.status, child.reasonText, child.workflowId),
  }),
  callFailed: (agent: string, failure: CallFailure): RunEnd => {
    const { diagnostics } = failure;
    const rid = diagnostics.requestId ? ` (request id ${diagnostics.requestId})` : '';
    if (failure.fatal) {
      const got = diagnostics.status ? ` got HTTP ${diagnostics.status}${rid}` : '';
      return { status: 'failed', reason: 'fatal_error', reasonText: RUN_END_TEXTS.fatal(agent, got, diagnostics.message), diagnostics };
    }
    return { status: 'failed', reason: 'activity_failed', reasonText: RUN_END_TEXTS.activityFailed(agent, diagnostics.message, rid), diagnostics };
  },
  /** An agent's prompt cannot fit its context window. */
  windowExceeded: (agent: string, tokens: number, window: number): RunEnd => ({
    status: 'failed',
    reason: 'token_window_exceeded',
    reasonText: RUN_END_TEXTS.windowExceeded(agent, tokens, window),
  }),
  /** Compaction failed too many times in a row. */
  compactionBreaker: (failures: number, diagnostics: Diagnostics): RunEnd => ({
    status: 'failed',
    reason: 'compaction_circuit_breaker',
    reasonText: RUN_END_TEXTS.compactionBreaker(failures),
    diagnostics,
  }),
  /** An agent's reply was still cut by `max_tokens` after its continuation. */
  truncated: (agent: string, maxTokens: number | undefined): RunEnd => ({
    status: 'failed',
    reason: 'truncated_output',
    reasonText: RUN_END_TEXTS.truncated(agent, maxTokens),
  }),
} as const;
