/**
 * What the workflow tells the operator while it runs (docs/operating.md): the current details the
 * Temporal UI shows (kept up to date as calls start and finish, signals arrive, and at the end), a
 * labelled timer for as long as a human is needed, and troupe's search attributes: `TroupeWaiting` while a human is needed,
 * `TroupeStatus` and `TroupeReason` at the end. The attributes are upserted only when the client set
 * them at start, which it does only when it found them registered; otherwise the waiting flag goes to
 * the memo, which `troupe list` reads instead.
 */
import { CancellationScope, setCurrentDetails, sleep, upsertMemo, upsertSearchAttributes, workflowInfo } from '@temporalio/workflow';
import type { RunResult } from '../core/ending/result';
import { pendingRequests } from '../core/humans/requests';
import { currentDetails } from '../core/observe/details';
import { advance, type CallTag, type RunningCall } from '../core/observe/progress';
import { summary, SUMMARY_TEXTS } from '../core/observe/summaries';
import type { Run } from './execution';
import { SEARCH_KEYS } from '../contract';

/** Whether the run's client set troupe's search attributes at start (so they are registered). */
export function searchAttributesSet(): boolean {
  return workflowInfo().typedSearchAttributes.get(SEARCH_KEYS.graph) !== undefined;
}

/**
 * What a human is needed for now, as the label of the wait's timer: the pending requests, else a
 * pause (by `troupe pause` or the goal tool); undefined when no human is needed.
 */
function humanWaitLabel(run: Run): string | undefined {
  const { state } = run;
  const pending = pendingRequests(state);
  if (pending.length > 0) return SUMMARY_TEXTS.humanWait(pending);
  if (state.paused) return SUMMARY_TEXTS.pausedWait('user');
  if (state.goal?.status === 'paused') return SUMMARY_TEXTS.pausedWait('goal');
  return undefined;
}

/**
 * Refresh the current details, the waiting flag (search attribute or memo) when it changed, and the
 * labelled timer of the wait for a human.
 */
export function publish(run: Run): void {
  showDetails(run);
  const label = humanWaitLabel(run);
  labelWait(run, label);
  const waiting = label !== undefined;
  if (waiting === (run.waitingPublished ?? false)) return;
  run.waitingPublished = waiting;
  if (run.indexed) upsertSearchAttributes([{ key: SEARCH_KEYS.waiting, value: waiting }]);
  else upsertMemo({ troupeWaiting: waiting });
}

/**
 * Refresh only the current details, and count a change of position for the `progress` query
 * (`core/observe/progress.ts`): no command, so it can be called anywhere. Only a query reads them,
 * and a query is answered between activations, so what an activation shows is what it set last.
 */
export function showDetails(run: Run): void {
  advance(run.state);
  setCurrentDetails(currentDetails({ state: run.state, graph: run.graph, running: run.running }));
}

/**
 * The end: the status line in the current details, the status and reason in the memo and attributes,
 * and a change of position counted (the last step's call ended without one, and the end is news).
 */
export function publishEnd(run: Run, result: RunResult): void {
  advance(run.state);
  setCurrentDetails(currentDetails({ state: run.state, graph: run.graph, running: [], result }));
  upsertMemo({ troupeStatus: result.status, troupeReason: result.reason, ...(!run.indexed ? { troupeWaiting: false } : {}) });
  if (!run.indexed) return;
  upsertSearchAttributes([
    { key: SEARCH_KEYS.status, value: result.status },
    { key: SEARCH_KEYS.reason, value: result.reason },
    { key: SEARCH_KEYS.waiting, value: false },
  ]);
}

/**
 * How long one labelled wait timer runs before it is armed again. A wait for a human has no deadline;
 * its timer only gives the wait a labelled bar on the UI's timeline, from the moment a human is
 * needed until none is.
 */
export const WAIT_TIMER_MS = 7 * 24 * 60 * 60 * 1000;

/**
 * Keep one labelled timer running while a human is needed (`label`), armed again each week; a new
 * label replaces it, none cancels it. Signals that change nothing for the human keep the same timer.
 */
function labelWait(run: Run, label: string | undefined): void {
  if (run.waitTimer?.label === label) return;
  run.waitTimer?.scope.cancel();
  run.waitTimer = undefined;
  if (label === undefined) return;
  // a child of the run's root scope, so that cancelling a wave (whose handlers may call this) leaves it be
  const scope = new CancellationScope({ cancellable: true, parent: run.root });
  run.waitTimer = { label, scope };
  scope
    .run(async () => {
      for (;;) await sleep(WAIT_TIMER_MS, { summary: summary(label) });
    })
    .catch(() => undefined);
}

/**
 * List a call as running (the current details and the `progress` query); the returned function ends
 * it and publishes, unless the caller says it publishes before the workflow next blocks
 * (`publish: false`).
 */
export function running(run: Run, tag: CallTag): (options?: { publish: boolean }) => void {
  const entry: RunningCall = { ...tag, id: (run.state.progress ?? 0) + 1, since: Date.now() };
  run.running = [...run.running, entry];
  if (run.running.length > 1) showDetailsSoon(run);
  else publish(run);
  return (options = { publish: true }) => {
    run.running = run.running.filter((e) => e !== entry);
    if (!options.publish) return;
    if (run.running.length > 0) showDetailsSoon(run);
    else publish(run);
  };
}

/**
 * The current details after a call started or ended while others run, refreshed once the calls
 * that start or end in the same turn of the activation have (a microtask), not once per call: each
 * refresh lists every running call, so a wave of 1,024 tool calls refreshed per call spent seconds of
 * one workflow task on it. A call starting or ending alone (every step of a pipeline or a loop)
 * publishes at once, with no promise. Only the details: a call's start or end changes no wait for a
 * human, and no command is issued.
 */
function showDetailsSoon(run: Run): void {
  if (run.detailsQueued) return;
  run.detailsQueued = true;
  void Promise.resolve().then(() => {
    run.detailsQueued = false;
    if (run.end === undefined) showDetails(run);
  });
}

