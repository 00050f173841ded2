/**
 * B3 — throughput of N concurrent review loops (5 iterations = 10 activities each) at stub delay
 * 0 ms: activity completions per second against a promise pool of N chains sending the same number
 * of recorded requests directly. With --long also N = 128 and a 200 ms stub delay, where the ideal
 * is Little's law (N / latency). N = 8 and 32 also run on the tuned dev server (eager dispatch + fast
 * transfer-queue polling).
 */
import type { WorkflowHandle } from '@temporalio/client';
import { benchClient } from './lib/direct';
import { activitySteps } from './lib/history';
import { promisePool, reviewLoopYaml, BENCH_TASK } from './lib/loops';
import { cpuOf, measure, type Measured } from './lib/measure';
import { memoryMiB } from './lib/proc';
import { compileYaml, SERVER_VARIANTS, type Stack } from './lib/stack';
import { requestBytes } from './lib/stub-client';
import { peerLoop, type PeerSaver } from './peers/langgraph';
import { median, percentile, round } from './lib/stats';
import type { BenchContext, BenchReport, TargetCheck } from './lib/types';

/** Iterations per workflow (2 activities each). */
export const B3_ITERATIONS = 5;

/** Repetitions per point: an odd number, so that one has the median ratio (at least 3; runs of ~2 s on a shared box vary by ±15 %). */
export const B3_REPS = (ctx: BenchContext) => Math.max(3, ctx.options.reps | 1);

interface Point {
  server: string;
  n: number;
  delayMs: number;
  activities: number;
  troupe: Measured;
  floor: Measured;
  pool: Measured;
  troupePerSec: number;
  floorPerSec: number;
  /** The floor carrying each request and reply (`activity-payload`). */
  payloadFloorPerSec: number;
  /** The peer's completions/s by checkpointer (bench/peers; absent when not installed). */
  peerPerSec: Partial<Record<PeerSaver, number>>;
  poolPerSec: number;
  workflowsPerMin: number;
  /** Per-workflow step times (consecutive ActivityTaskScheduled, server clock). */
  stepMs: number[];
}

async function point(ctx: BenchContext, n: number, delayMs: number, stack: Stack = ctx.p0, floorFirst = false): Promise<Point> {
  const perChain = 2 * B3_ITERATIONS;
  const roles = { server: stack.server.pid, worker: ctx.pids.worker, stub: ctx.pids.stub };
  const graph = compileYaml(reviewLoopYaml(B3_ITERATIONS, 'bench-throughput'));
  let handles: WorkflowHandle[] = [];
  const runTroupe = () =>
    measure(ctx.stub, roles, async () => {
      handles = await Promise.all(Array.from({ length: n }, () => stack.startTroupe(graph, BENCH_TASK)));
      await Promise.all(handles.map((h) => stack.result(h)));
    });
  // the floor: N bare-activity loops sending the same number of recorded requests
  const runFloor = () =>
    measure(ctx.stub, roles, async () => {
      const floors = await Promise.all(Array.from({ length: n }, () => stack.startFloor({ steps: perChain, mode: 'activity' })));
      await Promise.all(floors.map((f) => f.result()));
    });
  // the floor that carries each request and reply, as a durable agent loop on bare Temporal must
  const sizes = requestBytes(ctx.requests);
  const runPayloadFloor = () =>
    measure(ctx.stub, roles, async () => {
      const floors = await Promise.all(Array.from({ length: n }, () => stack.startFloor({ steps: perChain, mode: 'activity-payload', requestBytes: sizes })));
      await Promise.all(floors.map((f) => f.result()));
    });
  // back to back, the order alternating between repetitions
  const floorEarly = floorFirst ? await runFloor() : undefined;
  const payloadEarly = floorFirst ? await runPayloadFloor() : undefined;
  const troupe = await runTroupe();
  const floor = floorEarly ?? (await runFloor());
  const payloadFloor = payloadEarly ?? (await runPayloadFloor());
  const stepMs: number[] = [];
  for (const h of handles) {
    const steps = activitySteps(await h.fetchHistory());
    for (let i = 1; i < steps.length; i++) stepMs.push(steps[i].scheduledMs - steps[i - 1].scheduledMs);
  }
  const client = benchClient(ctx.stub.url);
  const pool = await measure(ctx.stub, roles, () => promisePool(client, ctx.requests, n, perChain));
  // the peer: N threads of the same loop as a LangGraph.js graph, in this process
  const peerPerSec: Point['peerPerSec'] = {};
  for (const saver of ['memory', 'sqlite'] as const) {
    const loop = peerLoop(saver, client, ctx.requests);
    if (!loop) continue;
    try {
      const m = await measure(ctx.stub, roles, () => Promise.all(Array.from({ length: n }, (_, w) => loop.run(perChain, w * perChain))));
      peerPerSec[saver] = (m.requests / m.wallMs) * 1000;
    } finally {
      loop.close();
    }
  }
  const activities = n * perChain;
  return {
    server: stack === ctx.p0 ? 'P0' : SERVER_VARIANTS.tuned.label,
    n,
    delayMs,
    activities,
    troupe,
    floor,
    pool,
    troupePerSec: (troupe.requests / troupe.wallMs) * 1000,
    floorPerSec: (floor.requests / floor.wallMs) * 1000,
    payloadFloorPerSec: (payloadFloor.requests / payloadFloor.wallMs) * 1000,
    peerPerSec,
    poolPerSec: (pool.requests / pool.wallMs) * 1000,
    workflowsPerMin: (n / troupe.wallMs) * 60_000,
    stepMs,
  };
}

/** Runs B3. */
export async function runB3(ctx: BenchContext): Promise<BenchReport> {
  const tuned = ctx.variants.tuned;
  const plan: Array<{ n: number; delayMs: number; stack?: Stack }> = ctx.options.tunedOnly && tuned ? [] : [1, 8, 32].map((n) => ({ n, delayMs: 0 }));
  if (ctx.options.long) plan.push({ n: 128, delayMs: 0 }, ...[8, 32].map((n) => ({ n, delayMs: 200 })));
  if (tuned) plan.push(...[8, 32].map((n) => ({ n, delayMs: 0, stack: tuned })));
  if (!(ctx.options.tunedOnly && tuned)) await point(ctx, 4, 0);
  if (tuned) await point(ctx, 4, 0, tuned);
  const points: Point[] = [];
  try {
    for (const p of plan) {
      await ctx.stub.configure(p.delayMs);
      const reps: Point[] = [];
      for (let rep = 0; rep < B3_REPS(ctx); rep++) reps.push(await point(ctx, p.n, p.delayMs, p.stack, rep % 2 === 1));
      // the repetition whose troupe ÷ floor ratio is the median (troupe and the floor ran back to back in it)
      const best = reps.sort((a, b) => a.troupePerSec / a.floorPerSec - b.troupePerSec / b.floorPerSec)[Math.floor((reps.length - 1) / 2)];
      points.push(best);
      ctx.log(`B3 ${best.server} N=${p.n} delay ${p.delayMs}: troupe ${round(best.troupePerSec)}/s, floor ${round(best.floorPerSec)}/s, floor with payloads ${round(best.payloadFloorPerSec)}/s, pool ${round(best.poolPerSec)}/s`);
    }
  } finally {
    await ctx.stub.configure(0);
  }
  const fmt = (x: number | undefined, d = 1) => (x === undefined || !Number.isFinite(x) ? '—' : round(x, d));
  const rss = memoryMiB(ctx.pids.worker);
  const rows = points.map((p) => {
    const temporalCpu = cpuOf(p.troupe, ['server', 'worker']);
    const ideal = p.delayMs > 0 ? (p.n / p.delayMs) * 1000 : undefined;
    return [
      p.server,
      p.n,
      p.delayMs,
      p.activities,
      fmt(p.troupePerSec),
      fmt(p.floorPerSec),
      fmt(p.troupePerSec / p.floorPerSec, 3),
      fmt(p.payloadFloorPerSec),
      fmt(p.troupePerSec / p.payloadFloorPerSec, 3),
      fmt(p.peerPerSec.memory),
      fmt(p.peerPerSec.sqlite),
      fmt(p.poolPerSec),
      fmt(p.troupePerSec / p.poolPerSec, 3),
      ideal === undefined ? '—' : `${fmt(ideal)} (${fmt(p.troupePerSec / ideal, 2)}×)`,
      fmt(p.workflowsPerMin, 0),
      fmt(percentile(p.stepMs, 50), 1),
      fmt(percentile(p.stepMs, 95), 1),
      fmt(percentile(p.stepMs, 95) - p.delayMs, 1),
      fmt(p.troupe.cpuMs.server === undefined || temporalCpu === undefined ? undefined : (100 * p.troupe.cpuMs.server) / temporalCpu, 0),
      fmt(temporalCpu === undefined ? undefined : temporalCpu / p.activities, 2),
    ];
  });
  const at0 = points.filter((p) => p.delayMs === 0 && p.server === 'P0');
  const best0 = Math.max(...(at0.length ? at0 : points).map((p) => p.troupePerSec));
  const targets: TargetCheck[] = [];
  for (const p of points.filter((q) => q.delayMs === 0 && (q.n === 8 || q.n === 32))) {
    const ratio = p.troupePerSec / p.floorPerSec;
    targets.push({ target: `${p.server}, N=${p.n}: troupe ≥ 0.9 × the floor's activities/s, same run`, measured: `${fmt(p.troupePerSec)} vs ${fmt(p.floorPerSec)} /s (×${fmt(ratio, 3)})`, met: ratio >= 0.9 });
  }
  targets.push({ target: '≥ 300 activity completions/s sustained at 0 ms (best N)', measured: `${fmt(best0)} /s`, met: best0 >= 300 });
  const bestTuned = Math.max(...points.filter((p) => p.server !== 'P0').map((p) => p.troupePerSec));
  if (Number.isFinite(bestTuned)) {
    targets.push({ target: 'same on the tuned server (no target)', measured: `${fmt(bestTuned)} /s`, met: bestTuned >= 300 });
  }
  const p32 = points.find((p) => p.n === 32 && p.delayMs === 200);
  if (p32) {
    const over = percentile(p32.stepMs, 95) - p32.delayMs;
    targets.push({ target: 'N=32 at 200 ms: step overhead p95 ≤ 30 ms', measured: `${fmt(over)} ms`, met: over <= 30 });
  }
  targets.push(
    p32
      ? { target: 'N=32 at 200 ms: ≥ 90% of Little\'s-law ideal (160/s)', measured: `${fmt(p32.troupePerSec)} /s (${fmt(p32.troupePerSec / 160, 2)}×)`, met: p32.troupePerSec >= 0.9 * 160 }
      : { target: 'N=32 at 200 ms: ≥ 90% of Little\'s-law ideal', measured: 'not run (add --long)', met: null },
  );
  return {
    id: 'B3',
    title: 'N concurrent review loops (throughput)',
    method: `N workflows started at once, each a review loop of ${B3_ITERATIONS} iterations (${2 * B3_ITERATIONS} activities); wall = first start → last result. In the same run: the floor (N bare-activity workflows of ${2 * B3_ITERATIONS} steps sending the same recorded requests), the floor carrying each request and reply in its activities' input and result (as a durable agent loop on bare Temporal must), the peer (N threads of the same loop as a LangGraph.js graph checkpointed after every step, bench/peers, when installed) and a promise pool of N chains each sending ${2 * B3_ITERATIONS} recorded requests directly. Completions/s = stub requests / wall. Troupe and the floor run back to back, in alternating order; each point is the repetition with the median troupe ÷ floor ratio of ${B3_REPS(ctx)} (after a warm-up).`,
    tables: [
      {
        title: 'Throughput (activity completions per second)',
        headers: ['server', 'N', 'stub delay ms', 'activities', 'troupe /s', 'floor /s', 'troupe / floor', 'floor carrying request and reply /s', 'troupe / that floor', 'LangGraph.js in-memory /s', 'LangGraph.js SQLite /s', 'promise pool /s', 'troupe / pool', 'Little ideal /s', 'workflows/min', 'step p50 ms', 'step p95 ms', 'step overhead p95 ms', 'server CPU share %', 'CPU ms per activity (server + worker)'],
        rows,
        note: `Worker process RSS after B3: ${fmt(rss.rss, 0)} MiB (peak ${fmt(rss.peak, 0)} MiB).`,
      },
    ],
    targets,
    data: {
      points: points.map((p) => ({ ...p, stepMs: undefined, troupe: { ...p.troupe, stepMs: undefined }, floor: { ...p.floor, stepMs: undefined }, pool: { ...p.pool, stepMs: undefined } })),
      medianPoolWall: median(points.map((p) => p.pool.wallMs)),
      workerRss: rss,
    },
  };
}
