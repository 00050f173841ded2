/**
 * The floor workflow (bench-only, bundled apart from troupe): N sequential steps of one tiny
 * activity, as a regular activity (with or without troupe's heartbeat options) or a local
 * activity. The difference between it and troupe's review loop is troupe's own cost per step.
 */
import { condition, defineQuery, defineSignal, executeChild, ParentClosePolicy, proxyActivities, proxyLocalActivities, setHandler, workflowInfo } from '@temporalio/workflow';
import type { FloorActivities } from './activities';

/**
 * How each floor step runs. `activity-payload` is a bare activity that carries what a durable agent
 * loop on bare Temporal must carry: the request in its input (a string as long as the recorded
 * request's JSON) and the reply's text as its result; the other modes pass a step number and return
 * a length.
 */
export type FloorMode = 'activity' | 'activity-heartbeat' | 'local-activity' | 'activity-payload';

/** Input of {@link floorLoop}. */
export interface FloorInput {
  steps: number;
  mode: FloorMode;
  /** `activity-payload`: the JSON length of each recorded request (cycled). */
  requestBytes?: number[];
}

const retry = { maximumAttempts: 3, initialInterval: '1s' } as const;
const plain = proxyActivities<FloorActivities>({ startToCloseTimeout: '30s', retry });
const beating = proxyActivities<FloorActivities>({ startToCloseTimeout: '30s', heartbeatTimeout: '5s', retry });
const local = proxyLocalActivities<FloorActivities>({ startToCloseTimeout: '30s', retry });

/** B4: `k` floor calls at once (one wave), as troupe's star dispatches its agents. */
export async function floorFanout(k: number): Promise<number> {
  const replies = await Promise.all(Array.from({ length: k }, (_, step) => plain.floorCall({ step, heartbeat: false })));
  return replies.reduce((a, b) => a + b, 0);
}

/** B6: releases a parked floor run. */
export const floorReleaseSignal = defineSignal('floorRelease');

/** B6: one floor call, then parked until released (as a troupe run waits for an approval). */
export async function floorParked(): Promise<number> {
  let released = false;
  setHandler(floorReleaseSignal, () => {
    released = true;
  });
  const reply = await plain.floorCall({ step: 0, heartbeat: false });
  await condition(() => released);
  return reply;
}

/** Input of {@link floorPayload}. */
export interface FloorPayloadInput {
  steps: number;
  payload: string;
  replyChars: number;
}

/** B7: `steps` sequential bare activities, each taking `payload` and returning `replyChars` characters. */
export async function floorPayload(input: FloorPayloadInput): Promise<number> {
  let total = 0;
  for (let step = 0; step < input.steps; step++) total += (await plain.floorEcho({ payload: input.payload, replyChars: input.replyChars })).length;
  return total;
}

/** Input of {@link floorNested}: the troupe run to start as a child, and the task queue of troupe's worker. */
export interface FloorNestedInput {
  taskQueue: string;
  run: { graph: unknown; task: string };
}

/**
 * B9: a bare parent whose only work is one child workflow — the troupe run of a team, started as a
 * troupe parent starts a team agent's child (same id shape, parent close policy) — and its result.
 */
export async function floorNested(input: FloorNestedInput): Promise<unknown> {
  return executeChild('troupeRun', {
    taskQueue: input.taskQueue,
    workflowId: `${workflowInfo().workflowId}/team-1`,
    args: [input.run],
    parentClosePolicy: ParentClosePolicy.REQUEST_CANCEL,
  });
}

/** The floor's status query: the steps done so far (B8 compares a troupe query with it). */
export const floorStepsQuery = defineQuery<number>('floorSteps');

/** Runs `steps` sequential floor calls; returns the total reply length. */
export async function floorLoop(input: FloorInput): Promise<number> {
  let total = 0;
  let done = 0;
  setHandler(floorStepsQuery, () => done);
  for (let step = 0; step < input.steps; step++, done++) {
    switch (input.mode) {
      case 'activity':
        total += await plain.floorCall({ step, heartbeat: false });
        break;
      case 'activity-heartbeat':
        total += await beating.floorCall({ step, heartbeat: true });
        break;
      case 'local-activity':
        total += await local.floorCall({ step, heartbeat: false });
        break;
      case 'activity-payload': {
        const sizes = input.requestBytes ?? [0];
        total += (await plain.floorChat({ step, request: 'x'.repeat(sizes[step % sizes.length]) })).length;
        break;
      }
      default: {
        const never: never = input.mode;
        throw new Error(`unknown floor mode ${String(never)}`);
      }
    }
  }
  return total;
}
