/**
 * Reading what a run's model calls are writing now (docs/observability.md, "Live output"): each
 * model-call activity heartbeats a {@link LiveText}, which the server keeps with the run's pending
 * activities (no history event). `readInFlightCalls` asks DescribeWorkflowExecution once and decodes
 * each call's detail with the client's data converter, codec included (an encrypted run's details
 * are encrypted too); `InFlightWatch` asks again at a bounded rate, only while a model call runs.
 * Describe is served by the server alone: the worker does nothing for it.
 */
import type { WorkflowHandle } from '@temporalio/client';
import { optionalTsToMs } from '@temporalio/common/lib/time';
import type { LoadedDataConverter } from '@temporalio/common';
import { decodeFromPayloadsAtIndex } from '@temporalio/common/lib/internal-non-workflow';
import type { temporal } from '@temporalio/proto';
import type { TroupeActivities } from '../activities';
import { parseLiveText, type InFlightCall } from '../core/observe/live';

/** The activities that make model calls (their details are a LiveText; a tool's are its own). */
export const MODEL_CALL_ACTIVITIES: ReadonlySet<string> = new Set([
  'callAgent',
  'callModel',
  'judgeConvergence',
  'compactTranscript',
  'selectSpeaker',
] satisfies Array<keyof TroupeActivities>);

/** Deadline of one describe: a slow server costs a missed update, never a stalled follow. */
export const DESCRIBE_DEADLINE_MS = 3_000;

/**
 * Least time between two describes while following (1 s): one request a second to the server, and
 * only while a model call runs. A worker reports a call's text at most every 500 ms
 * (`maxHeartbeatThrottleInterval`, src/worker.ts), so the text shown is at most about 1.5 s old;
 * the live view redraws once a second anyway.
 */
export const LIVE_TEXT_INTERVAL_MS = 1_000;

/** One entry of DescribeWorkflowExecution's `pendingActivities`. */
export type PendingActivity = temporal.api.workflow.v1.IPendingActivityInfo;

/** Whose pending activities are read: the client's data converter (codec included), its namespace, the run. */
export interface InFlightSource {
  converter: LoadedDataConverter;
  namespace: string;
  workflowId: string;
}

/**
 * The in-flight call one pending activity of DescribeWorkflowExecution is, or undefined when it is
 * not a model call or its details are not a LiveText (or cannot be decoded: a key this client lacks).
 */
export async function callOf(source: InFlightSource, a: PendingActivity): Promise<InFlightCall | undefined> {
  const activityType = a.activityType?.name ?? '';
  const payloads = a.heartbeatDetails?.payloads;
  if (!MODEL_CALL_ACTIVITIES.has(activityType) || !payloads?.length) return undefined;
  const activityId = a.activityId ?? '';
  let detail: unknown;
  try {
    detail = await decodeFromPayloadsAtIndex(source.converter, 0, payloads, {
      type: 'activity',
      namespace: source.namespace,
      activityId,
      workflowId: source.workflowId,
      isLocal: false,
    });
  } catch {
    // encrypted with a key this client lacks, or not JSON: no text to show, never a failure
    return undefined;
  }
  const live = parseLiveText(detail);
  if (!live) return undefined;
  const beat = optionalTsToMs(a.lastHeartbeatTime);
  return {
    ...live,
    activityType,
    activityId,
    attempt: a.attempt ?? 1,
    ...(beat ? { lastHeartbeatAt: new Date(beat).toISOString() } : {}),
  };
}

/**
 * The model calls of the run's current execution that have reported text, in the server's order.
 * Throws when the run cannot be described (not found, no connection, past the deadline).
 */
export async function readInFlightCalls(handle: WorkflowHandle): Promise<InFlightCall[]> {
  const client = handle.client;
  const described = await client.withDeadline(Date.now() + DESCRIBE_DEADLINE_MS, () =>
    client.workflowService.describeWorkflowExecution({
      namespace: client.options.namespace,
      execution: { workflowId: handle.workflowId },
    }),
  );
  const source: InFlightSource = { converter: client.options.loadedDataConverter, namespace: client.options.namespace, workflowId: handle.workflowId };
  const calls = await Promise.all((described.pendingActivities ?? []).map((a) => callOf(source, a)));
  return calls.filter((c): c is InFlightCall => c !== undefined);
}

/**
 * Reads a run's in-flight calls again and again while it is told a model call runs: at once, then
 * at most every `intervalMs`, one describe at a time, reporting each change (and `[]` once nothing
 * runs any more). A describe that fails is skipped, never reported.
 */
export class InFlightWatch {
  private active = false;
  private stopped = false;
  private running = false;
  private wake: (() => void) | undefined;
  private last = '[]';

  constructor(
    private readonly handle: WorkflowHandle,
    private readonly report: (calls: InFlightCall[]) => void,
    private readonly intervalMs = LIVE_TEXT_INTERVAL_MS,
  ) {}

  /** Whether a model call runs now (from the progress query); reading starts and stops with it. */
  set(active: boolean): void {
    this.active = active;
    if (!active) this.wake?.();
    else if (!this.running && !this.stopped) void this.loop();
  }

  /** Stop for good: nothing is reported after this. */
  stop(): void {
    this.stopped = true;
    this.wake?.();
  }

  private async loop(): Promise<void> {
    this.running = true;
    try {
      while (this.active && !this.stopped) {
        const calls = await readInFlightCalls(this.handle).catch(() => undefined);
        if (calls && this.active) this.publish(calls);
        await this.pause();
      }
      this.publish([]);
    } finally {
      this.running = false;
    }
    // told to read again while the last loop was ending
    if (this.active && !this.stopped) void this.loop();
  }

  private publish(calls: InFlightCall[]): void {
    const key = JSON.stringify(calls);
    if (this.stopped || key === this.last) return;
    this.last = key;
    this.report(calls);
  }

  /** Wait `intervalMs`, or less when told to stop. */
  private pause(): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, this.intervalMs);
      timer.unref();
      function done(): void {
        clearTimeout(timer);
        resolve();
      }
      this.wake = () => {
        this.wake = undefined;
        done();
      };
    });
  }
}
