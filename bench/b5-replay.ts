/**
 * B5 — replay cost of recorded troupe histories (SPEC §10): warm `Worker.runReplayHistory` on review
 * loops of 10–200 iterations, fitted to a line to give µs per event and check linearity; replays of
 * several histories in one replay worker; and what a cache miss costs live, by running a loop on a
 * worker with `maxCachedWorkflows: 0` (every workflow task replays the whole history).
 */
import { randomUUID } from 'node:crypto';
import { NativeConnection, Worker } from '@temporalio/worker';
import { createActivities } from '../src/activities';
import { B2_ITERATIONS } from './b2-history';
import { eventRows, eventTypeCounts, type History } from './lib/history';
import { reviewLoopYaml, BENCH_TASK } from './lib/loops';
import { measure } from './lib/measure';
import { compileYaml } from './lib/stack';
import { linearFit, median, round } from './lib/stats';
import type { BenchContext, BenchReport, TargetCheck } from './lib/types';

const SIZES = [10, 20, 50, 100];
/** Iterations of the live run on a worker without a workflow cache. */
export const NO_CACHE_ITERATIONS = 50;

async function record(ctx: BenchContext, iterations: number): Promise<{ history: History; workflowId: string }> {
  const handle = await ctx.p0.startTroupe(compileYaml(reviewLoopYaml(iterations, `bench-replay-${iterations}`)), BENCH_TASK);
  await ctx.p0.result(handle);
  return { history: await handle.fetchHistory(), workflowId: handle.workflowId };
}

async function timeReplay(ctx: BenchContext, history: History, workflowId: string): Promise<number> {
  const t0 = performance.now();
  await Worker.runReplayHistory({ workflowBundle: ctx.bundles.troupe }, history, workflowId);
  return performance.now() - t0;
}

/** Per-history times of replaying `histories` in one replay worker. */
async function timeReplayBatch(ctx: BenchContext, histories: Array<{ history: History; workflowId: string }>): Promise<number[]> {
  const times: number[] = [];
  let t = performance.now();
  const results = Worker.runReplayHistories(
    { workflowBundle: ctx.bundles.troupe },
    histories.map((h) => ({ workflowId: h.workflowId, history: h.history })),
  );
  for await (const r of results) {
    if (r.error) throw r.error;
    const now = performance.now();
    times.push(now - t);
    t = now;
  }
  return times;
}

/** A loop on a worker that caches no workflow: per-step time against the iteration index. */
async function noCacheRun(ctx: BenchContext) {
  const connection = await NativeConnection.connect({ address: ctx.p0.server.address });
  const taskQueue = `bench-nocache-${randomUUID().slice(0, 8)}`;
  const worker = await Worker.create({
    connection,
    namespace: ctx.p0.server.namespace,
    taskQueue,
    workflowBundle: ctx.bundles.troupe,
    activities: createActivities({ baseUrl: ctx.stub.url, apiKey: 'bench-key', env: {} }),
    maxCachedWorkflows: 0,
    maxHeartbeatThrottleInterval: '500ms',
    defaultHeartbeatThrottleInterval: '500ms',
  });
  const running = worker.run();
  try {
    const m = await measure(ctx.stub, { server: ctx.pids.server, worker: ctx.pids.worker }, async () => {
      const handle = await ctx.p0.startTroupe(compileYaml(reviewLoopYaml(NO_CACHE_ITERATIONS, 'bench-nocache')), BENCH_TASK, taskQueue);
      await ctx.p0.result(handle);
    });
    return m;
  } finally {
    worker.shutdown();
    await running;
    await connection.close();
  }
}

/** Runs B5. */
export async function runB5(ctx: BenchContext): Promise<BenchReport> {
  ctx.log(`B5 recording histories of ${SIZES.join(', ')} iterations`);
  const recorded: Array<{ iterations: number; history: History; workflowId: string }> = [];
  for (const n of SIZES) recorded.push({ iterations: n, ...(await record(ctx, n)) });
  const shared = ctx.shared.get('history200') as History | undefined;
  const long = shared
    ? { iterations: B2_ITERATIONS, history: shared, workflowId: String(shared.events?.[0]?.workflowExecutionStartedEventAttributes?.workflowId ?? 'b2') }
    : { iterations: B2_ITERATIONS, ...(await record(ctx, B2_ITERATIONS)) };
  recorded.push(long);

  const coldMs = await timeReplay(ctx, recorded[0].history, recorded[0].workflowId);
  for (const r of recorded) await timeReplay(ctx, r.history, r.workflowId);
  const rows = [];
  for (const r of recorded) {
    const times: number[] = [];
    for (let rep = 0; rep < Math.max(3, ctx.options.reps); rep++) times.push(await timeReplay(ctx, r.history, r.workflowId));
    const evRows = eventRows(r.history);
    const wfts = eventTypeCounts(evRows).WORKFLOW_TASK_COMPLETED ?? 0;
    rows.push({ iterations: r.iterations, events: evRows.length, wfts, ms: median(times), times });
    ctx.log(`B5 replay ${r.iterations} iterations (${evRows.length} events): ${round(median(times))} ms`);
  }
  const fit = linearFit(rows.map((r) => r.events), rows.map((r) => r.ms));
  const batch = await timeReplayBatch(ctx, [long, long, long, long]);
  const batchWarm = median(batch.slice(1));
  const longRow = rows[rows.length - 1];
  const short20 = rows.find((r) => r.iterations === 20)!;
  const at12k = fit.intercept + fit.slope * 12005;

  const steps200 = ctx.shared.get('steps200') as number[] | undefined;
  const cachedSlope = steps200 ? linearFit(steps200.map((_, i) => i), steps200) : undefined;
  ctx.log(`B5 live loop of ${NO_CACHE_ITERATIONS} iterations on a worker with maxCachedWorkflows 0`);
  const noCache = await noCacheRun(ctx);
  const noCacheFit = linearFit(noCache.stepMs.map((_, i) => i), noCache.stepMs);
  const firstTen = median(noCache.stepMs.slice(0, 20));
  const lastTen = median(noCache.stepMs.slice(-20));

  const fmt = (x: number, d = 2) => round(x, d);
  const targets: TargetCheck[] = [
    { target: 'Warm replay µs per event ≤ 80 (fitted slope)', measured: `${fmt(fit.slope * 1000, 1)} µs`, met: fit.slope * 1000 <= 80 },
    { target: 'Warm replay ms per workflow task ≤ 0.5 (200-iteration history)', measured: `${fmt(longRow.ms / longRow.wfts, 3)} ms`, met: longRow.ms / longRow.wfts <= 0.5 },
    { target: 'Replay of 12k events ≤ 1 s (extrapolated from the fit)', measured: `${fmt(at12k, 0)} ms`, met: at12k <= 1000 },
    { target: 'Linear in events (R² ≥ 0.99)', measured: fmt(fit.r2, 4).toString(), met: fit.r2 >= 0.99 },
    cachedSlope
      ? { target: 'Cache on: step latency has ~0 slope vs step index (< 0.01 ms/step)', measured: `${fmt(cachedSlope.slope * 1000, 2)} µs/step`, met: Math.abs(cachedSlope.slope) < 0.01 }
      : { target: 'Cache on: step latency ~0 slope', measured: 'not measured (B2 not run)', met: null },
  ];
  return {
    id: 'B5',
    title: 'Replay of recorded histories',
    method: `Review-loop histories of ${[...SIZES, B2_ITERATIONS].join(', ')} iterations recorded in this run (the ${B2_ITERATIONS}-iteration one is B2's). Each replayed with Worker.runReplayHistory and the prebuilt bundle after one warm-up pass; median of ${Math.max(3, ctx.options.reps)}. Every call builds a replay worker, so the fit's intercept is that fixed cost and its slope the cost per event. Cold = the first replay call of this process.`,
    tables: [
      {
        title: 'Warm replay time (Worker.runReplayHistory, median)',
        headers: ['iterations', 'events', 'workflow tasks', 'ms', 'µs per event', 'ms per workflow task'],
        rows: rows.map((r) => [r.iterations, r.events, r.wfts, fmt(r.ms), fmt((r.ms * 1000) / r.events, 1), fmt(r.ms / r.wfts, 3)]),
        note: `Fit: ms = ${fmt(fit.intercept)} + ${fmt(fit.slope * 1000, 2)} µs × events (R² ${fmt(fit.r2, 4)}). ${longRow.iterations} vs 20 iterations: ${fmt(longRow.ms / short20.ms)}× the time for ${fmt(longRow.events / short20.events)}× the events. Cold first call: ${fmt(coldMs)} ms.`,
      },
      {
        title: 'Other replay and cache measures',
        headers: ['measure', 'value'],
        rows: [
          [`${longRow.iterations}-iteration history, 4 in one replay worker (runReplayHistories), warm per history`, `${fmt(batchWarm)} ms (${fmt((batchWarm * 1000) / longRow.events, 1)} µs/event)`],
          ['extrapolated replay of a 1,000-iteration history (12,005 events)', `${fmt(at12k, 0)} ms`],
          ['cache on (B2 run): step time slope vs step index', cachedSlope ? `${fmt(cachedSlope.slope * 1000, 2)} µs per step` : '—'],
          [`cache off (maxCachedWorkflows 0), ${NO_CACHE_ITERATIONS} iterations: step time first 20 → last 20 steps (median)`, `${fmt(firstTen)} → ${fmt(lastTen)} ms`],
          ['cache off: step time slope vs step index', `${fmt(noCacheFit.slope * 1000, 1)} µs per step (R² ${fmt(noCacheFit.r2, 3)})`],
        ],
      },
    ],
    targets,
    data: { rows, fit, coldMs, batch, cachedSlope, noCache: { stepMs: noCache.stepMs, fit: noCacheFit, cpuMs: noCache.cpuMs, wallMs: noCache.wallMs } },
  };
}
