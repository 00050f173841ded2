/**
 * The one way a model call is made (an agent, a step of a tool dispatch, the judge, compaction):
 * listed as running in the current details while it runs, and dispatched again as a new activity
 * when every attempt was lost with its worker (docs/semantics.md, "Agent calls": lost workers are not
 * model failures) — {@link trackModelCall}, which {@link modelCall} and an agent's dispatch
 * (`dispatch.ts`) both use. The model's own failures keep their 3 attempts and come out as the
 * caller's error; a failed agent call becomes the run's end through {@link failedCall}. Tool calls are
 * not dispatched again (a new activity would get a new idempotency key): `tool-dispatch.ts` tracks
 * them with {@link tracked} alone.
 */
import { isCancellation } from '@temporalio/workflow';
import { ENDS } from '../core/ending/decide';
import type { RunEnd } from '../core/ending/result';
import type { CallTag } from '../core/observe/progress';
import { RUN_END_TEXTS } from '../core/ending/texts';
import { warn } from '../core/state/state';
import type { Run } from './execution';
import { callFailure, lostWithWorker } from './failures';
import { running } from './observe';

/** How many times a model call whose every attempt was lost with its worker is dispatched again. */
export const LOST_CALL_REDISPATCHES = 3;

/**
 * Whether the `lost`-th failure of call `label` was its worker's loss on every attempt, and the call
 * goes out again (then with a warning); false when the failure is the caller's to handle.
 */
function dispatchAgain(run: Run, label: string, err: unknown, lost: number): boolean {
  if (!lostWithWorker(err) || lost > LOST_CALL_REDISPATCHES) return false;
  warn(run.state, RUN_END_TEXTS.callLost(label, lost, LOST_CALL_REDISPATCHES));
  return true;
}

/** A model call's bookkeeping while it runs: see the module doc. */
export interface ModelCallTrack {
  /** Whether the call, failed with `err` on its `lost`-th try, goes out again (its worker was lost). */
  again(err: unknown, lost: number): boolean;
  /** The call is over: no longer listed as running (published unless `publish: false`, see `observe.ts` `running`). */
  done(options?: { publish: boolean }): void;
}

/** Start the bookkeeping of a model call tagged `tag` (listed as running from now on). */
export function trackModelCall(run: Run, tag: CallTag): ModelCallTrack {
  return { again: (err, lost) => dispatchAgain(run, tag.label, err, lost), done: running(run, tag) };
}

/** Run `call` listed as running (the current details, the `progress` query) as `tag`. */
export async function tracked<T>(run: Run, tag: CallTag, call: () => Promise<T>): Promise<T> {
  const done = running(run, tag);
  try {
    return await call();
  } finally {
    done();
  }
}

/**
 * A model call: tracked as `tag`, and dispatched again while every attempt is lost with its worker
 * (tracking and re-dispatch in one promise: the SDK pays for each).
 */
export async function modelCall<T>(run: Run, tag: CallTag, call: () => Promise<T>): Promise<T> {
  const track = trackModelCall(run, tag);
  try {
    for (let lost = 1; ; lost++) {
      try {
        return await call();
      } catch (err) {
        if (!track.again(err, lost)) throw err;
      }
    }
  } finally {
    track.done();
  }
}

/**
 * The end for an agent's call that failed with `err`; undefined for a cancellation (a timer or a
 * sibling's failure cancelled it: nothing failed). When the run itself is cancelled, the error goes on.
 */
export function failedCall(run: Run, agent: string, err: unknown): RunEnd | undefined {
  if (run.root.consideredCancelled) throw err;
  if (isCancellation(err)) return undefined;
  return ENDS.callFailed(agent, callFailure(err, agent));
}
