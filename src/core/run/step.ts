/**
 * The round machine (docs/architecture.md, "The round machine"): given the run and what just
 * happened, the next command. A run is rounds of waves (docs/semantics.md): before each wave and
 * after it, `decideNext` (`core/ending/decide.ts`) says whether to run the next wave, wait for
 * humans or a pause, or end the round's graph; a round's end runs the completion checks (which may
 * start a new round or send final agents back alone) and `approval.before_exit`. Every end comes out
 * of here as one `end` command. Pure and synchronous: the workflow's one loop carries out the
 * commands (activities, timers, waits) and feeds back what happened; time comes in as `now`.
 */
import { checkBudget, NO_USAGE } from '../budgets/ledger';
import { awaitsSelection, placeSpeaker, selectTurn } from '../teams/turns';
import { runCompletionChecks } from '../checks/pipeline';
import { decideNext, type DecisionPoint, type NextStep } from '../ending/decide';
import { ENDS } from '../ending/decide';
import { finalAgents, finalText, type RunEnd } from '../ending/result';
import { situationOf, type WaveEffects } from '../ending/decide';
import { actOnDecisions } from '../humans/decisions';
import { askHuman } from '../humans/decisions';
import { takeDecided } from '../humans/requests';
import type { CompiledGraph } from '../graph/types';
import { outputCheck, type OutputVerdict } from '../output/check';
import { defaultOutputValidator } from '../output/validator';
import { activeMs, startClocks } from '../state/clock';
import { addNote, entryWave, newRound, warn, type RunState } from '../state/state';
import { beginWave } from '../waves/routing';
import type { Command, DispatchKind, Phase, RetryTarget, RunEvent } from './types';
import { judgingOf, recordJudgements, recordWave, routeWave } from './wave';

/** One run as the machine sees it: the graph, the state, where it is, and what the last wave brought. */
export interface Machine {
  graph: CompiledGraph;
  state: RunState;
  phase: Phase;
  wave: WaveEffects;
  /** Results keep their line structure for `regex` matchers (fixed at the run's start). */
  keepLines: boolean;
  /** Whether the round's `timeout_ms` timers run during a wave (the graph has such a condition). */
  timed: boolean;
  /** The output-schema verdict, once the run's final results were checked. */
  output?: OutputVerdict;
}

/** What the machine reads from outside: workflow time, and whether Temporal suggests continue-as-new. */
export interface StepEnv {
  now: number;
  continueAsNewSuggested: boolean;
}

/** The next command after `event`. Mutates the machine (its state and phase). */
export function step(m: Machine, event: RunEvent, env: StepEnv): Command {
  const { phase } = m;
  switch (event.kind) {
    case 'begin':
      m.phase = event.carried ? { at: 'waves' } : { at: 'start' };
      return event.carried ? beforeWave(m, env) : { kind: 'prepare' };
    case 'prepared':
      if (event.tools) m.state.tools = event.tools;
      m.phase = { at: 'waves' };
      return beforeWave(m, env);
    case 'refused':
      return done(m, event.end);
    case 'dispatched':
      if (phase.at !== 'wave') return outOfOrder(m, event, env);
      m.wave.failure ??= event.failure;
      m.wave.timedOut ??= event.timedOut;
      return dispatched(m, phase, event.outcomes, env);
    case 'judged':
      if (phase.at !== 'judging') return outOfOrder(m, event, env);
      m.wave.timedOut ??= event.timedOut;
      recordJudgements(m, event.answers);
      routeWave(m, phase.recorded, env.now);
      m.phase = { at: 'after_wave' };
      return afterWave(m, env);
    case 'selected':
      if (phase.at !== 'selecting') return outOfOrder(m, event, env);
      placeSpeaker(m.graph, m.state, phase.turn, event);
      return beforeWave(m, env);
    case 'woke':
      return resume(m, env);
    case 'decided':
      if (phase.at !== 'exit_approval') return resume(m, env);
      return exitDecided(m, phase, env);
    default: {
      const never: never = event;
      throw new Error(`step: unknown event ${JSON.stringify(never)}`);
    }
  }
}

/** After a wait: decide again where the run waited. */
function resume(m: Machine, env: StepEnv): Command {
  switch (m.phase.at) {
    case 'waves':
      return beforeWave(m, env);
    case 'after_wave':
      return afterWave(m, env);
    case 'retries':
      return nextRetry(m, m.phase, env);
    case 'exit_approval':
      return exitDecided(m, m.phase, env);
    default:
      throw new Error(`step: nothing waits in phase ${m.phase.at}`);
  }
}

/** An event the phase does not expect is a bug of the loop, never of the run's input. */
function outOfOrder(m: Machine, event: RunEvent, _env: StepEnv): never {
  throw new Error(`step: event ${event.kind} in phase ${m.phase.at}`);
}

/**
 * The decision at `point`, after acting on the human decisions that arrived; the clocks restart when
 * the answer is to run (docs/semantics.md, "Clocks").
 */
function decide(m: Machine, point: DecisionPoint, env: StepEnv): NextStep {
  const { state, graph } = m;
  if (!state.stop) actOnDecisions(state, graph, env.now);
  const next = decideNext(situationOf(state, graph, point, m.wave, env.now));
  if (next.kind === 'run_wave') startClocks(state, env.now);
  return next;
}

/** Before a wave of the graph: wait, end the round's graph, or start the next wave. */
function beforeWave(m: Machine, env: StepEnv): Command {
  m.phase = { at: 'waves' };
  const next = decide(m, 'before_wave', env);
  switch (next.kind) {
    case 'wait':
      return { kind: 'wait', for: next.for };
    case 'end_round':
      return roundEnd(m, next.end, env);
    case 'end_run':
      return done(m, next.end);
    case 'run_wave': {
      // continue-as-new happens between waves, with nothing in flight
      if (env.continueAsNewSuggested) return { kind: 'continue_as_new' };
      const select = selection(m);
      if (select) return select;
      const items = beginWave(m.state);
      return dispatch(m, items, 'agent', {});
    }
  }
}

/**
 * A selector team's turn asks the selector first (docs/teams.md, "Selector teams"); a turn with one
 * candidate needs no model call. Undefined when the next wave's agents are known.
 */
function selection(m: Machine): Command | undefined {
  if (!awaitsSelection(m.graph, m.state)) return undefined;
  const turn = selectTurn(m.graph, m.state);
  if (turn.candidates.length === 1) {
    placeSpeaker(m.graph, m.state, turn, { speaker: turn.candidates[0], attempts: 0, usage: NO_USAGE, rejected: [] });
    return undefined;
  }
  m.phase = { at: 'selecting', turn };
  return { kind: 'select', turn };
}

/** Start a dispatch: the wave's effects are fresh, and the phase waits for its outcome. */
function dispatch(m: Machine, items: ReturnType<typeof beginWave>, kind: DispatchKind, options: Extract<Command, { kind: 'dispatch' }>['options'], retry?: Extract<Phase, { at: 'retries' }>): Command {
  m.wave = {};
  m.phase = { at: 'wave', kind, ...(retry ? { retry } : {}) };
  return { kind: 'dispatch', items, dispatch: kind, options, timed: m.timed };
}

/** A dispatch finished: record; a wave of the graph goes on to the judge and routing, a retry to the next. */
function dispatched(m: Machine, phase: Extract<Phase, { at: 'wave' }>, outcomes: Parameters<typeof recordWave>[1], env: StepEnv): Command {
  const recorded = recordWave(m, outcomes, phase.kind, env.now);
  if (phase.retry) {
    const stopped = m.wave.timedOut ?? m.wave.failure;
    return stopped ? done(m, stopped) : nextRetry(m, phase.retry, env);
  }
  const targets = judgingOf(m, recorded);
  if (targets.length > 0) {
    m.phase = { at: 'judging', recorded };
    return { kind: 'judge', targets };
  }
  routeWave(m, recorded, env.now);
  m.phase = { at: 'after_wave' };
  return afterWave(m, env);
}

/** After a wave: the next wave, a wait, the round's end or the run's. */
function afterWave(m: Machine, env: StepEnv): Command {
  const next = decide(m, 'after_wave', env);
  switch (next.kind) {
    case 'wait':
      return { kind: 'wait', for: next.for };
    case 'run_wave':
      return beforeWave(m, env);
    case 'end_round':
      return roundEnd(m, next.end, env);
    case 'end_run':
      return done(m, next.end);
  }
}

/**
 * The round's graph stopped with `end` (docs/semantics.md, "Round ends"): a run that did not
 * complete ends; once a budget is crossed nothing new starts and the output is judged as it stands;
 * otherwise the completion checks may start a new round or send final agents back alone; then
 * `approval.before_exit` may make a human decide.
 */
function roundEnd(m: Machine, end: RunEnd, env: StepEnv): Command {
  const { state, graph } = m;
  m.phase = { at: 'round_end', end };
  if (end.status !== 'completed' && end.status !== 'exhausted') return done(m, end);
  if (state.stop) return done(m, ENDS.userStop(state.stop.reason));
  if (checkBudget(graph.budget, state.usage, activeMs(state, env.now))) {
    if (graph.output) m.output = outputAsItStands(m);
    return done(m, end);
  }
  const outcome = runCompletionChecks(
    {
      now: env.now,
      round: state.round.round,
      status: end.status,
      reason: end.reason,
      goal: state.goal,
      finalResults: finalResults(m),
      output: graph.output,
      outputAttempts: state.outputAttempts,
    },
    undefined,
    defaultOutputValidator,
  );
  if (outcome.goal) state.goal = outcome.goal;
  state.outputAttempts = outcome.outputAttempts;
  for (const w of outcome.warnings) warn(state, w);
  if (outcome.kind === 'continue') {
    if (outcome.action === 'new_round') {
      startRound(m, entryWave(graph, state.task), env.now);
      const kind = outcome.by === 'goal' ? 'goal_continuation' : 'user_message';
      for (const item of state.frontier) addNote(state, item.agent, { kind, text: outcome.prompt, from: outcome.by });
      return beforeWave(m, env);
    }
    return nextRetry(m, { at: 'retries', end, by: outcome.by, targets: outcome.targets }, env);
  }
  if (outcome.output) m.output = outcome.output;
  const current = outcome.goalEnd ? { ...outcome.goalEnd } : end;
  if (graph.approval.beforeExit && (current.status === 'completed' || current.status === 'exhausted')) {
    const agents = finalAgents(state);
    const request = askHuman(state, { kind: 'before_exit', agents, text: finalText(state, agents) }, env.now);
    m.phase = { at: 'exit_approval', end: current, requestId: request.id };
    return { kind: 'await_decision', requestId: request.id };
  }
  return done(m, current);
}

/**
 * The next final agent a completion check sent back alone (schema retries or a check's targets):
 * its edges are not followed and termination is not evaluated again; when none is left, the checks
 * run again.
 */
function nextRetry(m: Machine, retries: Extract<Phase, { at: 'retries' }>, env: StepEnv): Command {
  m.phase = retries;
  const [target, ...rest] = retries.targets;
  if (!target) return roundEnd(m, retries.end, env);
  const next = decide(m, 'before_retry', env);
  if (next.kind === 'wait') return { kind: 'wait', for: next.for };
  if (next.kind !== 'run_wave') return done(m, next.end);
  m.state.round.wave += 1;
  const schema = retries.by === 'output';
  return dispatch(
    m,
    [{ agent: target.agent, triggers: [] }],
    schema ? 'schema_retry' : 'check_retry',
    retryOptions(m, target, retries.by),
    { ...retries, targets: rest },
  );
}

function retryOptions(m: Machine, target: RetryTarget, by: string): Extract<Command, { kind: 'dispatch' }>['options'] {
  const schema = by === 'output';
  return {
    ...(schema && m.graph.output ? { responseSchema: m.graph.output.schema } : {}),
    notes: { [target.agent]: [{ kind: schema ? 'schema_retry' : 'user_message', text: target.prompt, from: by }] },
    retryFor: by,
  };
}

/** The decision on the final result arrived (or `stop` ended the wait): a rejection starts a round at the final agents. */
function exitDecided(m: Machine, phase: Extract<Phase, { at: 'exit_approval' }>, env: StepEnv): Command {
  const { state } = m;
  if (state.stop) return done(m, ENDS.userStop(state.stop.reason));
  const [decided] = takeDecided(state, (r) => r.id === phase.requestId);
  if (!decided) return { kind: 'await_decision', requestId: phase.requestId };
  if (decided.decision?.kind === 'reject') {
    const agents = finalAgents(state);
    startRound(m, agents.map((agent) => ({ agent, triggers: [] })), env.now);
    for (const agent of agents) addNote(state, agent, { kind: 'reject_reason', text: decided.decision.text ?? '', from: 'human' });
    return beforeWave(m, env);
  }
  return done(m, phase.end);
}

/** Start a new round: reset round-scoped state; `frontier` is its wave 1. */
function startRound(m: Machine, frontier: RunState['frontier'], now: number): void {
  const { state } = m;
  state.round = newRound(state.round.round + 1, activeMs(state, now));
  state.frontier = frontier;
  for (const request of state.requests) delete request.held;
  state.deferred = [];
}

function finalResults(m: Machine): Array<{ agent: string; text: string }> {
  const { state } = m;
  return finalAgents(state).map((agent) => ({ agent, text: state.results[agent]?.text ?? '' }));
}

/** The output-schema verdict on the final results without any retry. */
function outputAsItStands(m: Machine): OutputVerdict {
  const verdict = outputCheck(finalResults(m), { schema: m.graph.output!.schema, maxRetries: 0 }, {}, defaultOutputValidator);
  if (verdict.kind !== 'done') return { outputValid: false };
  return {
    ...(verdict.output !== undefined ? { output: verdict.output } : {}),
    outputValid: verdict.outputValid,
    ...(verdict.outputErrors ? { outputErrors: verdict.outputErrors } : {}),
  };
}

/** The run ends with `end`. */
function done(m: Machine, end: RunEnd): Command {
  m.phase = { at: 'done', end };
  return { kind: 'end', end, ...(m.output ? { output: m.output } : {}) };
}
