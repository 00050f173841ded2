/**
 * B11 — how soon an agent's partial text can be read (docs/observability.md, "Live output"): the
 * stub streams a reply (its first token after 400 ms, then 20 characters every 40 ms) and, in this
 * process, the reader `troupe status --json` uses (`src/client/pending-activities.ts`: a DescribeWorkflowExecution
 * and each pending activity's heartbeat details decoded by `callOf`) is asked every 20 ms. Measured
 * per run: from the stub writing its first content chunk to the first describe whose details carry
 * text. Baseline, in the same runs and by the same polling: from the client's start of the run to
 * the first describe that shows the agent's activity started, a change the worker makes through
 * the server with no heartbeat throttle between.
 */
import type { WorkflowHandle } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { defineRole } from '../src/core/config/define';
import { callOf, type InFlightSource } from '../src/client/pending-activities';
import { BENCH_TASK } from './lib/loops';
import type { Stack } from './lib/stack';
import { round, summarize } from './lib/stats';
import type { BenchContext, BenchReport, TargetCheck } from './lib/types';

/** Runs measured (after one to warm up). */
export const B11_SAMPLES = 20;
/** How often the bench asks describe: the resolution of both measurements. */
const POLL_MS = 20;
/** The stub's time to first token, and how it streams after it. */
const FIRST_TOKEN_MS = 400;
const STREAM = { chunkChars: 20, chunkDelayMs: 40 };
const REPLY_CHARS = 1_000;
/** Give up on a run after this long without text. */
const GIVE_UP_MS = 15_000;

const ROLE = defineRole({
  name: 'bench-live',
  agents: { writer: { instructions: 'Write.' } },
  collaboration: { topology: 'pipeline', agents: ['writer'] },
}).graph;

const STARTED = temporal.api.enums.v1.PendingActivityState.PENDING_ACTIVITY_STATE_STARTED;

interface Sample {
  /** Stub's first content chunk → first describe with text. */
  liveMs: number;
  /** Client's start → first describe showing the activity started. */
  startedMs: number;
  /** Round trip of one describe and its decoding, median over the run. */
  describeMs: number;
}

/** One run: poll describe until its details carry text; the times it first showed each thing. */
async function sample(ctx: BenchContext, stack: Stack): Promise<Sample> {
  await ctx.stub.reset();
  const startAt = Date.now();
  const handle: WorkflowHandle = await stack.startTroupe(ROLE, BENCH_TASK);
  const client = stack.client.workflow;
  const source: InFlightSource = { converter: client.options.loadedDataConverter, namespace: client.options.namespace, workflowId: handle.workflowId };
  let startedSeen: number | undefined;
  let textSeen: number | undefined;
  const trips: number[] = [];
  while (textSeen === undefined) {
    if (Date.now() - startAt > GIVE_UP_MS) throw new Error(`B11: no partial text within ${GIVE_UP_MS} ms`);
    const asked = Date.now();
    const described = await client.workflowService.describeWorkflowExecution({ namespace: source.namespace, execution: { workflowId: handle.workflowId } });
    const pending = described.pendingActivities ?? [];
    const calls = await Promise.all(pending.map((a) => callOf(source, a)));
    const seen = Date.now();
    trips.push(seen - asked);
    if (startedSeen === undefined && pending.some((a) => a.activityType?.name === 'callAgent' && a.state === STARTED)) startedSeen = seen;
    if (calls.some((c) => c !== undefined && c.chars > 0)) textSeen = seen;
    else await new Promise((r) => setTimeout(r, Math.max(0, POLL_MS - (Date.now() - asked))));
  }
  const result = (await stack.result(handle)) as { status?: string };
  if (result.status !== 'completed') throw new Error(`B11: run ended ${JSON.stringify(result.status)}`);
  const first = (await ctx.stub.firstTexts()).find((f) => f.agent === 'writer');
  if (first?.firstTextAt === undefined || startedSeen === undefined) throw new Error(`B11: missing times ${JSON.stringify({ first, startedSeen })}`);
  return { liveMs: textSeen - first.firstTextAt, startedMs: startedSeen - startAt, describeMs: summarize(trips).p50 };
}

/** Runs B11. */
export async function runB11(ctx: BenchContext): Promise<BenchReport> {
  const stack: Stack = ctx.variants.tuned ?? ctx.p0;
  await ctx.stub.configure(FIRST_TOKEN_MS, REPLY_CHARS);
  await ctx.stub.stream(STREAM);
  const samples: Sample[] = [];
  try {
    await sample(ctx, stack);
    for (let i = 0; i < B11_SAMPLES; i++) {
      samples.push(await sample(ctx, stack));
      ctx.log(`B11 run ${i + 1}/${B11_SAMPLES}: text ${samples.at(-1)!.liveMs} ms after the first token; started seen ${samples.at(-1)!.startedMs} ms after the start`);
    }
  } finally {
    await ctx.stub.configure(0);
    await ctx.stub.stream({});
  }
  const live = summarize(samples.map((s) => s.liveMs));
  const started = summarize(samples.map((s) => s.startedMs));
  const trip = summarize(samples.map((s) => s.describeMs));
  const ratio = round(live.p50 / started.p50, 2);
  const targets: TargetCheck[] = [
    {
      target: '(B11) first token → first partial text read by describe ≤ 1 s p50 (tuned dev server)',
      measured: `${round(live.p50, 0)} ms p50, ${round(live.p95, 0)} ms p95 (${ratio} × the baseline's ${round(started.p50, 0)} ms p50)`,
      met: live.p50 <= 1_000,
    },
  ];
  return {
    id: 'B11',
    title: "An agent's partial text, from the model's first token to a client's describe",
    method:
      `${stack.name === 'P0' ? 'The default' : 'The tuned'} dev server; the troupe worker of createWorker (heartbeat throttle 500 ms); a one-agent pipeline whose reply the stub streams: ` +
      `first token after ${FIRST_TOKEN_MS} ms, then ${STREAM.chunkChars} characters every ${STREAM.chunkDelayMs} ms, ${REPLY_CHARS} characters. ` +
      `In this process, the reader of \`troupe status --json\` (DescribeWorkflowExecution, each pending activity's heartbeat details decoded by \`callOf\`, src/client/pending-activities.ts) is asked every ${POLL_MS} ms from the start of the run. ` +
      `Measured: the stub's first content chunk → the first describe whose details carry text. Baseline, same runs, same polling: the client's start → the first describe showing the \`callAgent\` activity started. ` +
      `One run to warm up, then ${B11_SAMPLES}.`,
    tables: [
      {
        title: `Latency over ${B11_SAMPLES} runs (ms)`,
        headers: ['what', 'p50', 'p95', 'min', 'max'],
        rows: [
          ['first token → partial text seen by describe', round(live.p50, 0), round(live.p95, 0), round(live.min, 0), round(live.max, 0)],
          ['baseline: start → activity started seen by describe', round(started.p50, 0), round(started.p95, 0), round(started.min, 0), round(started.max, 0)],
          ['one describe and its decoding (median per run)', round(trip.p50, 1), round(trip.p95, 1), round(trip.min, 1), round(trip.max, 1)],
        ],
        note:
          `Ratio of the medians, partial text ÷ baseline: ${ratio}. The bench asks every ${POLL_MS} ms; \`troupe run\`'s live view and \`status --watch\` ask once a second while a model call runs, ` +
          'which adds up to a second (half a second on average) to what a person sees.',
      },
    ],
    targets,
    data: { samples, live, started, describe: trip },
  };
}
