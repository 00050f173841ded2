/**
 * B6 — memory per parked run and worker start: M ∈ {100, 1,000} runs parked on one worker, each
 * after one model call, troupe's waiting for an approval (`approval.before_exit`) and the floor's
 * on a `condition` (bench/floor). Each worker runs alone in a child process
 * (lib/worker-process.ts) started from the prebuilt bundle, so its RSS and V8 heap, measured after
 * forced garbage collection, are its own: per run = (parked − empty worker) ÷ M. Its own dev server,
 * so the parked runs stay out of the other benchmarks.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Client } from '@temporalio/client';
import { bundleWorkflowCode, DefaultLogger } from '@temporalio/worker';
import { startRun } from '../src/client';
import { workflowEntry } from '../src/worker';
import { WORKFLOW_TYPE } from '../src/contract';
import { forkChild } from './lib/child';
import { BENCH_TASK } from './lib/loops';
import { compileYaml, SERVER_VARIANTS, startStack, type Stack } from './lib/stack';
import { round } from './lib/stats';
import type { BenchContext, BenchReport, TargetCheck } from './lib/types';
import type { WorkerMemory, WorkerReady } from './lib/worker-process';

/** Parked runs at each measurement (cumulative). */
export const B6_COUNTS = [100, 1000];
/** Issue 13: worker memory per parked run above an empty worker. */
export const B6_LIMIT_KB = 150;
/** Issue 13: worker start with the prebuilt bundle. */
export const B6_START_LIMIT_MS = 1000;

const APPROVAL_ROLE = `
name: bench-parked
agents:
  writer: { instructions: "Write the essay." }
collaboration:
  topology: pipeline
  agents: [writer]
approval:
  before_exit: true
`;

interface ChildWorker {
  ready: WorkerReady;
  /** Wall ms from fork to the worker running (node + tsx start included). */
  forkToReadyMs: number;
  memory(): Promise<WorkerMemory>;
  stop(): Promise<void>;
}

async function forkWorker(kind: 'troupe' | 'floor', stack: Stack, taskQueue: string, stubUrl: string, bundleFile: string): Promise<ChildWorker> {
  const args = [kind, stack.server.address, stack.server.namespace, taskQueue, stubUrl, bundleFile];
  const child = await forkChild<WorkerReady>(path.join(__dirname, 'lib', 'worker-process.ts'), args, `B6 ${kind} worker`, ['--expose-gc']);
  return {
    ready: child.ready,
    forkToReadyMs: child.forkToReadyMs,
    memory: () => child.request<WorkerMemory>({ op: 'memory' }),
    stop: () => child.close(5000),
  };
}

/** Waits until `count` executions match `query` (visibility), polling. */
async function waitForCount(client: Client, query: string, count: number, timeoutMs: number): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const n = (await client.workflow.count(query)).count;
    if (n >= count) return;
    if (Date.now() > until) throw new Error(`B6: ${n} of ${count} runs parked after ${timeoutMs} ms (${query})`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

interface Point {
  worker: string;
  runs: number;
  memory: WorkerMemory;
}

/** Parks runs on a fresh worker of `kind` and measures its memory at each count. */
async function park(ctx: BenchContext, stack: Stack, worker: WorkerUnderTest, bundleFile: string): Promise<{ empty: WorkerMemory; points: Point[]; worker: ChildWorker }> {
  const { kind, name } = worker;
  const taskQueue = `bench-parked-${name.replace(/[^a-z0-9]+/gi, '-')}-${process.pid}`;
  const child = await forkWorker(kind, stack, taskQueue, ctx.stub.url, bundleFile);
  const empty = await child.memory();
  const points: Point[] = [];
  const graph = compileYaml(APPROVAL_ROLE);
  let started = 0;
  try {
    for (const target of B6_COUNTS) {
      const batch = target - started;
      for (let i = 0; i < batch; i += 50) {
        await Promise.all(
          Array.from({ length: Math.min(50, batch - i) }, (_, j) =>
            kind === 'troupe'
              ? startRun(stack.client, { role: graph, task: BENCH_TASK, taskQueue, workflowId: `${taskQueue}-${started + i + j}` })
              : stack.client.workflow.start('floorParked', { taskQueue, workflowId: `${taskQueue}-${started + i + j}` }),
          ),
        );
      }
      started = target;
      // troupe: the waiting flag in its search attributes; the floor: its one call done (no history to read cheaply)
      if (kind === 'troupe') {
        await waitForCount(stack.client, `WorkflowType = '${WORKFLOW_TYPE}' AND TroupeWaiting = true AND TaskQueue = '${taskQueue}'`, target, 300_000);
      } else {
        const until = Date.now() + 300_000;
        while ((await ctx.stub.arrivals()).length < target) {
          if (Date.now() > until) throw new Error('B6: floor runs did not all make their call');
          await new Promise((r) => setTimeout(r, 500));
        }
        await new Promise((r) => setTimeout(r, 2000));
      }
      const memory = await child.memory();
      points.push({ worker: name, runs: target, memory });
      ctx.log(`B6 ${name}: ${target} runs parked, RSS ${round(memory.rss)} MiB, heap ${round(memory.heapUsed)} MiB (empty: ${round(empty.rss)} / ${round(empty.heapUsed)})`);
    }
  } catch (err) {
    await child.stop();
    throw err;
  }
  return { empty, points, worker: child };
}

/** A worker B6 measures: which child worker runs, and its row's name. */
interface WorkerUnderTest {
  kind: 'troupe' | 'floor';
  name: string;
}

/** The workers B6 measures, in order, with the bundle each starts from. */
const WORKERS = {
  troupe: { kind: 'troupe', name: 'troupe' },
  floor: { kind: 'floor', name: 'floor' },
  unshared: { kind: 'troupe', name: 'troupe, modules loaded per run (before: no preloadModules)' },
} as const satisfies Record<string, WorkerUnderTest>;

/** Runs B6. */
export async function runB6(ctx: BenchContext): Promise<BenchReport> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'troupe-bench-b6-'));
  // the "before" of sharing troupe's modules between cached runs: the same entry bundled without preloadModules
  const unshared = await bundleWorkflowCode({ workflowsPath: workflowEntry(), logger: new DefaultLogger('WARN') });
  const bundleFile = (which: keyof typeof WORKERS) => {
    const file = path.join(dir, `${which}.json`);
    const b = which === 'unshared' ? unshared : ctx.bundles[which];
    fs.writeFileSync(file, JSON.stringify({ code: b.code, sourceMap: b.sourceMap }));
    return file;
  };
  const stack = await startStack({ name: 'B6', bundles: ctx.bundles, stubUrl: ctx.stub.url, floorRequests: () => ctx.requests, dynamicConfig: SERVER_VARIANTS.tuned.dynamicConfig });
  const results: Array<Awaited<ReturnType<typeof park>>> = [];
  try {
    for (const which of ['troupe', 'floor', 'unshared'] as const) {
      await ctx.stub.reset();
      const r = await park(ctx, stack, WORKERS[which], bundleFile(which));
      await r.worker.stop();
      results.push(r);
    }
  } finally {
    await stack.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
  const fmt = (x: number, d = 1) => round(x, d);
  const perRunKB = (p: Point, empty: WorkerMemory, key: keyof WorkerMemory) => ((p.memory[key] - empty[key]) * 1024) / p.runs;
  const rows = results.flatMap((r) =>
    r.points.map((p) => [
      p.worker,
      p.runs,
      fmt(r.empty.rss),
      fmt(p.memory.rss),
      fmt(perRunKB(p, r.empty, 'rss'), 0),
      fmt(r.empty.heapUsed),
      fmt(p.memory.heapUsed),
      fmt(perRunKB(p, r.empty, 'heapUsed'), 0),
      fmt(perRunKB(p, r.empty, 'external'), 0),
    ]),
  );
  const [troupe, floor, before] = results;
  const kbAt = (r: (typeof results)[number], runs: number) => {
    const point = r.points.find((p) => p.runs === runs);
    return point ? perRunKB(point, r.empty, 'rss') : Number.NaN;
  };
  const targets: TargetCheck[] = [];
  for (const p of troupe.points) {
    const kb = perRunKB(p, troupe.empty, 'rss');
    targets.push({
      target: `M=${p.runs} runs waiting for approval: worker RSS per run ≤ ${B6_LIMIT_KB} KB above an empty worker`,
      measured: `${fmt(kb, 0)} KB (floor: ${fmt(kbAt(floor, p.runs), 0)} KB, ×${fmt(kb / kbAt(floor, p.runs), 2)}; before sharing modules: ${fmt(kbAt(before, p.runs), 0)} KB)`,
      met: kb <= B6_LIMIT_KB,
    });
  }
  // the marginal cost of a run, free of the allocator's first steps (both points on the same worker)
  const marginal = (r: (typeof results)[number]) => {
    const [a, b] = r.points;
    return a && b ? ((b.memory.rss - a.memory.rss) * 1024) / (b.runs - a.runs) : Number.NaN;
  };
  targets.push({ target: `(context) marginal RSS per parked run between M=${B6_COUNTS.join(' and ')}: troupe ÷ floor`, measured: `${fmt(marginal(troupe), 0)} vs ${fmt(marginal(floor), 0)} KB (×${fmt(marginal(troupe) / marginal(floor), 2)}; before sharing modules: ${fmt(marginal(before), 0)} KB)`, met: null });
  targets.push({ target: `worker start with the prebuilt bundle ≤ ${B6_START_LIMIT_MS} ms (connect + Worker.create)`, measured: `${fmt(troupe.worker.ready.createMs, 0)} ms (floor ${fmt(floor.worker.ready.createMs, 0)} ms)`, met: troupe.worker.ready.createMs <= B6_START_LIMIT_MS });
  return {
    id: 'B6',
    title: 'Memory per parked run, and worker start',
    method:
      `A dedicated tuned dev server. For troupe, the floor, then troupe from a bundle without preloadModules (how 0.2 workers loaded troupe before sharing its modules): one worker alone in a child process (Node with --expose-gc, started from the prebuilt bundle: createWorker for troupe, Worker.create with the floor's bundle), default cache settings. ` +
      `Runs are started in batches of 50 up to ${B6_COUNTS.join(' and then ')}: troupe's a one-agent pipeline with approval.before_exit (one model call, then a wait for approve), the floor's one bare activity then a condition on a signal. ` +
      `Memory is read after two forced GCs once every run waits (troupe: counted by its TroupeWaiting search attribute). Per run = (parked − empty) ÷ M.`,
    tables: [
      {
        title: 'Worker memory (MiB) and per parked run (KB)',
        headers: ['worker', 'parked runs', 'RSS empty', 'RSS parked', 'RSS per run KB', 'heap used empty', 'heap used parked', 'heap per run KB', 'external per run KB'],
        rows,
      },
      {
        title: 'Worker start (prebuilt bundle)',
        headers: ['worker', 'connect + Worker.create ms', 'fork → running ms (Node and tsx start included)'],
        rows: results.map((r) => [r.points[0]?.worker ?? '?', fmt(r.worker.ready.createMs, 0), fmt(r.worker.forkToReadyMs, 0)]),
        note: `Bundling with webpack instead (createWorker without workflowBundle, as \`troupe worker\` does) took ${fmt(ctx.bundles.troupeMs, 0)} ms in this run (the suite's own bundle step).`,
      },
    ],
    targets,
    data: { results: results.map((r) => ({ empty: r.empty, points: r.points, ready: r.worker.ready, forkToReadyMs: r.worker.forkToReadyMs })) },
  };
}
