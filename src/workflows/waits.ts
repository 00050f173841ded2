/**
 * Deciding and waiting between waves. `nextStep` acts on the human decisions that arrived, asks
 * `decideNext` (core/ending/decide.ts) what to do, and while the answer is to wait (a pause, an open
 * request, a paused goal) stops the clocks and sleeps until a signal arrives; then it decides again.
 */
import { condition } from '@temporalio/workflow';
import { checkWaveBudget } from '../core/budgets/ledger';
import { decideNext, type DecisionPoint, type NextStep, type Situation } from '../core/ending/decide';
import { awaitingHumans, holdsResults, takeDecided, type HumanRequest } from '../core/humans/requests';
import { activeMs, startClocks, stopClocks } from '../core/state/clock';
import { addNote } from '../core/state/state';
import { terminationView } from '../core/state/view';
import { conditionHolds, evaluateTermination } from '../core/termination/evaluate';
import { hardCapReached, mergeWaves, routeIntoState } from '../core/waves/routing';
import type { Run } from './execution';

/** Gather what the decision reads at this point of the loop. */
function situation(run: Run, point: DecisionPoint): Situation {
  const { state, graph } = run;
  const now = Date.now();
  const cap = hardCapReached(graph, state.round.loopCounters);
  const waveSize = point === 'after_wave' ? 0 : point === 'before_retry' ? 1 : state.frontier.length;
  return {
    point,
    ...(state.stop ? { stop: state.stop } : {}),
    ...run.wave,
    paused: state.paused,
    goalPaused: state.goal?.status === 'paused',
    awaitingHumans: awaitingHumans(state),
    holdsResults: holdsResults(state),
    frontierEmpty: state.frontier.length === 0,
    exits: state.round.exits,
    termination: point === 'before_retry' ? null : evaluateTermination(graph.termination, terminationView(state, now)),
    cap: cap ? { group: cap.group, cap: graph.maxIterations } : null,
    budget: checkWaveBudget(graph.budget, state.usage, activeMs(state, now), waveSize),
  };
}

/**
 * Act on decided requests whose agent result was held back: `approve`/`answer` route the held result
 * (the note or answer goes to the agent's next input), `reject` re-dispatches that agent alone with
 * the reason while the rest of the next wave waits behind it.
 */
function actOnDecisions(run: Run): void {
  const { state, graph } = run;
  for (const request of takeDecided(state, (r) => r.held !== undefined)) {
    const held = request.held as NonNullable<HumanRequest['held']>;
    const decision = request.decision as NonNullable<HumanRequest['decision']>;
    const agent = request.agent as string;
    if (decision.kind === 'reject') {
      addNote(state, agent, { kind: 'reject_reason', text: decision.text ?? '', from: 'human' });
      state.deferred = mergeWaves(state.deferred, state.frontier);
      state.frontier = [{ agent, triggers: held.triggers }];
      continue;
    }
    if (decision.text) {
      addNote(state, agent, {
        kind: decision.kind === 'answer' ? 'human_answer' : 'approval_note',
        text: decision.text,
        from: 'human',
      });
    }
    const view = terminationView(state, Date.now());
    routeIntoState(state, graph, [{ agent, text: held.text }], (when) => conditionHolds(when, view));
  }
}

/**
 * The next step at this point of the loop, after any wait it calls for. Returns `run_wave` (or, for
 * `before_retry`, permission to re-dispatch), or an end.
 */
export async function nextStep(run: Run, point: DecisionPoint): Promise<Exclude<NextStep, { kind: 'wait' }>> {
  const { state } = run;
  for (;;) {
    if (!state.stop) actOnDecisions(run);
    const step = decideNext(situation(run, point), run.version.rules);
    if (step.kind !== 'wait') {
      if (step.kind === 'run_wave') startClocks(state, Date.now());
      return step;
    }
    stopClocks(state, Date.now());
    const seen = run.signalsSeen;
    await condition(() => run.signalsSeen !== seen);
  }
}

/** Wait (clocks stopped) for the decision on one request; undefined when `stop` arrives first. */
export async function waitForDecision(run: Run, requestId: string): Promise<HumanRequest | undefined> {
  const { state } = run;
  for (;;) {
    if (state.stop) return undefined;
    const [decided] = takeDecided(state, (r) => r.id === requestId);
    if (decided) {
      startClocks(state, Date.now());
      return decided;
    }
    stopClocks(state, Date.now());
    const seen = run.signalsSeen;
    await condition(() => run.signalsSeen !== seen);
  }
}
