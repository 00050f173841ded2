/**
 * The progress record a followed run writes into its history (`core/observe/progress.ts`,
 * `ProgressRecord`; docs/operating.md, "Following a run from code"). **Runs in the workflow sandbox.**
 *
 * A `progress` query is a workflow activation: asked once per step by each follower, it cost the
 * worker half again what the step did (BENCHMARKS.md, B8). Instead, a follower sends the `follow`
 * Update once; from then on the run ends each workflow task in which its position changed with one
 * record in its memo, taken by `record-interceptors.ts` when the activation concludes, and removed
 * from the memo again by the same task (the history keeps it, the run's memo and visibility row do
 * not grow). The follower reads the records from the history it long-polls anyway. A run nobody
 * follows writes none, and the flag is carried across continue-as-new, so a followed chain goes on
 * writing them.
 */
import type { FollowAnswer } from '../contract';
import { lastStep, recordOf, type ProgressRecord } from '../core/observe/progress';
import type { Run } from './execution';

/** Where the run's recorder lives for the interceptor: the run's own global scope, like the span hooks. */
const RECORDER = Symbol.for('troupe.progressRecorder');

/** Set by `record-interceptors.ts` when the bundle has it: without it, no record can be written. */
const INTERCEPTOR = Symbol.for('troupe.progressRecordInterceptor');

/** Takes, at the end of each activation, the record of what changed since the last one. */
export class ProgressRecorder {
  /** The progress counter of the last record; -1 before this run's first. */
  private recordedSeq = -1;
  /** The step the next record's steps follow. */
  private from: number;

  constructor(private readonly run: Run) {
    // a run continued as new was recorded up to its last step by the run before it
    this.from = lastStep(run.state);
  }

  /** The `follow` Update: records from now on, the next one holding the steps after `after`. */
  follow(after: unknown): FollowAnswer {
    // a bundle without the interceptor module cannot write records: the follower asks the query
    if (!recordsCanBeWritten()) return { recording: false };
    const cursor = typeof after === 'number' && Number.isSafeInteger(after) && after > 0 ? after : 0;
    const { state } = this.run;
    this.from = state.followed ? Math.min(this.from, cursor) : cursor;
    state.followed = true;
    // the task that takes the Update writes a record even when the position did not change
    this.recordedSeq = -1;
    return { recording: true };
  }

  /** The record to write now, if the run is followed and its position changed since the last one. */
  take(now: number): ProgressRecord | undefined {
    const { run } = this;
    if (!run.state.followed) return undefined;
    const seq = run.state.progress ?? 0;
    if (seq === this.recordedSeq) return undefined;
    const record = recordOf({ state: run.state, running: run.running, inFlight: run.inFlight, end: run.end, children: run.children }, now, this.from);
    this.recordedSeq = seq;
    this.from = record.through;
    return record;
  }
}

/** Install the run's recorder where the interceptor finds it. */
export function installProgressRecorder(run: Run): ProgressRecorder {
  const recorder = new ProgressRecorder(run);
  (globalThis as Record<symbol, unknown>)[RECORDER] = recorder;
  return recorder;
}

/** The run's recorder (undefined before the run installed it). */
export function progressRecorder(): ProgressRecorder | undefined {
  return (globalThis as Record<symbol, unknown>)[RECORDER] as ProgressRecorder | undefined;
}

/** Called by the interceptor module when the workflow is created. */
export function markRecordInterceptor(): void {
  (globalThis as Record<symbol, unknown>)[INTERCEPTOR] = true;
}

/** Whether this bundle writes records (its interceptor module is in). */
export function recordsCanBeWritten(): boolean {
  return (globalThis as Record<symbol, unknown>)[INTERCEPTOR] === true;
}
