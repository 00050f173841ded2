/**
 * B4 — star fan-out: K agents in one wave, each LLM call taking L = 1 s at the stub. Wall time of
 * the troupe run against the ideal L (a direct Promise.all of the same K calls, measured in the same
 * run) and the sequential K·L (K × the measured single direct call); speedup, overhead, parent
 * history events and the stub's observed concurrency; also on a worker with more activity pollers.
 */
import { benchClient, directChat } from './lib/direct';
import { eventRows, activitySteps } from './lib/history';
import { starYaml, BENCH_TASK } from './lib/loops';
import { compileYaml, SERVER_VARIANTS, startExtraWorker, type Stack } from './lib/stack';
import { median, round } from './lib/stats';
import type { BenchContext, BenchReport, TargetCheck } from './lib/types';

/** Stub latency per call in B4. */
export const B4_DELAY_MS = 1000;
/** The production worker on the tuned dev server. */
const TUNED_WORKER = `createWorker, ${SERVER_VARIANTS.tuned.label} server`;

/** Activity pollers of the variant worker (the SDK default is min(10, maxConcurrentActivityTaskExecutions)). */
export const MORE_POLLERS = 32;
const DEFAULT_WORKER = 'createWorker (10 activity pollers)';
const MORE_POLLERS_WORKER = `${MORE_POLLERS} activity pollers`;

interface FanoutRun {
  wallMs: number;
  /** WorkflowExecutionStarted → Completed, server clock. */
  serverMs: number;
  /** First ActivityTaskScheduled → last ActivityTaskCompleted. */
  activitySpanMs: number;
  /** First ActivityTaskScheduled → last ActivityTaskStarted: how long dispatching all K took. */
  startSpreadMs: number;
  events: number;
  maxConcurrent: number;
}

async function troupeStar(ctx: BenchContext, stack: Stack, k: number, taskQueue?: string, plain: boolean | 'floor' = false): Promise<FanoutRun> {
  await ctx.stub.reset();
  const graph = compileYaml(starYaml(k));
  const t0 = performance.now();
  const handle =
    plain === 'floor'
      ? await stack.startFloorFanout(k)
      : plain
        ? await stack.startTroupePlain(graph, BENCH_TASK, taskQueue)
        : await stack.startTroupe(graph, BENCH_TASK, taskQueue);
  await handle.result();
  const wallMs = performance.now() - t0;
  const history = await handle.fetchHistory();
  const rows = eventRows(history);
  const steps = activitySteps(history);
  return {
    wallMs,
    serverMs: rows[rows.length - 1].timeMs - rows[0].timeMs,
    activitySpanMs: Math.max(...steps.map((s) => s.completedMs)) - Math.min(...steps.map((s) => s.scheduledMs)),
    startSpreadMs: Math.max(...steps.map((s) => s.startedMs)) - Math.min(...steps.map((s) => s.scheduledMs)),
    events: rows.length,
    maxConcurrent: await ctx.stub.maxConcurrent(),
  };
}

async function directAll(ctx: BenchContext, k: number): Promise<number> {
  const client = benchClient(ctx.stub.url);
  const reqs = ctx.requests;
  const t0 = performance.now();
  await Promise.all(Array.from({ length: k }, (_, i) => directChat(client, reqs[i % reqs.length].body, `agent${i + 1}`)));
  return performance.now() - t0;
}

/** Runs B4 for K ∈ {4, 16} (and 64 with --long). */
export async function runB4(ctx: BenchContext): Promise<BenchReport> {
  const ks = ctx.options.long ? [4, 16, 64] : [4, 16];
  await ctx.stub.configure(B4_DELAY_MS);
  try {
    const client = benchClient(ctx.stub.url);
    await directChat(client, ctx.requests[0].body, 'warmup');
    const singles: number[] = [];
    for (let i = 0; i < ctx.options.reps; i++) {
      const t0 = performance.now();
      await directChat(client, ctx.requests[0].body, 'single');
      singles.push(performance.now() - t0);
    }
    const single = median(singles);
    const pollers = await startExtraWorker(ctx.p0, ctx.bundles, ctx.stub.url, {
      activityTaskPollerBehavior: { type: 'simple-maximum', maximum: MORE_POLLERS },
    });
    const rows = [];
    try {
      await troupeStar(ctx, ctx.p0, 2);
      await troupeStar(ctx, ctx.p0, 2, pollers.taskQueue);
      if (ctx.variants.tuned) await troupeStar(ctx, ctx.variants.tuned, 2);
      for (const k of ks) {
        const plan: Array<{ variant: string; stack: Stack; queue?: string; plain?: boolean | 'floor' }> = [{ variant: DEFAULT_WORKER, stack: ctx.p0 }];
        if (k > 10) plan.push({ variant: MORE_POLLERS_WORKER, stack: ctx.p0, queue: pollers.taskQueue });
        if (k > 10 && ctx.variants.tuned) {
          plan.push(
            { variant: TUNED_WORKER, stack: ctx.variants.tuned },
            { variant: `${TUNED_WORKER}, started without search attributes`, stack: ctx.variants.tuned, plain: true },
            { variant: `floor (Promise.all of K bare activities), ${SERVER_VARIANTS.tuned.label} server`, stack: ctx.variants.tuned, plain: 'floor' },
          );
        }
        for (const { variant, stack, queue, plain } of plan) {
          const runs: FanoutRun[] = [];
          const direct: number[] = [];
          for (let rep = 0; rep < ctx.options.reps; rep++) {
            direct.push(await directAll(ctx, k));
            runs.push(await troupeStar(ctx, stack, k, queue, plain));
            ctx.log(`B4 K=${k} ${variant} rep ${rep + 1}: troupe ${round(runs[rep].wallMs)} ms, direct ${round(direct[rep])} ms`);
          }
          const wall = median(runs.map((r) => r.wallMs));
          const sequential = k * single;
          rows.push({
            k,
            variant,
            wallMs: wall,
            serverMs: median(runs.map((r) => r.serverMs)),
            activitySpanMs: median(runs.map((r) => r.activitySpanMs)),
            startSpreadMs: median(runs.map((r) => r.startSpreadMs)),
            directMs: median(direct),
            sequentialMs: sequential,
            speedup: sequential / wall,
            speedupOverK: sequential / wall / k,
            overheadVsL: wall - B4_DELAY_MS,
            overheadVsDirect: wall - median(direct),
            events: median(runs.map((r) => r.events)),
            maxConcurrent: Math.min(...runs.map((r) => r.maxConcurrent)),
          });
        }
      }
    } finally {
      await pollers.stop();
    }
    const fmt = (x: number, d = 1) => round(x, d);
    const targets: TargetCheck[] = [];
    for (const r of rows.filter((x) => x.variant === DEFAULT_WORKER)) {
      if (r.k <= 16) {
        targets.push({ target: `K=${r.k}: speedup ≥ 0.95·K (${fmt(0.95 * r.k, 2)})`, measured: `${fmt(r.speedup, 2)} (${fmt(r.speedupOverK, 3)}·K)`, met: r.speedupOverK >= 0.95 });
      }
      if (r.k === 16) targets.push({ target: 'K=16: overhead (wall − L) ≤ 30 ms', measured: `${fmt(r.overheadVsL)} ms`, met: r.overheadVsL <= 30 });
      if (r.k === 64) targets.push({ target: 'K=64: overhead (wall − L) ≤ 150 ms', measured: `${fmt(r.overheadVsL)} ms`, met: r.overheadVsL <= 150 });
      targets.push({ target: `K=${r.k}: parent events ≤ 3K + 9 (${3 * r.k + 9})`, measured: String(r.events), met: r.events <= 3 * r.k + 9 });
    }
    const tunedRow = rows.find((r) => r.variant === TUNED_WORKER && r.k === 16);
    const plainRow = rows.find((r) => r.variant.startsWith(TUNED_WORKER) && r.variant !== TUNED_WORKER && r.k === 16);
    const floorRow = rows.find((r) => r.variant.startsWith('floor') && r.k === 16);
    if (tunedRow && floorRow) {
      targets.push({ target: '(context) K=16, tuned server: troupe wall − the floor\'s (same run)', measured: `${fmt(tunedRow.wallMs - floorRow.wallMs)} ms (floor overhead over direct: ${fmt(floorRow.overheadVsDirect)} ms)`, met: null });
    }
    if (tunedRow) {
      targets.push(
        { target: 'K=16, L=1 s, tuned server: speedup ≥ 0.96·K', measured: `${fmt(tunedRow.speedup, 2)} (${fmt(tunedRow.speedupOverK, 3)}·K)`, met: tunedRow.speedupOverK >= 0.96 },
        { target: 'K=16, tuned server: overhead over direct Promise.all ≤ 40 ms', measured: `${fmt(tunedRow.overheadVsDirect)} ms`, met: tunedRow.overheadVsDirect <= 40 },
        { target: 'K=16, tuned server, run with search attributes: parent events ≤ 3K + 10 (the status upsert that lists it is one event)', measured: String(tunedRow.events), met: tunedRow.events <= 3 * 16 + 10 },
      );
    }
    if (plainRow) {
      targets.push({ target: 'K=16, tuned server, run without search attributes: parent events at the 3K + 9 best case', measured: String(plainRow.events), met: plainRow.events <= 3 * 16 + 9 });
    }
    return {
      id: 'B4',
      title: 'Star fan-out vs sequential',
      method: `troupe star topology with K agents (one wave, all dispatched concurrently), stub delay L = ${B4_DELAY_MS} ms; wall = client start → result. Each K > 10 also runs on a bench worker that differs only by activityTaskPollerBehavior {simple-maximum ${MORE_POLLERS}} (the SDK default is 10 pollers), and on the tuned dev server (eager dispatch + transfer poll 1000/s). Baselines in the same run: direct Promise.all of K calls (ideal ≈ L) and sequential K·L = K × the measured single direct call (${fmt(single)} ms). Median of ${ctx.options.reps} runs.`,
      tables: [
        {
          title: 'Fan-out wall time (ms, median)',
          headers: ['K', 'worker', 'troupe wall', 'server start→close', 'first schedule→last start', 'first schedule→last completion', 'direct Promise.all', 'sequential K·L', 'speedup', 'speedup / K', 'overhead vs L', 'overhead vs direct', 'parent events', 'max concurrent at stub'],
          note: 'Parent events, best case 3K + 9: start (1) + first workflow task (3) + K × (scheduled, started, completed) + one workflow task for all completions (3) + the memo with troupe\'s status (1) + completed (1); a run started with troupe\'s search attributes (as `troupe run` starts one where they are registered) also upserts them at its end (+1). Each extra workflow task woken by a completion adds 3.',
          rows: rows.map((r) => [r.k, r.variant, fmt(r.wallMs), fmt(r.serverMs), fmt(r.startSpreadMs), fmt(r.activitySpanMs), fmt(r.directMs), fmt(r.sequentialMs), fmt(r.speedup, 2), fmt(r.speedupOverK, 3), fmt(r.overheadVsL), fmt(r.overheadVsDirect), r.events, r.maxConcurrent]),
        },
      ],
      targets,
      data: { delayMs: B4_DELAY_MS, singleMs: single, singles, rows },
    };
  } finally {
    await ctx.stub.configure(0);
  }
}
