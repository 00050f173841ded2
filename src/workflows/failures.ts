/**
 * Reading Temporal's activity failures: the diagnostics of a failed call (HTTP status and provider
 * request id when the activity gave them), whether it failed for good at once (a fatal LLM error),
 * and whether every attempt was lost with its worker rather than failing on its own. The ends these
 * lead to are built in `core/ending/decide.ts` (`ENDS`).
 */
import { ActivityFailure, ApplicationFailure, TimeoutFailure } from '@temporalio/workflow';
import type { CallFailure } from '../core/ending/decide';
import type { Diagnostics } from '../core/ending/result';
import type { LlmFailureDetails } from '../core/llm/contract';
import { FAILURE_TYPES } from '../core/llm/contract';

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

/** A failed call of `agent`, as the run's end reads it. */
export function callFailure(err: unknown, agent: string): CallFailure {
  const cause = rootCause(err);
  const fatal = cause instanceof ApplicationFailure && (cause.nonRetryable || cause.type === FAILURE_TYPES.fatal);
  return { diagnostics: diagnosticsOf(err, agent), fatal };
}

/**
 * Whether the activity's last attempt was lost with its worker: no heartbeat came (the worker died,
 * or lost the server), as opposed to a failure the call itself reported.
 */
export function lostWithWorker(err: unknown): boolean {
  return err instanceof ActivityFailure && err.cause instanceof TimeoutFailure && err.cause.timeoutType === 'HEARTBEAT';
}

/** A non-retryable failure a tool raised on purpose (`ToolFatalError`): it ends the run. */
export function toolEndedRun(err: unknown): boolean {
  const cause = rootCause(err);
  return cause instanceof ApplicationFailure && cause.nonRetryable === true;
}

/** A failure's message, for the model or a warning. */
export function failureMessage(err: unknown): string {
  const cause = rootCause(err);
  return cause instanceof Error ? cause.message : String(cause);
}
