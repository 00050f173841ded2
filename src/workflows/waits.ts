/**
 * Deciding and waiting between waves. `nextStep` acts on the human decisions that arrived, asks
 * `decideNext` (core/ending/decide.ts) what to do, and while the answer is to wait (a pause, an open
 * request, a paused goal) stops the clocks and sleeps until a signal arrives; then it decides again.
 */
import { condition } from '@temporalio/workflow';
import { decideNext, type DecisionPoint, type NextStep } from '../core/ending/decide';
import { situationOf } from '../core/ending/situation';
import { actOnDecisions } from '../core/humans/act';
import { takeDecided, type HumanRequest } from '../core/humans/requests';
import { startClocks, stopClocks } from '../core/state/clock';
import type { Run } from './execution';
import { publish } from './observe';

/**
 * The next step at this point of the loop, after any wait it calls for. Returns `run_wave` (or, for
 * `before_retry`, permission to re-dispatch), or an end.
 */
export async function nextStep(run: Run, point: DecisionPoint): Promise<Exclude<NextStep, { kind: 'wait' }>> {
  const { state } = run;
  for (let waited = false; ; waited = true) {
    const step = decideNow(run, point);
    if (step) {
      if (waited) publish(run);
      return step;
    }
    stopClocks(state, Date.now());
    const seen = run.signalsSeen;
    publish(run);
    await condition(() => run.signalsSeen !== seen);
  }
}

/**
 * The next step at this point when it needs no wait, decided without a promise (the lean path,
 * `lean.ts`); undefined when the run must wait first ({@link nextStep} then waits and decides).
 */
export function decideNow(run: Run, point: DecisionPoint): Exclude<NextStep, { kind: 'wait' }> | undefined {
  const { state } = run;
  if (!state.stop) actOnDecisions(state, run.graph, Date.now());
  const step = decideNext(situationOf(state, run.graph, point, run.wave, Date.now()), run.version.rules);
  if (step.kind === 'wait') return undefined;
  if (step.kind === 'run_wave') startClocks(state, Date.now());
  return step;
}

/** Wait (clocks stopped) for the decision on one request; undefined when `stop` arrives first. */
export async function waitForDecision(run: Run, requestId: string): Promise<HumanRequest | undefined> {
  const { state } = run;
  for (;;) {
    if (state.stop) return undefined;
    const [decided] = takeDecided(state, (r) => r.id === requestId);
    if (decided) {
      startClocks(state, Date.now());
      publish(run);
      return decided;
    }
    stopClocks(state, Date.now());
    const seen = run.signalsSeen;
    publish(run);
    await condition(() => run.signalsSeen !== seen);
  }
}
