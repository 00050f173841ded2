/**
 * The one human gate (docs/semantics.md, "Humans in the loop"): every wait for a person is an
 * `awaitDecision` — a tool call's approval, `before_exit`, the `signal` tool's requests, a pause. One
 * clock rule: the clocks stop while a person is awaited, and start again only when no request is
 * left open. Decisions are recorded in one way, by the signal handlers (`messages.ts` →
 * `core/humans/requests.ts` `decide`), never here; what a decision does is the round machine's
 * (`actOnDecisions` in `core/humans/decisions.ts`, and `core/run/tool-approval.ts` for a gated tool call).
 */
import { condition } from '@temporalio/workflow';
import { awaitingHumans } from '../core/humans/requests';
import { startClocks, stopClocks } from '../core/state/clock';
import type { Run } from './execution';
import { publish } from './observe';

/** Whether request `requestId` has its decision (it is decided, or already acted on and gone). */
function decided(run: Run, requestId: string): boolean {
  const request = run.state.requests.find((r) => r.id === requestId);
  return request === undefined || request.decision !== undefined;
}

/**
 * Wait for a person, clocks stopped.
 * - With `requestId` (a tool call's approval, `before_exit`): until that request is decided or `stop`
 *   arrives; the clocks start again when no other request is open, since the caller goes on at once.
 * - Without (the `signal` tool's open requests, a pause, a paused goal): until the next signal, which
 *   may decide a request, resume the run or stop it; the round machine decides again, and starts the
 *   clocks when it runs a wave.
 */
export async function awaitDecision(run: Run, requestId?: string): Promise<void> {
  const { state } = run;
  if (requestId === undefined) {
    stopClocks(state, Date.now());
    const seen = run.signalsSeen;
    publish(run);
    await condition(() => run.signalsSeen !== seen);
    publish(run);
    return;
  }
  if (state.stop === undefined && !decided(run, requestId)) {
    stopClocks(state, Date.now());
    publish(run);
    await condition(() => state.stop !== undefined || decided(run, requestId));
  }
  if (!awaitingHumans(state)) startClocks(state, Date.now());
  publish(run);
}
