/**
 * B10 — streamed model calls (docs/observability.md, "Live output"). Two troupe workers on the same
 * tuned server, one with streaming off (`stream: false`, the baseline) and one streaming, run the
 * same pipeline against the in-process stub, whose replies take the same time either way (streamed:
 * chunks paced over about a second; whole: the same delay, then the body). Measured:
 * 1. history events per model call, streamed and not (streaming should add none: partial text
 *    travels in heartbeat details, which are no events);
 * 2. the raw live channel's delay: from the stub writing a call's first content chunk to the
 *    client's `describe()` showing that call's LiveText with text, p50/p95 over 20 calls, with the
 *    first token at once and after 600 ms, beside the round trip of `describe()` itself.
 */
import { defaultPayloadConverter } from '@temporalio/client';
import type { Worker } from '@temporalio/worker';
import { defineRole } from '../src/core/config/define';
import type { CompiledGraph } from '../src/core/graph/types';
import { readLiveText } from '../src/core/observe/live';
import { startRun } from '../src/client';
import { createWorker } from '../src/worker';
import { startStubLlm, type StubLlm } from '../test/helpers/stub-llm';
import { BENCH_TASK } from './lib/loops';
import type { Stack } from './lib/stack';
import { median, percentile, round } from './lib/stats';
import type { BenchContext, BenchReport, TargetCheck } from './lib/types';

/** Agents of the pipeline whose history is counted. */
const B10_EVENT_AGENTS = 4;
/** Calls over which the live channel's delay is measured. */
const B10_LIVE_CALLS = 20;
/** The second live measurement's time to first token: the stub waits this long before it streams. */
const TTFT_MS = 600;
/** A reply: 24 chunks of 8 characters, 40 ms apart (about a second, like a short real reply). */
const REPLY = { chunks: 24, chunkChars: 8, chunkDelayMs: 40 } as const;
/** How long the streamed reply takes: 27 chunks (the role, 24 of text, the finish, the usage), 26 gaps; the whole one waits as long. */
const REPLY_MS = (REPLY.chunks + 2) * REPLY.chunkDelayMs;

function pipeline(k: number, name: string): CompiledGraph {
  const names = Array.from({ length: k }, (_, i) => `step${i + 1}`);
  return defineRole({
    name,
    agents: Object.fromEntries(names.map((n) => [n, { instructions: `Do part ${n} of the work.` }])),
    collaboration: { topology: 'pipeline', agents: names },
  }).graph;
}

interface BenchWorker {
  taskQueue: string;
  worker: Worker;
  running: Promise<void>;
}

async function startWorkerOn(ctx: BenchContext, stack: Stack, stub: StubLlm, stream: boolean): Promise<BenchWorker> {
  const taskQueue = `bench-b10-${stream ? 'streamed' : 'whole'}-${Date.now()}`;
  const worker = await createWorker({
    address: stack.server.address,
    namespace: stack.server.namespace,
    taskQueue,
    workflowBundle: ctx.bundles.troupe,
    shutdownGraceMs: 0,
    llm: { baseUrl: stub.url, apiKey: 'bench-key', env: {}, stream },
  });
  return { taskQueue, worker, running: worker.run() };
}

interface LiveDelays {
  delays: number[];
  rtts: number[];
  p50: number;
  p95: number;
}

/**
 * One pipeline of B10_LIVE_CALLS agents on the streaming worker; for each call, describe() in a loop
 * from the moment the stub wrote its first content chunk until the call's LiveText shows text.
 */
async function measureLive(ctx: BenchContext, stack: Stack, stub: StubLlm, taskQueue: string): Promise<LiveDelays> {
  const graph = pipeline(B10_LIVE_CALLS, 'bench-b10-live');
  const before = stub.requests.length;
  const handle = await startRun(stack.client, { role: graph, task: BENCH_TASK, taskQueue, workflowId: `b10-live-${Date.now()}` });
  const delays: number[] = [];
  const rtts: number[] = [];
  for (let i = 0; i < B10_LIVE_CALLS; i++) {
    const agent = `step${i + 1}`;
    await stub.waitFor(() => stub.requests[before + i]?.firstTextAt !== undefined, { timeoutMs: 30_000 });
    const firstText = stub.requests[before + i]!.firstTextAt!;
    for (;;) {
      const sent = Date.now();
      const described = await handle.describe();
      rtts.push(Date.now() - sent);
      const payload = described.raw.pendingActivities?.[0]?.heartbeatDetails?.payloads?.[0];
      const seen = payload ? readLiveText(defaultPayloadConverter.fromPayload(payload)) : undefined;
      if (seen?.agent === agent && seen.chars > 0) {
        delays.push(Date.now() - firstText);
        break;
      }
      if (Date.now() - firstText > 10_000) throw new Error(`B10: no live text of ${agent} within 10 s`);
    }
  }
  await handle.result();
  ctx.log(`B10 live delays ms: ${delays.join(', ')}`);
  return { delays, rtts, p50: round(percentile(delays, 50), 1), p95: round(percentile(delays, 95), 1) };
}

/** Runs B10. */
export async function runB10(ctx: BenchContext): Promise<BenchReport> {
  const stack: Stack = ctx.variants.tuned ?? ctx.p0;
  const stub = await startStubLlm({ stream: { chunkChars: REPLY.chunkChars, chunkDelayMs: REPLY.chunkDelayMs } });
  const text = (n: number) => `reply ${n} `.padEnd(REPLY.chunks * REPLY.chunkChars, '.');
  // the whole reply waits as long as the streamed one takes to arrive
  let ttft = 0;
  stub.respond((req) => ({
    text: text(req.n),
    ...(req.body?.stream === true ? (ttft > 0 ? { delayMs: ttft } : {}) : { delayMs: REPLY_MS }),
  }));
  const whole = await startWorkerOn(ctx, stack, stub, false);
  const streamed = await startWorkerOn(ctx, stack, stub, true);
  try {
    const reps = Math.max(3, ctx.options.reps);
    const graph = pipeline(B10_EVENT_AGENTS, 'bench-b10');
    const perCall: Record<'whole' | 'streamed', number[]> = { whole: [], streamed: [] };
    const wall: Record<'whole' | 'streamed', number[]> = { whole: [], streamed: [] };
    for (let i = 0; i < reps; i++) {
      for (const [kind, w] of [
        ['whole', whole],
        ['streamed', streamed],
      ] as const) {
        const before = stub.requests.length;
        const started = Date.now();
        const handle = await startRun(stack.client, { role: graph, task: BENCH_TASK, taskQueue: w.taskQueue, workflowId: `b10-${kind}-${i}-${Date.now()}` });
        const result = (await handle.result()) as { status?: string; usage?: { agentCalls: number } };
        wall[kind].push(Date.now() - started);
        const calls = stub.requests.slice(before);
        if (result.status !== 'completed' || result.usage?.agentCalls !== B10_EVENT_AGENTS) throw new Error(`B10 ${kind}: ${JSON.stringify(result)}`);
        if (calls.some((r) => r.streamed !== (kind === 'streamed'))) throw new Error(`B10 ${kind}: a call went the other way`);
        const history = await stack.client.workflow.getHandle(handle.workflowId).fetchHistory();
        perCall[kind].push((history.events?.length ?? 0) / B10_EVENT_AGENTS);
      }
      ctx.log(`B10 events per call, rep ${i + 1}/${reps}: whole ${perCall.whole.at(-1)}, streamed ${perCall.streamed.at(-1)}`);
    }

    // the live channel, for a first token at once and after TTFT_MS (a hosted model's usual wait)
    ttft = 0;
    const atOnce = await measureLive(ctx, stack, stub, streamed.taskQueue);
    ttft = TTFT_MS;
    const later = await measureLive(ctx, stack, stub, streamed.taskQueue);

    const events = { whole: median(perCall.whole), streamed: median(perCall.streamed) };
    const rtt = { p50: round(percentile([...atOnce.rtts, ...later.rtts], 50), 1), p95: round(percentile([...atOnce.rtts, ...later.rtts], 95), 1) };
    const wallMs = { whole: median(wall.whole), streamed: median(wall.streamed) };
    const targets: TargetCheck[] = [
      {
        target: '(B10) history events per model call, streamed = not streamed (0 added)',
        measured: `${events.streamed} vs ${events.whole} (×${round(events.streamed / events.whole, 3)})`,
        met: events.streamed === events.whole,
      },
      {
        target: '(B10) first content chunk → its LiveText in describe(), p50 ≤ the 500 ms heartbeat throttle + one describe() round trip',
        measured: `first token at once: p50 ${atOnce.p50} ms, p95 ${atOnce.p95} ms; after ${TTFT_MS} ms: p50 ${later.p50} ms, p95 ${later.p95} ms (describe() round trip p50 ${rtt.p50} ms)`,
        met: Math.max(atOnce.p50, later.p50) <= 500 + rtt.p50,
      },
    ];
    return {
      id: 'B10',
      title: 'Streamed model calls: history events and the live channel',
      method:
        `Two troupe workers (createWorker) on the ${stack.name} server, streaming off (\`stream: false\`, the baseline) and on, against the in-process stub; ` +
        `a reply of ${REPLY.chunks} chunks of ${REPLY.chunkChars} characters ${REPLY.chunkDelayMs} ms apart, or the same reply whole after the same ${REPLY_MS} ms. ` +
        `Events: ${reps} runs of each of a pipeline of ${B10_EVENT_AGENTS} agents, alternating, history events / calls. ` +
        `Live channel: a pipeline of ${B10_LIVE_CALLS} agents on the streaming worker, twice (the stub streams at once, then after ${TTFT_MS} ms); for each call, describe() in a loop from the stub's first content chunk until the pending activity's heartbeat details are that call's LiveText with text.`,
      tables: [
        {
          title: 'History events per model call (median)',
          headers: ['variant', 'events per call', 'wall ms per run'],
          rows: [
            ['not streamed (baseline)', events.whole, wallMs.whole],
            ['streamed', events.streamed, wallMs.streamed],
            ['ratio', round(events.streamed / events.whole, 3), round(wallMs.streamed / wallMs.whole, 3)],
          ],
        },
        {
          title: `First content chunk → LiveText visible through describe(), ${B10_LIVE_CALLS} calls each`,
          headers: ['first token', 'p50 ms', 'p95 ms', 'p50 / 500 ms throttle'],
          rows: [
            ['at once (the stub streams at the request)', atOnce.p50, atOnce.p95, round(atOnce.p50 / 500, 3)],
            [`after ${TTFT_MS} ms`, later.p50, later.p95, round(later.p50 / 500, 3)],
            ['describe() round trip (same loops)', rtt.p50, rtt.p95, ''],
          ],
          note: `Delays at once: ${atOnce.delays.join(', ')} ms; after ${TTFT_MS} ms: ${later.delays.join(', ')} ms.`,
        },
      ],
      targets,
      data: { perCall, wall, atOnce, later, rtt },
    };
  } finally {
    for (const w of [whole, streamed]) {
      w.worker.shutdown();
      await w.running.catch(() => undefined);
    }
    await stub.close();
  }
}
