/**
 * The workflow's per-run context: the compiled graph, the plain-JSON state, what is in flight and
 * how the run ended. Shared by the workflow's modules; lives only inside one workflow execution.
 */
import { ActivityCancellationType, proxyActivities, type CancellationScope } from '@temporalio/workflow';
import type { TroupeActivities } from '../activities';
import type { CompiledGraph } from '../core/graph/types';
import { FAILURE_TYPES } from '../core/llm/contract';
import type { OutputOutcome, RunEnd } from '../core/ending/result';
import type { RunState } from '../core/state/state';

export interface Run {
  graph: CompiledGraph;
  state: RunState;
  /** Agents whose activities are in flight (for `status` and `stop`). */
  inFlight: string[];
  /** Set once the run has decided how it ends. */
  end?: RunEnd;
  output?: OutputOutcome;
  /** The workflow's root scope: cancelled when the user cancels the workflow. */
  root: CancellationScope;
}

/** Heartbeat timeout of LLM activities (§11.4): a dead worker's call is retried after 5 s. */
export const HEARTBEAT_TIMEOUT_MS = 5_000;

const proxies = new Map<number, TroupeActivities>();

/**
 * Activity proxies for a start-to-close timeout: 3 attempts (2 retries), non-retryable fatal LLM
 * errors, TRY_CANCEL so cancellation reaches the HTTP request through heartbeats.
 */
export function activitiesFor(timeoutMs: number): TroupeActivities {
  let acts = proxies.get(timeoutMs);
  if (!acts) {
    acts = proxyActivities<TroupeActivities>({
      startToCloseTimeout: timeoutMs,
      heartbeatTimeout: HEARTBEAT_TIMEOUT_MS,
      cancellationType: ActivityCancellationType.TRY_CANCEL,
      retry: {
        maximumAttempts: 3,
        initialInterval: '1s',
        backoffCoefficient: 2,
        maximumInterval: '10s',
        nonRetryableErrorTypes: [FAILURE_TYPES.fatal],
      },
    });
    proxies.set(timeoutMs, acts);
  }
  return acts;
}
