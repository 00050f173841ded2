/**
 * B5 — replay cost of recorded troupe histories (docs/semantics.md, "Determinism and versions"): warm `Worker.runReplayHistory` on review
 * loops of 10–200 iterations, fitted to a line to give µs per event and check linearity, against a
 * bare-activity floor history of the same size; the same two histories replayed in one running
 * replay worker (its target ratio); and what a cache miss costs live, by running a loop on a worker
 * with `maxCachedWorkflows: 0` (every workflow task replays the whole history). A whole run of B3's
 * shape is replayed in turns with the floor's the same way: where B3's worker is the bottleneck, its
 * throughput ratio tends to the inverse of that run's ratio.
 */
import { Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { B2_ITERATIONS } from './b2-history';
import { B3_ITERATIONS } from './b3-throughput';
import { eventRows, eventTypeCounts, type History } from './lib/history';
import { reviewLoopYaml, BENCH_TASK } from './lib/loops';
import { measure } from './lib/measure';
import { compileYaml, startExtraWorker } from './lib/stack';
import { linearFit, median, round } from './lib/stats';
import type { BenchContext, BenchReport, TargetCheck } from './lib/types';

const SIZES = [10, 20, 50, 100];
/** The troupe history compared with the floor's at equal size (100 iterations ≈ 200 floor steps ≈ 1,205 events). */
export const EQUAL_SIZE_ITERATIONS = 100;
/** Issue 13: troupe's µs per event at most this × the floor's at equal history size. */
export const B5_LIMIT = 1.3;
/** Iterations of the live run on a worker without a workflow cache. */
export const NO_CACHE_ITERATIONS = 20;
/**
 * Replays of each side before the in-worker comparison times any: a live worker that replays a run it
 * no longer caches has run the workflow's code many times, so the code is compiled by then; a few
 * warm-up replays leave troupe's larger code less optimized than the floor's few lines.
 */
const IN_WORKER_WARMUPS = 10;
/**
 * Replays of each side timed in the in-worker comparison, in turns with the other side's. The issue's
 * ratio is the median of the ratios of each pair of neighbouring replays: on a shared machine the
 * speed of the whole box drifts within a minute, and a ratio of neighbours cancels what they share.
 */
const IN_WORKER_TIMED = 40;
/** Minimum steps of the floor history replayed as the bare-Temporal baseline (B1's is reused when long enough). */
export const FLOOR_STEPS = 200;

/** Where histories are recorded: the tuned dev server when it runs (same histories, recorded faster). */
function recorder(ctx: BenchContext) {
  return ctx.variants.tuned ?? ctx.p0;
}

async function record(ctx: BenchContext, iterations: number): Promise<{ history: History; workflowId: string }> {
  const stack = recorder(ctx);
  const handle = await stack.startTroupe(compileYaml(reviewLoopYaml(iterations, `bench-replay-${iterations}`)), BENCH_TASK);
  await stack.result(handle);
  return { history: await handle.fetchHistory(), workflowId: handle.workflowId };
}

/** Wall and CPU ms (this process: JS thread and Core threads) of one replay. */
interface ReplayTime {
  wallMs: number;
  cpuMs: number;
}

async function timeReplay(bundle: WorkflowBundleWithSourceMap, history: History, workflowId: string): Promise<ReplayTime> {
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  await Worker.runReplayHistory({ workflowBundle: bundle }, history, workflowId);
  const wallMs = performance.now() - t0;
  const c = process.cpuUsage(c0);
  return { wallMs, cpuMs: (c.user + c.system) / 1000 };
}

async function timeReplays(bundle: WorkflowBundleWithSourceMap, history: History, workflowId: string, reps: number) {
  const times: ReplayTime[] = [];
  for (let i = 0; i < reps; i++) times.push(await timeReplay(bundle, history, workflowId));
  return { ms: median(times.map((t) => t.wallMs)), cpuMs: median(times.map((t) => t.cpuMs)), times };
}

/**
 * Replay troupe's and the floor's history in turns, each side in its own running replay worker
 * (`Worker.runReplayHistories`), as a live worker replays a run it no longer caches: each bundle is
 * loaded once and its code has run before, so what is timed is the replay itself. One replay runs at
 * a time (a replay worker asks for its next history only when the previous one's result was taken,
 * and a side's next history waits for its turn), so each replay of one side has the other's next to
 * it in time. The first `warmups` replays of each side are not returned.
 */
async function replayInTurns(
  sides: Array<{ bundle: WorkflowBundleWithSourceMap; item: { history: History; workflowId: string } }>,
  warmups: number,
  timed: number,
): Promise<ReplayTime[][]> {
  const times: ReplayTime[][] = sides.map(() => []);
  let turn = 0;
  const waiting: Array<(() => void) | undefined> = sides.map(() => undefined);
  const replaySide = async (side: number) => {
    let started = { at: 0, cpu: process.cpuUsage() };
    async function* feed() {
      for (let i = 0; i < warmups + timed; i++) {
        while (turn % sides.length !== side) await new Promise<void>((resolve) => (waiting[side] = resolve));
        started = { at: performance.now(), cpu: process.cpuUsage() };
        yield sides[side].item;
      }
    }
    for await (const result of Worker.runReplayHistories({ workflowBundle: sides[side].bundle }, feed())) {
      if (result.error) throw result.error;
      const cpu = process.cpuUsage(started.cpu);
      times[side].push({ wallMs: performance.now() - started.at, cpuMs: (cpu.user + cpu.system) / 1000 });
      turn += 1;
      const next = turn % sides.length;
      const wake = waiting[next];
      waiting[next] = undefined;
      wake?.();
    }
  };
  await Promise.all(sides.map((_, side) => replaySide(side)));
  return times.map((t) => t.slice(warmups));
}

/** The first and third quartiles of ratios of neighbouring pairs (the values at a quarter and three quarters, sorted). */
function quartiles(ratios: readonly number[]): [number, number] {
  const sorted = [...ratios].sort((x, y) => x - y);
  return [sorted[Math.floor(sorted.length / 4)], sorted[Math.floor((3 * sorted.length) / 4)]];
}

function workflowIdOf(history: History, fallback: string): string {
  return String(history.events?.[0]?.workflowExecutionStartedEventAttributes?.workflowId ?? fallback);
}

/** A loop on a worker that caches no workflow: per-step time against the iteration index. */
async function noCacheRun(ctx: BenchContext) {
  const stack = recorder(ctx);
  const extra = await startExtraWorker(stack, ctx.bundles, ctx.stub.url, { maxCachedWorkflows: 0 });
  try {
    return await measure(ctx.stub, { server: stack.server.pid, worker: ctx.pids.worker }, async () => {
      const graph = compileYaml(reviewLoopYaml(NO_CACHE_ITERATIONS, 'bench-nocache'));
      const handle = await stack.startTroupe(graph, BENCH_TASK, extra.taskQueue);
      await stack.result(handle);
    });
  } finally {
    await extra.stop();
  }
}

/** Runs B5. */
export async function runB5(ctx: BenchContext): Promise<BenchReport> {
  ctx.log(`B5 recording histories of ${SIZES.join(', ')} iterations`);
  const recorded: Array<{ iterations: number; history: History; workflowId: string }> = [];
  for (const n of SIZES) recorded.push({ iterations: n, ...(await record(ctx, n)) });
  const shared = ctx.shared.get('history200') as History | undefined;
  recorded.push(
    shared
      ? { iterations: B2_ITERATIONS, history: shared, workflowId: workflowIdOf(shared, 'b2') }
      : { iterations: B2_ITERATIONS, ...(await record(ctx, B2_ITERATIONS)) },
  );
  let floorHistory = ctx.shared.get('floorHistory') as History | undefined;
  if (!floorHistory || (floorHistory.events?.length ?? 0) < 6 * FLOOR_STEPS) {
    const handle = await recorder(ctx).startFloor({ steps: FLOOR_STEPS, mode: 'activity' });
    await handle.result();
    floorHistory = await handle.fetchHistory();
  }
  const floorId = workflowIdOf(floorHistory, 'floor');
  const reps = Math.max(3, ctx.options.reps);

  const cold = await timeReplay(ctx.bundles.troupe, recorded[0].history, recorded[0].workflowId);
  for (const r of recorded) await timeReplay(ctx.bundles.troupe, r.history, r.workflowId);
  await timeReplay(ctx.bundles.floor, floorHistory, floorId);
  const rows = [];
  for (const r of recorded) {
    const t = await timeReplays(ctx.bundles.troupe, r.history, r.workflowId, reps);
    const evRows = eventRows(r.history);
    const wfts = eventTypeCounts(evRows).WORKFLOW_TASK_COMPLETED ?? 0;
    rows.push({ name: `troupe review loop, ${r.iterations} iterations`, iterations: r.iterations, events: evRows.length, wfts, ...t });
    ctx.log(`B5 replay ${r.iterations} iterations (${evRows.length} events): ${round(t.ms)} ms wall, ${round(t.cpuMs)} ms CPU`);
  }
  const floorRows = eventRows(floorHistory);
  const floorT = await timeReplays(ctx.bundles.floor, floorHistory, floorId, reps);
  const floorRow = {
    name: `floor workflow, ${(floorRows.length - 5) / 6} steps (baseline)`,
    iterations: (floorRows.length - 5) / 12,
    events: floorRows.length,
    wfts: eventTypeCounts(floorRows).WORKFLOW_TASK_COMPLETED ?? 0,
    ...floorT,
  };
  const fit = linearFit(rows.map((r) => r.events), rows.map((r) => r.ms));
  const cpuFit = linearFit(rows.map((r) => r.events), rows.map((r) => r.cpuMs));
  const smallest = rows[0];
  const troupeAtFloorSize = fit.intercept + fit.slope * floorRow.events;
  const longRow = rows[rows.length - 1];
  const short20 = rows.find((r) => r.iterations === 20)!;
  const at12k = fit.intercept + fit.slope * 12005;
  const perEvent = (r: { ms: number; events: number }) => ((r.ms - smallest.ms) * 1000) / (r.events - smallest.events);

  const steps200 = ctx.shared.get('steps200') as number[] | undefined;
  const cachedSlope = steps200 ? linearFit(steps200.map((_, i) => i), steps200) : undefined;
  const cachedEnds = steps200 ? { first: median(steps200.slice(10, 60)), last: median(steps200.slice(-50)) } : undefined;
  ctx.log(`B5 live loop of ${NO_CACHE_ITERATIONS} iterations on a worker with maxCachedWorkflows 0`);
  const noCache = await noCacheRun(ctx);
  const noCacheFit = linearFit(noCache.stepMs.map((_, i) => i), noCache.stepMs);
  const firstSteps = median(noCache.stepMs.slice(0, 10));
  const lastSteps = median(noCache.stepMs.slice(-10));

  const fmt = (x: number, d = 2) => round(x, d);
  const equal = rows.find((r) => r.iterations === EQUAL_SIZE_ITERATIONS)!;
  const perEventRatio = equal.ms / equal.events / (floorRow.ms / floorRow.events);

  // the same two histories replayed in one running replay worker each, alternately, as a live worker replays a run it no longer caches
  ctx.log(`B5 replay in two running replay workers, in turns: ${IN_WORKER_WARMUPS} + ${IN_WORKER_TIMED} each`);
  const equalRecorded = recorded.find((r) => r.iterations === EQUAL_SIZE_ITERATIONS)!;
  const floorItem = { history: floorHistory, workflowId: floorId };
  const [troupeTimes, floorTimes] = await replayInTurns(
    [
      { bundle: ctx.bundles.troupe, item: equalRecorded },
      { bundle: ctx.bundles.floor, item: floorItem },
    ],
    IN_WORKER_WARMUPS,
    IN_WORKER_TIMED,
  );
  // a whole run of B3's shape, start and end included: when the worker is B3's bottleneck, its throughput ratio tends to the inverse of this
  ctx.log(`B5 replay of a ${B3_ITERATIONS}-iteration run against a ${2 * B3_ITERATIONS}-step floor run, in turns: ${IN_WORKER_WARMUPS} + ${IN_WORKER_TIMED} each`);
  const shortTroupe = recorded.find((r) => r.iterations === B3_ITERATIONS) ?? { iterations: B3_ITERATIONS, ...(await record(ctx, B3_ITERATIONS)) };
  const shortFloorHandle = await recorder(ctx).startFloor({ steps: 2 * B3_ITERATIONS, mode: 'activity' });
  await shortFloorHandle.result();
  const shortFloorHistory = await shortFloorHandle.fetchHistory();
  const [shortTroupeTimes, shortFloorTimes] = await replayInTurns(
    [
      { bundle: ctx.bundles.troupe, item: shortTroupe },
      { bundle: ctx.bundles.floor, item: { history: shortFloorHistory, workflowId: workflowIdOf(shortFloorHistory, 'floor-short') } },
    ],
    IN_WORKER_WARMUPS,
    IN_WORKER_TIMED,
  );
  const shortRatios = shortTroupeTimes.map((t, i) => t.wallMs / shortFloorTimes[i].wallMs);
  const shortRun = {
    troupe: { events: eventRows(shortTroupe.history).length, ms: median(shortTroupeTimes.map((t) => t.wallMs)) },
    floor: { events: eventRows(shortFloorHistory).length, ms: median(shortFloorTimes.map((t) => t.wallMs)) },
    ratio: median(shortRatios),
    quartiles: quartiles(shortRatios),
  };

  const inWorker = {
    troupe: { ms: median(troupeTimes.map((t) => t.wallMs)), cpuMs: median(troupeTimes.map((t) => t.cpuMs)) },
    floor: { ms: median(floorTimes.map((t) => t.wallMs)), cpuMs: median(floorTimes.map((t) => t.cpuMs)) },
  };
  const pairRatios = troupeTimes.map((t, i) => t.wallMs / equal.events / (floorTimes[i].wallMs / floorRow.events));
  const inWorkerRatio = median(pairRatios);
  const spread = quartiles(pairRatios);
  const targets: TargetCheck[] = [
    {
      target: `troupe µs per event ≤ ${B5_LIMIT} × the floor's at equal history size (${equal.events} vs ${floorRow.events} events), same run, replayed in a running replay worker`,
      measured: `×${fmt(inWorkerRatio)}, the median of ${IN_WORKER_TIMED} neighbouring pairs (quartiles ${fmt(spread[0])}–${fmt(spread[1])}); medians ${fmt((inWorker.troupe.ms * 1000) / equal.events, 1)} vs ${fmt((inWorker.floor.ms * 1000) / floorRow.events, 1)} µs`,
      met: inWorkerRatio <= B5_LIMIT,
    },
    {
      target: `(context, B3) a whole run of B3's shape replayed the same way: troupe's ${B3_ITERATIONS}-iteration run (${shortRun.troupe.events} events) ÷ the floor's ${2 * B3_ITERATIONS}-step run (${shortRun.floor.events} events)`,
      measured: `×${fmt(shortRun.ratio)} per run (quartiles ${fmt(shortRun.quartiles[0])}–${fmt(shortRun.quartiles[1])}; ${fmt(shortRun.troupe.ms)} vs ${fmt(shortRun.floor.ms)} ms): B3's ratio tends to ${fmt(1 / shortRun.ratio)} where the worker is the bottleneck`,
      met: null,
    },
    {
      target: `(context) the same with a new replay worker for each history (Worker.runReplayHistory: loads the bundle and parses its source map each time)`,
      measured: `${fmt((equal.ms * 1000) / equal.events, 1)} vs ${fmt((floorRow.ms * 1000) / floorRow.events, 1)} µs (×${fmt(perEventRatio)})`,
      met: null,
    },
    { target: 'Warm replay µs per event ≤ 80 (fitted slope)', measured: `${fmt(fit.slope * 1000, 1)} µs`, met: fit.slope * 1000 <= 80 },
    { target: `Warm replay ms per workflow task ≤ 0.5 (${longRow.iterations}-iteration history)`, measured: `${fmt(longRow.ms / longRow.wfts, 3)} ms`, met: longRow.ms / longRow.wfts <= 0.5 },
    { target: 'Replay of 12k events ≤ 1 s (extrapolated from the fit)', measured: `${fmt(at12k, 0)} ms`, met: at12k <= 1000 },
    { target: 'Linear in events (R² ≥ 0.99)', measured: `${fmt(fit.r2, 4)} (CPU-time fit ${fmt(cpuFit.r2, 4)})`, met: fit.r2 >= 0.99 },
    cachedEnds && cachedSlope
      ? {
          target: 'Cache on: step latency flat vs iteration (median of the last 50 steps within 5% of steps 10–60)',
          measured: `${fmt(cachedEnds.first)} → ${fmt(cachedEnds.last)} ms (slope ${fmt(cachedSlope.slope * 1000, 1)} µs/step, R² ${fmt(cachedSlope.r2, 3)})`,
          met: cachedEnds.last <= 1.05 * cachedEnds.first,
        }
      : { target: 'Cache on: step latency flat vs iteration', measured: 'not measured (B2 not run)', met: null },
  ];
  const tableRows = [...rows, floorRow].map((r) => [
    r.name,
    r.events,
    r.wfts,
    fmt(r.ms),
    fmt(r.cpuMs),
    fmt((r.ms * 1000) / r.events, 1),
    r === smallest || r === floorRow ? '—' : fmt(perEvent(r), 1),
    fmt(r.ms / r.wfts, 3),
  ]);
  return {
    id: 'B5',
    title: 'Replay of recorded histories',
    method:
      `Review-loop histories of ${[...SIZES, B2_ITERATIONS].join(', ')} iterations recorded in this run (the ${B2_ITERATIONS}-iteration one is B2's); baseline: the floor-workflow history of B1 (bare activities, 6 events per step; ${FLOOR_STEPS} steps recorded here when B1 did not run). ` +
      `Each replayed with Worker.runReplayHistory and its prebuilt bundle after one warm-up pass; median of ${reps}. Every call builds a replay worker, so the fit's intercept is that fixed cost and its slope the cost per event. Cold = the first replay call of this process. ` +
      `The issue's ratio compares the ${EQUAL_SIZE_ITERATIONS}-iteration history with the floor's replayed in one running replay worker (Worker.runReplayHistories), which loads the bundle once and has run the code before (${IN_WORKER_WARMUPS} warm-up replays, then ${IN_WORKER_TIMED} timed), as a live worker has when a run it no longer caches comes back. A run of B3's shape (${B3_ITERATIONS} iterations, start and end included) and the floor's run of ${2 * B3_ITERATIONS} steps are replayed the same way, to show what a whole short run costs the worker.`,
    tables: [
      {
        title: 'Warm replay time (Worker.runReplayHistory, median)',
        headers: ['history', 'events', 'workflow tasks', 'wall ms', 'CPU ms (process)', 'µs per event (total)', 'µs per event (above the 10-iteration run)', 'ms per workflow task'],
        rows: tableRows,
        note:
          `Fit over the troupe histories: ms = ${fmt(fit.intercept)} + ${fmt(fit.slope * 1000, 1)} µs × events (R² ${fmt(fit.r2, 4)}). ` +
          `${longRow.iterations} vs 20 iterations: ${fmt(longRow.ms / short20.ms)}× the time for ${fmt(longRow.events / short20.events)}× the events. ` +
          `At the floor history's size (${floorRow.events} events) the fit predicts ${fmt(troupeAtFloorSize, 0)} ms for troupe vs ${fmt(floorRow.ms, 0)} ms measured for the floor: ${fmt(troupeAtFloorSize / floorRow.ms)}×. Cold first call: ${fmt(cold.wallMs)} ms.`,
      },
      {
        title: 'Replay in one running replay worker (Worker.runReplayHistories; what a cache miss costs a live worker), median',
        headers: ['history', 'events', 'wall ms', 'CPU ms (process)', 'µs per event'],
        rows: [
          [equal.name, equal.events, fmt(inWorker.troupe.ms), fmt(inWorker.troupe.cpuMs), fmt((inWorker.troupe.ms * 1000) / equal.events, 1)],
          [floorRow.name, floorRow.events, fmt(inWorker.floor.ms), fmt(inWorker.floor.cpuMs), fmt((inWorker.floor.ms * 1000) / floorRow.events, 1)],
          [`troupe review loop, ${B3_ITERATIONS} iterations (a B3 run, start and end included)`, shortRun.troupe.events, fmt(shortRun.troupe.ms), '—', fmt((shortRun.troupe.ms * 1000) / shortRun.troupe.events, 1)],
          [`floor workflow, ${2 * B3_ITERATIONS} steps`, shortRun.floor.events, fmt(shortRun.floor.ms), '—', fmt((shortRun.floor.ms * 1000) / shortRun.floor.events, 1)],
        ],
        note: `One running replay worker for troupe and one for the floor, replaying in turns, one replay at a time: ${IN_WORKER_WARMUPS} warm-up replays each, then ${IN_WORKER_TIMED} timed each. troupe ÷ floor per event, the median of the ratios of neighbouring replays: ×${fmt(inWorkerRatio)}. The runs of B3's shape are replayed the same way, in turns with each other: troupe ÷ floor per run ×${fmt(shortRun.ratio)}.`,
      },
      {
        title: 'Workflow cache: step time against the step index',
        headers: ['measure', 'value'],
        rows: [
          ['extrapolated replay of a 1,000-iteration history (12,005 events) = one cache miss at iteration 1,000', `${fmt(at12k, 0)} ms`],
          ['cache on (B2 run, 400 steps): slope of step time vs step index', cachedSlope ? `${fmt(cachedSlope.slope * 1000, 2)} µs per step (R² ${fmt(cachedSlope.r2, 3)})` : '—'],
          ['cache on: median step time of steps 10–60 → last 50', cachedEnds ? `${fmt(cachedEnds.first)} → ${fmt(cachedEnds.last)} ms` : '—'],
          [`cache off (maxCachedWorkflows 0), ${NO_CACHE_ITERATIONS} iterations: median step time of the first 10 → last 10 steps`, `${fmt(firstSteps)} → ${fmt(lastSteps)} ms`],
          ['cache off: slope of step time vs step index', `${fmt(noCacheFit.slope * 1000, 1)} µs per step (R² ${fmt(noCacheFit.r2, 3)}) ≈ ${fmt((noCacheFit.slope * 1000) / 6, 1)} µs per history event`],
        ],
      },
    ],
    targets,
    data: { rows, floorRow, perEventRatio, inWorker, inWorkerRatio, shortRun, shortRunTimes: { troupe: shortTroupeTimes, floor: shortFloorTimes }, inWorkerTimes: { troupe: troupeTimes, floor: floorTimes }, pairRatios, troupeAtFloorSize, fit, cpuFit, cold, cachedSlope, cachedEnds, noCache: { stepMs: noCache.stepMs, fit: noCacheFit, cpuMs: noCache.cpuMs, wallMs: noCache.wallMs } },
  };
}
