/**
 * B16 — throughput on the cluster: B3's N = 32 concurrent review loops on the deployment of
 * docker-compose.yml run as local processes (the Temporal server on PostgreSQL with the deploy
 * folder's dynamic config, Prometheus; lib/cluster.ts), with 1 and with 3 `troupe worker --metrics`
 * processes on one task queue, against B3's floor workflow with 1 and with 3 floor worker processes
 * on another, in the same run on the same server. Stub delay 0 ms; with --long also 200 ms.
 */
import { randomUUID } from 'node:crypto';
import type { WorkflowHandle } from '@temporalio/client';
import { startRun } from '../src/client';
import type { RunResult } from '../src/core/ending/result';
import { B3_ITERATIONS, B3_REPS } from './b3-throughput';
import { startBenchCluster, type BenchCluster, type BenchWorker } from './lib/cluster';
import { reviewLoopYaml, BENCH_TASK } from './lib/loops';
import { measure, type Measured } from './lib/measure';
import { memoryMiB } from './lib/proc';
import { compileYaml } from './lib/stack';
import { load } from './lib/env';
import { round } from './lib/stats';
import type { BenchContext, BenchReport, TargetCheck } from './lib/types';

/** Concurrent runs, as B3's largest default point. */
export const B16_N = 32;
/** Worker processes per side. */
const WORKER_COUNTS = [1, 3] as const;
/** Stub delays: B3's default point, and with --long (as B3) a model that takes 200 ms (Little's-law ideal N / 0.2 s). */
const delaysMs = (ctx: BenchContext): number[] => (ctx.options.long ? [0, 200] : [0]);

/** What one side (troupe or the floor) measured in one repetition. */
interface Side {
  m: Measured;
  perSec: number;
  /** CPU ms of the side's worker processes, each. */
  workerCpuMs: number[];
  postgresCpuMs: number | undefined;
}

interface Point {
  workers: number;
  delayMs: number;
  activities: number;
  troupe: Side;
  floor: Side;
  load1: number;
}

/** Runs `work` under the meters: the server, Prometheus, the stub, the side's workers, and PostgreSQL. */
async function measureSide(ctx: BenchContext, bc: BenchCluster, workers: BenchWorker[], work: () => Promise<unknown>): Promise<Side> {
  const roles: Record<string, number> = { server: bc.serverPid, stub: ctx.stub.pid };
  if (bc.prometheusPid !== undefined) roles.prometheus = bc.prometheusPid;
  workers.forEach((w, i) => (roles[`worker${i + 1}`] = w.pid));
  const pgBefore = bc.postgresCpuMs();
  const m = await measure(ctx.stub, roles, work);
  const pgAfter = bc.postgresCpuMs();
  return {
    m,
    perSec: (m.requests / m.wallMs) * 1000,
    workerCpuMs: workers.map((_, i) => m.cpuMs[`worker${i + 1}`] ?? NaN),
    postgresCpuMs: pgBefore === undefined || pgAfter === undefined ? undefined : pgAfter - pgBefore,
  };
}

async function point(
  ctx: BenchContext,
  bc: BenchCluster,
  queues: { troupe: string; floor: string },
  workers: { troupe: BenchWorker[]; floor: BenchWorker[] },
  delayMs: number,
  floorFirst: boolean,
): Promise<Point> {
  const perChain = 2 * B3_ITERATIONS;
  const graph = compileYaml(reviewLoopYaml(B3_ITERATIONS, 'bench-cluster-throughput'));
  const runTroupe = () =>
    measureSide(ctx, bc, workers.troupe, async () => {
      // as `troupe run` starts a run: memo, UI summary and details, and troupe's search attributes
      const handles = await Promise.all(
        Array.from({ length: B16_N }, () => startRun(bc.client, { role: graph, task: BENCH_TASK, taskQueue: queues.troupe, workflowId: `${graph.name}-${randomUUID()}` })),
      );
      await Promise.all(handles.map((h: WorkflowHandle) => h.result() as Promise<RunResult>));
    });
  const runFloor = () =>
    measureSide(ctx, bc, workers.floor, async () => {
      const floors = await Promise.all(
        Array.from({ length: B16_N }, () =>
          bc.client.workflow.start('floorLoop', { taskQueue: queues.floor, workflowId: `floor-${randomUUID()}`, args: [{ steps: perChain, mode: 'activity' }] }),
        ),
      );
      await Promise.all(floors.map((f) => f.result()));
    });
  // back to back, the order alternating between repetitions
  const floorEarly = floorFirst ? await runFloor() : undefined;
  const troupe = await runTroupe();
  const floor = floorEarly ?? (await runFloor());
  return { workers: workers.troupe.length, delayMs, activities: B16_N * perChain, troupe, floor, load1: load().load1 };
}

/** Runs B16. */
export async function runB16(ctx: BenchContext): Promise<BenchReport> {
  const t0 = performance.now();
  const bc = await startBenchCluster({ bundles: ctx.bundles, stubUrl: ctx.stub.url, requests: ctx.requests, log: ctx.log });
  const clusterStartMs = performance.now() - t0;
  ctx.log(`B16 cluster started in ${round(clusterStartMs / 1000, 1)} s (Temporal on PostgreSQL at ${bc.cluster.address})`);
  const queues = { troupe: `bench-cluster-troupe-${randomUUID().slice(0, 8)}`, floor: `bench-cluster-floor-${randomUUID().slice(0, 8)}` };
  const workers: { troupe: BenchWorker[]; floor: BenchWorker[] } = { troupe: [], floor: [] };
  const workerStartMs: number[] = [];
  const points: Point[] = [];
  let troupeRss: Array<{ rss?: number; peak?: number }> = [];
  try {
    for (const count of WORKER_COUNTS) {
      while (workers.troupe.length < count) {
        const t = performance.now();
        workers.troupe.push(await bc.startTroupeWorker(queues.troupe));
        workerStartMs.push(performance.now() - t);
        workers.floor.push(await bc.startFloorWorker(queues.floor));
      }
      // a warm-up of both sides on the new workers
      await ctx.stub.configure(0);
      await point(ctx, bc, queues, workers, 0, false);
      for (const delayMs of delaysMs(ctx)) {
        await ctx.stub.configure(delayMs);
        const reps: Point[] = [];
        for (let rep = 0; rep < B3_REPS(ctx); rep++) reps.push(await point(ctx, bc, queues, workers, delayMs, rep % 2 === 1));
        // the repetition whose troupe ÷ floor ratio is the median (troupe and the floor ran back to back in it)
        const best = reps.sort((a, b) => a.troupe.perSec / a.floor.perSec - b.troupe.perSec / b.floor.perSec)[Math.floor((reps.length - 1) / 2)];
        points.push(best);
        ctx.log(`B16 ${count} worker(s), delay ${delayMs}: troupe ${round(best.troupe.perSec)}/s, floor ${round(best.floor.perSec)}/s (×${round(best.troupe.perSec / best.floor.perSec, 3)}), load ${best.load1}`);
      }
    }
    troupeRss = workers.troupe.map((w) => memoryMiB(w.pid));
  } finally {
    await ctx.stub.configure(0);
    await bc.close();
  }

  const fmt = (x: number | undefined, d = 1) => (x === undefined || !Number.isFinite(x) ? '—' : round(x, d));
  const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
  const perActivity = (cpu: number | undefined, side: Side) => (cpu === undefined || side.m.requests === 0 ? undefined : cpu / side.m.requests);
  // the CPU a step costs the whole cluster: the side's workers, the server and PostgreSQL
  const clusterCpuMs = (side: Side) => (side.m.cpuMs.server === undefined || side.postgresCpuMs === undefined ? undefined : sum(side.workerCpuMs) + side.m.cpuMs.server + side.postgresCpuMs);
  const shares = (cpu: number[]) => (cpu.length < 2 ? '—' : cpu.map((c) => round((100 * c) / sum(cpu), 0)).join(' / '));
  const rows = points.map((p) => {
    const ideal = p.delayMs > 0 ? (B16_N / p.delayMs) * 1000 : undefined;
    return [
      p.workers,
      p.delayMs,
      p.activities,
      fmt(p.troupe.perSec),
      fmt(p.floor.perSec),
      fmt(p.troupe.perSec / p.floor.perSec, 3),
      ideal === undefined ? '—' : `${fmt(ideal)} (troupe ${fmt(p.troupe.perSec / ideal, 2)}×)`,
      fmt(perActivity(sum(p.troupe.workerCpuMs), p.troupe), 2),
      fmt(perActivity(sum(p.floor.workerCpuMs), p.floor), 2),
      shares(p.troupe.workerCpuMs),
      `${fmt(perActivity(p.troupe.m.cpuMs.server, p.troupe), 2)} / ${fmt(perActivity(p.floor.m.cpuMs.server, p.floor), 2)}`,
      `${fmt(perActivity(p.troupe.postgresCpuMs, p.troupe), 2)} / ${fmt(perActivity(p.floor.postgresCpuMs, p.floor), 2)}`,
      fmt(perActivity(clusterCpuMs(p.troupe), p.troupe)! / perActivity(clusterCpuMs(p.floor), p.floor)!, 2),
      p.load1,
    ];
  });
  const at = (workers: number, delayMs: number) => points.find((p) => p.workers === workers && p.delayMs === delayMs);
  const scalingRows = delaysMs(ctx).map((delayMs) => {
    const one = at(1, delayMs);
    const three = at(3, delayMs);
    return [delayMs, one && three ? fmt(three.troupe.perSec / one.troupe.perSec, 2) : '—', one && three ? fmt(three.floor.perSec / one.floor.perSec, 2) : '—'];
  });
  const targets: TargetCheck[] = [];
  for (const p of points.filter((q) => q.delayMs === 0)) {
    const ratio = p.troupe.perSec / p.floor.perSec;
    targets.push({
      target: `${p.workers} worker process(es), N=${B16_N}, 0 ms: troupe ≥ 0.9 × the floor's activities/s, same run (B3's target, on PostgreSQL)`,
      measured: `${fmt(p.troupe.perSec)} vs ${fmt(p.floor.perSec)} /s (×${fmt(ratio, 3)})`,
      met: ratio >= 0.9,
    });
  }
  if (!ctx.options.long) targets.push({ target: `N=${B16_N} at 200 ms: ≥ 90% of Little's-law ideal (B3's target)`, measured: 'not run (add --long)', met: null });
  for (const p of points.filter((q) => q.delayMs === 200)) {
    const ideal = (B16_N / p.delayMs) * 1000;
    targets.push({
      target: `${p.workers} worker process(es), N=${B16_N}, 200 ms: ≥ 90% of Little's-law ideal (${ideal}/s, B3's target)`,
      measured: `${fmt(p.troupe.perSec)} /s (${fmt(p.troupe.perSec / ideal, 2)}×)`,
      met: p.troupe.perSec >= 0.9 * ideal,
    });
  }
  return {
    id: 'B16',
    title: 'Throughput on the cluster (Temporal on PostgreSQL, 1 and 3 worker processes)',
    method:
      `The deployment of docker-compose.yml as local processes (test/cluster/cluster.ts: PostgreSQL, the Temporal server 1.30.1 on it with deploy/dynamicconfig/troupe.yaml, Prometheus scraping every second). ` +
      `${B16_N} review loops of ${B3_ITERATIONS} iterations (${2 * B3_ITERATIONS} activities) started at once on one task queue served by 1, then 3 \`troupe worker --metrics\` processes (TROUPE_LOG_LEVEL=WARN); ` +
      `in the same run the floor (${B16_N} bare-activity loops of ${2 * B3_ITERATIONS} steps replaying the recorded requests) on another task queue served by as many floor worker processes (bench/lib/worker-process.ts, prebuilt bundle, no metrics). ` +
      `Completions/s = stub requests / wall (first start → last result). Troupe and the floor run back to back, in alternating order; each point is the repetition with the median troupe ÷ floor ratio of ${B3_REPS(ctx)}, after a warm-up on the new workers. ` +
      `Everything (PostgreSQL, server, Prometheus, workers, stub, this client) shares one 2-core machine.`,
    tables: [
      {
        title: 'Throughput on the cluster (activity completions per second)',
        headers: [
          'worker processes',
          'stub delay ms',
          'activities',
          'troupe /s',
          'floor /s',
          'troupe / floor',
          'Little ideal /s',
          'worker CPU ms per activity, troupe',
          'worker CPU ms per activity, floor',
          'troupe workers\' CPU shares %',
          'server CPU ms per activity, troupe / floor',
          'PostgreSQL CPU ms per activity, troupe / floor',
          'CPU per activity of workers + server + PostgreSQL, troupe ÷ floor',
          'load average (1 min)',
        ],
        rows,
        note: `Cluster start ${fmt(clusterStartMs / 1000, 1)} s; troupe worker starts ${workerStartMs.map((ms) => fmt(ms / 1000, 1)).join(', ')} s; troupe worker RSS after B16: ${troupeRss.map((r) => `${fmt(r.rss, 0)} MiB (peak ${fmt(r.peak, 0)})`).join(', ')}.`,
      },
      { title: 'Scaling from 1 to 3 worker processes (completions/s with 3 ÷ with 1)', headers: ['stub delay ms', 'troupe', 'floor'], rows: scalingRows },
    ],
    targets,
    data: {
      clusterStartMs,
      workerStartMs,
      troupeRss,
      points: points.map((p) => ({ ...p, troupe: { ...p.troupe, m: { ...p.troupe.m, stepMs: undefined } }, floor: { ...p.floor, m: { ...p.floor.m, stepMs: undefined } } })),
    },
  };
}
