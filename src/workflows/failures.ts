/**
 * Turning activity failures into run ends: a non-retryable LLM error is
 * `failed/fatal_error`, anything that exhausted its retries is `failed/activity_failed`; both carry
 * diagnostics with the HTTP status and provider request id when known.
 */
import { ActivityFailure, ApplicationFailure, TimeoutFailure } from '@temporalio/workflow';
import { RUN_TEXTS } from '../core/ending/texts';
import { warn } from '../core/state/state';
import type { Run } from './execution';
import type { LlmFailureDetails } from '../core/llm/contract';
import { FAILURE_TYPES } from '../core/llm/contract';
import type { Diagnostics, RunEnd } from '../core/ending/result';

function rootCause(err: unknown): unknown {
  return err instanceof ActivityFailure && err.cause ? err.cause : err;
}

/** Diagnostics from an activity failure. */
export function diagnosticsOf(err: unknown, agent?: string): Diagnostics {
  const cause = rootCause(err);
  if (cause instanceof ApplicationFailure) {
    const details = (cause.details?.[0] ?? {}) as Partial<LlmFailureDetails>;
    return {
      status: details.status,
      requestId: details.requestId,
      message: details.message ?? cause.message,
      agent,
      kind: details.kind,
    };
  }
  if (cause instanceof TimeoutFailure) {
    return { message: `activity timed out (${cause.timeoutType ?? 'timeout'})`, agent };
  }
  return { message: cause instanceof Error ? cause.message : String(cause), agent };
}

/**
 * Whether the activity's last attempt was lost with its worker: no heartbeat came (the worker died,
 * or lost the server), as opposed to a failure the call itself reported.
 */
export function lostWithWorker(err: unknown): boolean {
  return err instanceof ActivityFailure && err.cause instanceof TimeoutFailure && err.cause.timeoutType === 'HEARTBEAT';
}

/** How many times a model call whose every attempt was lost with its worker is dispatched again. */
export const LOST_CALL_REDISPATCHES = 3;

/**
 * Run a model call (agent, judge, compaction) so that lost workers do not use up its retries: when
 * every attempt was lost with its worker, the call is dispatched again as a new activity, up to
 * {@link LOST_CALL_REDISPATCHES} times, with a warning. The model's own failures keep their 2
 * retries. Tool calls are not dispatched again: a new activity would get a new idempotency key.
 */
export async function outlivingWorkers<T>(run: Run, label: string, call: () => Promise<T>): Promise<T> {
  for (let lost = 1; ; lost++) {
    try {
      return await call();
    } catch (err) {
      if (!dispatchAgain(run, label, err, lost)) throw err;
    }
  }
}

/**
 * Whether the `lost`-th failure of call `label` was its worker's loss on every attempt and the call
 * goes out again (then with a warning); false when the failure is the caller's to handle.
 */
export function dispatchAgain(run: Run, label: string, err: unknown, lost: number): boolean {
  if (!run.version.redispatchLost || !lostWithWorker(err) || lost > LOST_CALL_REDISPATCHES) return false;
  warn(run.state, RUN_TEXTS.callLost(label, lost, LOST_CALL_REDISPATCHES));
  return true;
}

/** Whether the failure was a non-retryable (fatal) LLM error. */
export function isFatal(err: unknown): boolean {
  const cause = rootCause(err);
  return cause instanceof ApplicationFailure && (cause.nonRetryable || cause.type === FAILURE_TYPES.fatal);
}

/** The run end for an agent activity that failed. */
export function failureEnd(err: unknown, agent: string): RunEnd {
  const diagnostics = diagnosticsOf(err, agent);
  const rid = diagnostics.requestId ? ` (request id ${diagnostics.requestId})` : '';
  if (isFatal(err)) {
    const got = diagnostics.status ? ` got HTTP ${diagnostics.status}${rid}` : '';
    return {
      status: 'failed',
      reason: 'fatal_error',
      reasonText: `fatal_error: agent ${agent}${got}: ${diagnostics.message}`,
      diagnostics,
    };
  }
  return {
    status: 'failed',
    reason: 'activity_failed',
    reasonText: `activity_failed: agent ${agent} failed after 3 attempts: ${diagnostics.message}${rid}`,
    diagnostics,
  };
}
