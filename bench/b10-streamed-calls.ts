/**
 * B10 — streamed model calls (docs/observability.md, "Live output"). Two troupe workers on the same
 * tuned server, one with streaming off (`stream: false`, the baseline) and one streaming, run the
 * same pipeline against the in-process stub, whose replies take the same time either way (streamed:
 * chunks paced over about a second; whole: the same delay, then the body). Measured:
 * 1. history events per model call, streamed and not (streaming should add none: partial text
 *    travels in heartbeat details, which are no events);
 * 2. the raw live channel's delay: from the stub writing a call's first content chunk to the
 *    client's `describe()` showing that call's LiveText with text, p50/p95 over ~20 calls, beside
 *    the round trip of `describe()` itself measured in the same loop.
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
/** A reply: 24 chunks of 8 characters, 40 ms apart (about a second, like a short real reply). */
const REPLY = { chunks: 24, chunkChars: 8, chunkDelayMs: 40 } as const;

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

/** Runs B10. */
export async function runB10(ctx: BenchContext): Promise<BenchReport> {
  const stack: Stack = ctx.variants.tuned ?? ctx.p0;
  const stub = await startStubLlm({ stream: { chunkChars: REPLY.chunkChars, chunkDelayMs: REPLY.chunkDelayMs } });
  const text = (n: number) => `reply ${n} `.padEnd(REPLY.chunks * REPLY.chunkChars, '.');
  // the whole reply waits as long as the streamed one takes to arrive
  stub.respond((req) => ({ text: text(req.n), ...(req.body?.stream === true ? {} : { delayMs: REPLY.chunks * REPLY.chunkDelayMs }) }));
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

    // the live channel: one pipeline of B10_LIVE_CALLS agents; for each call, poll describe() from
    // the moment the stub wrote its first content chunk until the call's LiveText shows text
    const live = pipeline(B10_LIVE_CALLS, 'bench-b10-live');
    const before = stub.requests.length;
    const handle = await startRun(stack.client, { role: live, task: BENCH_TASK, taskQueue: streamed.taskQueue, workflowId: `b10-live-${Date.now()}` });
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

    const events = { whole: median(perCall.whole), streamed: median(perCall.streamed) };
    const delay = { p50: percentile(delays, 50), p95: percentile(delays, 95) };
    const rtt = { p50: percentile(rtts, 50), p95: percentile(rtts, 95) };
    const wallMs = { whole: median(wall.whole), streamed: median(wall.streamed) };
    const targets: TargetCheck[] = [
      {
        target: '(B10) history events per model call, streamed = not streamed (0 added)',
        measured: `${events.streamed} vs ${events.whole} (×${round(events.streamed / events.whole, 3)})`,
        met: events.streamed === events.whole,
      },
      {
        target: '(B10) first content chunk → its LiveText in describe(), p50 ≤ the 500 ms heartbeat throttle + one describe() round trip',
        measured: `p50 ${delay.p50} ms, p95 ${delay.p95} ms (describe() round trip p50 ${rtt.p50} ms)`,
        met: delay.p50 <= 500 + rtt.p50,
      },
    ];
    return {
      id: 'B10',
      title: 'Streamed model calls: history events and the live channel',
      method:
        `Two troupe workers (createWorker) on the ${stack.name} server, streaming off (\`stream: false\`, the baseline) and on, against the in-process stub; ` +
        `a reply of ${REPLY.chunks} chunks of ${REPLY.chunkChars} characters ${REPLY.chunkDelayMs} ms apart, or the same reply whole after the same ${REPLY.chunks * REPLY.chunkDelayMs} ms. ` +
        `Events: ${reps} runs of each of a pipeline of ${B10_EVENT_AGENTS} agents, alternating, history events / calls. ` +
        `Live channel: a pipeline of ${B10_LIVE_CALLS} agents on the streaming worker; for each call, describe() in a loop from the stub's first content chunk until the pending activity's heartbeat details are that call's LiveText with text.`,
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
          title: `First content chunk → LiveText visible through describe(), ${B10_LIVE_CALLS} calls`,
          headers: ['what', 'p50 ms', 'p95 ms'],
          rows: [
            ['first chunk → visible', delay.p50, delay.p95],
            ['describe() round trip (same loop)', rtt.p50, rtt.p95],
            ['ratio to the 500 ms heartbeat throttle', round(delay.p50 / 500, 3), round(delay.p95 / 500, 3)],
          ],
          note: `Delays: ${delays.join(', ')} ms.`,
        },
      ],
      targets,
      data: { perCall, wall, delays, rtts: { p50: rtt.p50, p95: rtt.p95, n: rtts.length } },
    };
  } finally {
    for (const w of [whole, streamed]) {
      w.worker.shutdown();
      await w.running.catch(() => undefined);
    }
    await stub.close();
  }
}
