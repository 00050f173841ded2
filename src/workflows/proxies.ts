/**
 * Activity proxies of the run workflow. Every LLM activity runs with 3 attempts, heartbeats so a
 * dead worker's call is retried after 5 s and cancellation reaches the HTTP request, and treats
 * fatal LLM errors (HTTP 400/401/403/404/422, forbidden endpoints) as non-retryable.
 */
import { ActivityCancellationType, proxyActivities, proxyLocalActivities, type ActivityInterfaceFor } from '@temporalio/workflow';
import type { TroupeActivities } from '../activities';
import { FAILURE_TYPES } from '../core/llm/contract';
import type { ToolCallInput, ToolCallOutcome, ToolDefinition } from '../core/llm/tool-contract';
import { summary, SUMMARY_TEXTS } from '../core/observe/summaries';

/** Heartbeat timeout of LLM activities: a dead worker's call is retried after 5 s. */
export const HEARTBEAT_TIMEOUT_MS = 5_000;

/** Judge activity timeout when the role sets none (the same policy as agents). */
export const JUDGE_TIMEOUT_MS = 30_000;

/** Selector activity timeout when `collaboration.selector.model` sets none (like the judge: docs/teams.md, "Selector teams"). */
export const SELECTOR_TIMEOUT_MS = 30_000;

/**
 * The run-start check runs as a local activity: quick, on the worker that runs the workflow task, its
 * answer recorded in one history marker.
 */
export const localActivities = proxyLocalActivities<TroupeActivities>({
  startToCloseTimeout: '60s',
  retry: { maximumAttempts: 3, nonRetryableErrorTypes: [FAILURE_TYPES.fatal] },
  summary: SUMMARY_TEXTS.prepare,
});

/** Heartbeat timeout of tool activities: a dead worker's tool call is retried after 5 s. */
export const TOOL_HEARTBEAT_TIMEOUT_MS = 5_000;

const toolProxies = new Map<string, ActivityInterfaceFor<TroupeActivities>>();

/**
 * The `callTool` activity for one tool, with `label` as its summary in the Temporal UI: its own
 * start-to-close timeout, 1 + its retries attempts (transport failures only; the tool's own errors
 * come back as text), cancellable, heartbeating.
 */
export function toolActivity(spec: ToolDefinition, label: string): (input: ToolCallInput) => Promise<Exclude<ToolCallOutcome, { kind: 'fatal' }>> {
  const key = `${spec.timeoutMs}/${spec.retries}`;
  let acts = toolProxies.get(key);
  if (!acts) {
    acts = proxyActivities<TroupeActivities>({
      startToCloseTimeout: spec.timeoutMs,
      heartbeatTimeout: TOOL_HEARTBEAT_TIMEOUT_MS,
      cancellationType: ActivityCancellationType.TRY_CANCEL,
      retry: {
        maximumAttempts: 1 + spec.retries,
        initialInterval: '1s',
        backoffCoefficient: 2,
        maximumInterval: '10s',
        nonRetryableErrorTypes: [FAILURE_TYPES.fatal, FAILURE_TYPES.toolFatal],
      },
    });
    toolProxies.set(key, acts);
  }
  const callTool = acts.callTool;
  return (input) => callTool.executeWithOptions({ summary: summary(label) }, [input]);
}

const proxies = new Map<number, ActivityInterfaceFor<TroupeActivities>>();

/** Activity proxies for a start-to-close timeout (one proxy object per timeout, reused). */
export function activitiesFor(timeoutMs: number): ActivityInterfaceFor<TroupeActivities> {
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
