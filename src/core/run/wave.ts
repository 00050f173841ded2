/**
 * What a finished wave does to the run state, in a fixed order (docs/semantics.md, "Waves"): (1)
 * record every result in wave order and apply the `goal` tool's events, (2) judge, concurrently, the
 * results a `converged` condition or guard needs, (3) route in wave order, evaluating `when` guards on
 * the state after judging and counting the back edges followed. The round machine (`step.ts`) calls
 * these; the judge's calls themselves are the workflow's. Pure: time comes in as `now`.
 */
import { addUsage, recordCall } from '../budgets/ledger';
import { conditionHolds } from '../conditions/evaluate';
import type { JudgeTarget } from '../conditions/plugin';
import { verdictKey } from '../conditions/view';
import { judgeTargets } from '../conditions/walk';
import { ENDS } from '../ending/decide';
import type { WaveEffects } from '../ending/decide';
import { RUN_END_TEXTS } from '../ending/texts';
import { applyGoalEvents, type GoalEvent } from '../goals';
import type { CompiledGraph } from '../graph/types';
import { warn, type RunState } from '../state/state';
import { terminationView } from '../state/view';
import { recordResult, type RecordedResult } from '../waves/record';
import { routeIntoState } from '../waves/routing';
import type { AgentOutcome, DispatchKind, JudgeAnswer } from './types';

/** Default judge criteria when a `converged` condition names none. */
export const DEFAULT_CRITERIA = 'the result fully satisfies the task';

/** The parts of the machine a wave reads and writes. */
export interface WaveContext {
  graph: CompiledGraph;
  state: RunState;
  /** What the wave brought that the next decision must see. */
  wave: WaveEffects;
  /** Results keep their line structure for `regex` matchers. */
  keepLines: boolean;
}

/**
 * Step (1): record the wave's results in wave order. A reply still cut by `max_tokens` is recorded,
 * then ends the run (`on_truncated: accept` keeps it). For a wave of the graph that ran to its end,
 * the `goal` tool's events are applied: a goal set completed or blocked ends the round after this
 * wave. A wave cut short, and a re-dispatch at the round's end, record their results only.
 */
export function recordWave(c: WaveContext, outcomes: AgentOutcome[], kind: DispatchKind, now: number): RecordedResult[] {
  const recorded = outcomes.map((o) => recordResult(c.state, c.graph, o, now, kind, { keepLines: c.keepLines }));
  const cut = outcomes.find((o) => o.result.finishReason === 'length' && c.graph.agents[o.item.agent].onTruncated !== 'accept');
  if (cut) c.wave.failure ??= ENDS.truncated(cut.item.agent, c.graph.agents[cut.item.agent].model.maxTokens);
  const cutShort = c.wave.failure !== undefined || c.wave.timedOut !== undefined;
  if (kind === 'agent' && !cutShort) applyWaveGoalEvents(c, recorded.flatMap((r) => r.goalEvents.map((event) => ({ agent: r.agent, event }))), now);
  return recorded;
}

function applyWaveGoalEvents(c: WaveContext, events: Array<{ agent: string; event: GoalEvent }>, now: number): void {
  const { state } = c;
  if (!state.goal || events.length === 0) return;
  const applied = applyGoalEvents(state.goal, events, now);
  state.goal = applied.goal;
  for (const w of applied.warnings) warn(state, w);
  if (applied.effect === 'end_round') c.wave.goalEnd = ENDS.goal(applied.goal);
}

/**
 * Step (2)'s targets: the judgements the recorded agents need, for a wave that ran to its end and a
 * run not stopping; none otherwise.
 */
export function judgingOf(c: WaveContext, recorded: RecordedResult[]): JudgeTarget[] {
  if (c.wave.failure || c.wave.timedOut || c.state.stop) return [];
  const { graph, state } = c;
  return judgeTargets(graph.termination, graph.edges).filter((t) => recorded.some((r) => r.agent === t.agent) && state.round.latest[t.agent]);
}

/** The judge's input for one target: the criteria (or the default), the task and the agent's latest result. */
export function judgeInput(c: WaveContext, target: JudgeTarget): { criteria: string; task: string; result: string } {
  const { state } = c;
  return {
    criteria: target.criteria ?? DEFAULT_CRITERIA,
    task: state.task,
    result: state.results[target.agent]?.text ?? state.round.latest[target.agent]?.text ?? '',
  };
}

/**
 * Step (2): record the judge's answers. A judge that failed never fails the run: its condition counts
 * as false for this result, with a warning.
 */
export function recordJudgements(c: WaveContext, answers: JudgeAnswer[]): void {
  const { state, graph } = c;
  for (const answer of answers) {
    const { agent, criteria } = answer.target;
    const latest = state.round.latest[agent];
    if (!latest) continue;
    const key = verdictKey(agent, criteria);
    if ('error' in answer) {
      state.round.verdicts[key] = { hash: latest.hash, converged: false };
      warn(state, RUN_END_TEXTS.judgeFailed(agent, answer.error));
      continue;
    }
    state.round.verdicts[key] = { hash: latest.hash, converged: answer.converged, reason: answer.reason };
    state.round.usage = addUsage(state.round.usage, answer.usage);
    recordCall(state.usage, { kind: 'judge', agent, model: graph.judge.model.name, usage: answer.usage, round: state.round.round, pricing: graph.pricing });
  }
}

/** Step (3): route the wave's results, except those held back for a human decision. */
export function routeWave(c: WaveContext, recorded: RecordedResult[], now: number): void {
  const { state, graph } = c;
  if (c.wave.failure || c.wave.timedOut) return;
  const held = new Set(state.requests.filter((r) => r.held).map((r) => r.agent));
  const view = terminationView(state, now);
  routeIntoState(
    state,
    graph,
    recorded.filter((r) => !held.has(r.agent)),
    (when) => conditionHolds(when, view),
  );
}
