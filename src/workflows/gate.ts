/**
 * Waiting and round boundaries (SPEC §7, §11.1, §11.6): the gate before each wave waits while the
 * run is paused or awaits a human, with the clocks stopped, and applies human decisions on
 * requests opened by the signal tool.
 */
import { condition } from '@temporalio/workflow';
import { pauseGoalClock, resumeGoalClock } from '../core/goals';
import type { RunEnd } from '../core/ending/result';
import { countBackEdges, routeWave } from '../core/waves/routing';
import {
  activeMs,
  addNote,
  newRound,
  startClock,
  stopClock,
  terminationView,
  type RunState,
} from '../core/state/state';
import { conditionHolds } from '../core/termination/evaluate';
import type { Run } from './context';
import { mergeWaves, userStop } from './process';

/** Stop the active clock and the goal clock (pauses and human waits, §6.2). */
export function stopClocks(run: Run): void {
  const now = Date.now();
  stopClock(run.state, now);
  if (run.state.goal) run.state.goal = pauseGoalClock(run.state.goal, now);
}

/** Restart the active clock and the goal clock. */
export function startClocks(run: Run): void {
  const now = Date.now();
  startClock(run.state, now);
  if (run.state.goal) run.state.goal = resumeGoalClock(run.state.goal, now);
}

/** Whether the run must wait before dispatching (pause, pending requests, a paused goal). */
function mustWait(state: RunState): boolean {
  return state.paused || state.pending.length > 0 || state.goal?.status === 'paused';
}

/** Apply decisions on requests opened by the signal tool (§11.6). */
function applyHeldDecisions(run: Run): void {
  const { state, graph } = run;
  const remaining: RunState['decisions'] = [];
  for (const d of state.decisions) {
    const held = state.held.find((h) => h.requestId === d.requestId);
    if (!held) {
      remaining.push(d);
      continue;
    }
    state.held = state.held.filter((h) => h !== held);
    if (d.decision === 'reject') {
      addNote(state, held.agent, { kind: 'reject_reason', text: d.text ?? '', from: 'human' });
      state.deferred = mergeWaves(state.deferred, state.frontier);
      state.frontier = [{ agent: held.agent, triggers: held.triggers }];
      continue;
    }
    if (d.text) {
      addNote(state, held.agent, {
        kind: d.decision === 'answer' ? 'human_answer' : 'approval_note',
        text: d.text,
        from: 'human',
      });
    }
    const view = terminationView(state, Date.now());
    const routing = routeWave(graph, [{ agent: held.agent, text: held.text }], (when) => conditionHolds(when, view));
    state.round.loopCounters = countBackEdges(graph, state.round.loopCounters, routing.backEdges);
    state.round.exits.push(...routing.exits);
    state.frontier = mergeWaves(state.frontier, routing.next);
  }
  state.decisions = remaining;
}

/**
 * Wait while the run is paused or awaits a human, with the clocks stopped; apply decisions.
 * Returns an end when `stop` arrives.
 */
export async function gate(run: Run, extraReady: () => boolean = () => false): Promise<RunEnd | undefined> {
  const { state } = run;
  for (;;) {
    if (state.stop) return userStop(run);
    applyHeldDecisions(run);
    if (!mustWait(state) || extraReady()) {
      startClocks(run);
      return undefined;
    }
    stopClocks(run);
    await condition(() => !!state.stop || state.decisions.length > 0 || !mustWait(state) || extraReady());
  }
}

/** Start a new round (§11.1): reset round-scoped state; `frontier` is its wave 1. */
export function startRound(run: Run, frontier: RunState['frontier']): void {
  const { state } = run;
  state.round = newRound(state.round.round + 1, activeMs(state, Date.now()));
  state.frontier = frontier;
  state.held = [];
  state.deferred = [];
}

