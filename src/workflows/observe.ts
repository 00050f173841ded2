/**
 * What the workflow tells the operator while it runs (docs/operating.md): the current details the
 * Temporal UI shows (kept up to date as calls start and finish, waits begin and end, and at the end),
 * the labels of its waits, and troupe's search attributes: `TroupeWaiting` while a human is needed,
 * `TroupeStatus` and `TroupeReason` at the end. The attributes are upserted only when the client set
 * them at start, which it does only when it found them registered; otherwise the waiting flag goes to
 * the memo, which `troupe list` reads instead.
 */
import { defineSearchAttributeKey } from '@temporalio/common';
import { condition, setCurrentDetails, upsertMemo, upsertSearchAttributes, workflowInfo } from '@temporalio/workflow';
import type { RunResult } from '../core/ending/result';
import { pendingRequests } from '../core/humans/requests';
import { currentDetails, type RunningCall } from '../core/observe/details';
import { SEARCH_ATTRIBUTES } from '../core/observe/search';
import { summary, SUMMARY_TEXTS } from '../core/observe/summaries';
import type { Run } from './execution';

/** The typed keys of troupe's search attributes. */
export const SEARCH_KEYS = {
  graph: defineSearchAttributeKey(SEARCH_ATTRIBUTES.graph.name, SEARCH_ATTRIBUTES.graph.kind),
  status: defineSearchAttributeKey(SEARCH_ATTRIBUTES.status.name, SEARCH_ATTRIBUTES.status.kind),
  reason: defineSearchAttributeKey(SEARCH_ATTRIBUTES.reason.name, SEARCH_ATTRIBUTES.reason.kind),
  waiting: defineSearchAttributeKey(SEARCH_ATTRIBUTES.waiting.name, SEARCH_ATTRIBUTES.waiting.kind),
} as const;

/** Whether the run's client set troupe's search attributes at start (so they are registered). */
export function searchAttributesSet(): boolean {
  return workflowInfo().typedSearchAttributes.get(SEARCH_KEYS.graph) !== undefined;
}

/** Whether a human is needed now: a request is pending, or the run (or its goal) is paused. */
function humanNeeded(run: Run): boolean {
  const { state } = run;
  return pendingRequests(state).length > 0 || state.paused || state.goal?.status === 'paused';
}

/** Refresh the current details, and the waiting flag when it changed. */
export function publish(run: Run): void {
  setCurrentDetails(currentDetails({ state: run.state, graph: run.graph, running: run.running }));
  if (!run.version.publishes) return;
  const waiting = humanNeeded(run);
  if (waiting === (run.waitingPublished ?? false)) return;
  run.waitingPublished = waiting;
  if (run.indexed) upsertSearchAttributes([{ key: SEARCH_KEYS.waiting, value: waiting }]);
  else upsertMemo({ troupeWaiting: waiting });
}

/** The end: the status line in the current details, the status and reason in the memo and attributes. */
export function publishEnd(run: Run, result: RunResult): void {
  setCurrentDetails(currentDetails({ state: run.state, graph: run.graph, running: [], result }));
  upsertMemo({ troupeStatus: result.status, troupeReason: result.reason, ...(run.version.publishes && !run.indexed ? { troupeWaiting: false } : {}) });
  if (!run.version.publishes || !run.indexed) return;
  upsertSearchAttributes([
    { key: SEARCH_KEYS.status, value: result.status },
    { key: SEARCH_KEYS.reason, value: result.reason },
    { key: SEARCH_KEYS.waiting, value: false },
  ]);
}

/** Run `call` listed as running in the current details under `label`. */
export async function tracked<T>(run: Run, label: string, call: () => Promise<T>): Promise<T> {
  const entry: RunningCall = { label, since: Date.now() };
  run.running = [...run.running, entry];
  publish(run);
  try {
    return await call();
  } finally {
    run.running = run.running.filter((e) => e !== entry);
    publish(run);
  }
}

/**
 * How long one labelled wait timer runs before it is armed again. A wait for a human has no deadline;
 * its timer only gives the wait a bar with a label on the UI's timeline.
 */
export const WAIT_TIMER_MS = 7 * 24 * 60 * 60 * 1000;

/**
 * Wait until `done()`: since troupe 0.2 behind a labelled timer (re-armed weekly), so the UI's
 * timeline shows what the run waits for; before, a bare condition.
 */
export async function waitLabelled(run: Run, label: string, done: () => boolean): Promise<void> {
  publish(run);
  if (!run.version.publishes) {
    await condition(done);
    return;
  }
  while (!(await condition(done, WAIT_TIMER_MS, { summary: summary(label) }))) {
    // the timer ran out: arm it again
  }
}

/** The label of a wait for humans, the goal or a pause. */
export function waitLabel(run: Run, waitingFor: 'humans' | 'goal' | 'pause'): string {
  if (waitingFor === 'humans') return SUMMARY_TEXTS.humanWait(pendingRequests(run.state));
  return SUMMARY_TEXTS.pausedWait(waitingFor === 'pause' ? 'user' : 'goal');
}
