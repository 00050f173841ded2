/**
 * B13 — what tracing costs the worker (docs/observability.md, "Traces"): two troupe workers, each
 * alone in a child process (lib/worker-process.ts, createWorker from a prebuilt bundle), on one dev
 * server and the one stub: one traces (OTEL_EXPORTER_OTLP_ENDPOINT to a real Jaeger on this machine,
 * its bundle with the tracing workflow interceptors), the other does not. Review loops of the same
 * length run on each in turn; the worker's CPU per step is read from /proc. The traced worker's
 * spans are then counted in Jaeger, so the ratio is of a worker that really exported them.
 *
 * Off against "no tracing code at all" cannot be run side by side (it is an older build). What an
 * untraced worker still runs of it is measured here in this process: `tracedModelCall` and
 * `tracedToolCall` with no tracing side (a Map lookup, then the call itself) and the workflow's
 * dispatch seam (a global lookup), each against a direct call.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { bundleWorkflows } from '../src/worker';
import { tracedModelCall, tracedToolCall } from '../src/telemetry/tracing';
import { workflowSpanHooks } from '../src/workflows/spans';
import { startJaeger } from '../test/helpers/jaeger';
import { forkChild, type Child } from './lib/child';
import { reviewLoopYaml, BENCH_TASK } from './lib/loops';
import { cpuMs, threadCpuDelta, threadCpuMs } from './lib/proc';
import { compileYaml, startStack, SERVER_VARIANTS } from './lib/stack';
import { median, round } from './lib/stats';
import type { BenchContext, BenchReport, TargetCheck } from './lib/types';
import type { WorkerReady } from './lib/worker-process';

/** Steps (agent dispatches) of each timed run. */
export const B13_STEPS = 100;
/** The limit: worker CPU per step, traced ÷ untraced. */
export const B13_LIMIT = 1.1;
/** How long after a run both workers are given before their CPU is read (the traced one's batch goes out). */
const SETTLE_MS = 1000;

/** B13_CPU_PROF=dir: each worker writes V8 CPU profiles (one per thread) to `dir/off` and `dir/on` when it stops, to see where a traced step's CPU goes. */
function profArgs(name: string): string[] {
  const dir = process.env.B13_CPU_PROF;
  return dir ? ['--cpu-prof', '--cpu-prof-dir', path.join(dir, name)] : [];
}

interface Sample {
  cpuMsPerStep: number;
  wallMsPerStep: number;
  /** CPU ms per step by kind of thread (bench/lib/proc.ts, threadCpuDelta). */
  threads: Record<string, number>;
}

/** ns per call of `traced` over `direct`, best of a few rounds of `n` calls each. */
function nsPerCall(n: number, direct: () => unknown, traced: () => unknown): { direct: number; traced: number } {
  const time = (fn: () => unknown) => {
    let best = Infinity;
    for (let round = 0; round < 5; round++) {
      const t0 = performance.now();
      for (let i = 0; i < n; i++) fn();
      best = Math.min(best, ((performance.now() - t0) * 1e6) / n);
    }
    return best;
  };
  return { direct: time(direct), traced: time(traced) };
}

/** Runs B13. */
export async function runB13(ctx: BenchContext): Promise<BenchReport> {
  const reps = Math.max(5, ctx.options.reps);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'troupe-bench-b10-'));
  const jaeger = await startJaeger({ readyMs: 60_000 });
  const stack = await startStack({ name: 'B13', bundles: ctx.bundles, stubUrl: ctx.stub.url, floorRequests: () => ctx.requests, dynamicConfig: SERVER_VARIANTS.tuned.dynamicConfig });
  const workers: Array<Child<WorkerReady>> = [];
  try {
    const write = (name: string, b: { code: string; sourceMap: string }) => {
      const file = path.join(dir, `${name}.json`);
      fs.writeFileSync(file, JSON.stringify({ code: b.code, sourceMap: b.sourceMap }));
      return file;
    };
    // both bundles as `troupe worker` makes them without `--metrics` (bench/lib/stack.ts)
    const tracedBundle = write('traced', await bundleWorkflows(undefined, undefined, true, false));
    const plainBundle = write('plain', ctx.bundles.troupe);
    const base = { ...process.env };
    for (const k of Object.keys(base)) if (k.startsWith('OTEL_')) delete base[k];
    const fork = (name: 'off' | 'on', bundle: string, env: NodeJS.ProcessEnv) =>
      forkChild<WorkerReady>(path.join(__dirname, 'lib', 'worker-process.ts'), ['troupe', stack.server.address, stack.server.namespace, `bench-b10-${name}-${process.pid}`, ctx.stub.url, bundle], `B13 ${name} worker`, profArgs(name), env);
    const off = await fork('off', plainBundle, base);
    workers.push(off);
    const on = await fork('on', tracedBundle, { ...base, OTEL_EXPORTER_OTLP_ENDPOINT: jaeger.otlpEndpoint, OTEL_BSP_SCHEDULE_DELAY: '200' });
    workers.push(on);
    const graph = compileYaml(reviewLoopYaml(B13_STEPS / 2, 'bench-traced'));
    const once = async (which: 'off' | 'on'): Promise<Sample> => {
      const child = which === 'on' ? on : off;
      const pid = child.ready.pid;
      const before = cpuMs(pid) ?? Number.NaN;
      const threadsBefore = threadCpuMs(pid);
      const t0 = performance.now();
      const handle = await stack.startTroupe(graph, BENCH_TASK, `bench-b10-${which}-${process.pid}`);
      const result = await stack.result(handle);
      const wallMs = performance.now() - t0;
      if (result.steps !== B13_STEPS) throw new Error(`B13 ${which}: ${result.steps} steps, ${result.status}/${result.reason}`);
      await new Promise((r) => setTimeout(r, SETTLE_MS));
      const after = cpuMs(pid) ?? Number.NaN;
      const threads = Object.fromEntries(Object.entries(threadCpuDelta(pid, threadsBefore, threadCpuMs(pid))).map(([k, ms]) => [k, ms / B13_STEPS]));
      return { cpuMsPerStep: (after - before) / B13_STEPS, wallMsPerStep: wallMs / B13_STEPS, threads };
    };
    // one of each to warm up, then alternating pairs, the order swapped every pair
    await once('off');
    await once('on');
    const samples: Record<'off' | 'on', Sample[]> = { off: [], on: [] };
    for (let i = 0; i < reps; i++) {
      const order: Array<'off' | 'on'> = i % 2 === 0 ? ['off', 'on'] : ['on', 'off'];
      for (const which of order) samples[which].push(await once(which));
      ctx.log(`B13 pair ${i + 1}/${reps}: off ${round(samples.off.at(-1)!.cpuMsPerStep)} ms CPU/step, on ${round(samples.on.at(-1)!.cpuMsPerStep)}`);
    }
    // what Jaeger received from the traced worker: its spans, per step
    await new Promise((r) => setTimeout(r, 1000));
    const traces = await jaeger.traces('troupe-worker', 1000);
    const spans = traces.reduce((n, t) => n + t.spans.length, 0);
    const chats = traces.reduce((n, t) => n + t.spans.filter((s) => s.operationName.startsWith('chat ')).length, 0);
    const stepsTraced = (reps + 1) * B13_STEPS;

    // the off path, in this process (which does not trace)
    if (workflowSpanHooks()) throw new Error('B13: this process must not trace');
    const response = Promise.resolve({ completion: { id: 'c', model: 'm', choices: [] }, usage: { promptTokens: 1, completionTokens: 1, totalTokens: 2 } });
    const send = () => response;
    const scope = { kind: 'agent', agent: 'writer' };
    const body = { model: 'm' };
    const model = nsPerCall(2_000_000, send, () => tracedModelCall(scope, 'http://127.0.0.1/v1', body, true, send));
    const outcome = Promise.resolve({ kind: 'ok' as const, text: 't' });
    const call = () => outcome;
    const toolInput = { workflowId: 'w', agent: 'a', tool: 't', argumentsJson: '{}', toolCallId: 'c', timeoutMs: 1 };
    const tool = nsPerCall(2_000_000, call, () => tracedToolCall(toolInput, call));
    const seam = nsPerCall(2_000_000, call, () => (workflowSpanHooks() ? undefined : call()));

    const med = (which: 'off' | 'on', key: 'cpuMsPerStep' | 'wallMsPerStep') => median(samples[which].map((s) => s[key]));
    // CPU per step by kind of thread, medians over the pairs
    const kinds = [...new Set(['on', 'off'].flatMap((w) => samples[w as 'on' | 'off'].flatMap((s) => Object.keys(s.threads))))];
    const byThread = (which: 'off' | 'on', kind: string) => median(samples[which].map((s) => s.threads[kind] ?? 0));
    const threadRows = kinds
      .map((k): [string, number, number] => [k, byThread('off', k), byThread('on', k)])
      .filter(([, off, on]) => off >= 0.05 || on >= 0.05)
      .sort((a, b) => b[2] - a[2]);
    for (const [k, off, on] of threadRows) ctx.log(`B13 ${k}: off ${round(off, 3)} ms CPU/step, on ${round(on, 3)} (+${round(on - off, 3)})`);
    const ratio = med('on', 'cpuMsPerStep') / med('off', 'cpuMsPerStep');
    const extraNs = model.traced - model.direct + (seam.traced - seam.direct);
    const targets: TargetCheck[] = [
      {
        target: `worker CPU per step, tracing on (exporting to Jaeger) ÷ off ≤ ${B13_LIMIT}`,
        measured: `×${round(ratio, 3)} (${round(med('on', 'cpuMsPerStep'), 3)} vs ${round(med('off', 'cpuMsPerStep'), 3)} ms; medians of ${reps})`,
        met: ratio <= B13_LIMIT,
      },
      {
        target: '(context) tracing off vs no tracing code: what an untraced step still runs of it',
        measured: `${round(extraNs, 1)} ns per model step (wrapper ${round(model.traced - model.direct, 1)} ns, dispatch seam ${round(seam.traced - seam.direct, 1)} ns) = ${round((extraNs / 1e6 / med('off', 'cpuMsPerStep')) * 100, 4)} % of an untraced step's worker CPU`,
        met: null,
      },
    ];
    return {
      id: 'B13',
      title: 'Tracing: worker CPU per step, on vs off',
      method:
        `A dedicated tuned dev server and the suite's stub. Two troupe workers, each alone in a child process (createWorker from a prebuilt bundle): ` +
        `one with OTEL_EXPORTER_OTLP_ENDPOINT pointing at a real Jaeger on this machine (test/helpers/jaeger.ts; BatchSpanProcessor, OTEL_BSP_SCHEDULE_DELAY=200) and the bundle with the tracing workflow interceptors, ` +
        `one without either. Review loops of ${B13_STEPS} steps alternate between them (one warm-up each, then ${reps} pairs, the order swapped every pair); ` +
        `a worker's CPU (user + system, /proc) from the start of a run to ${SETTLE_MS} ms after its result, per step; medians. ` +
        `Then the spans Jaeger holds from the traced worker are counted. The untraced path's own cost is timed in the bench process: tracedModelCall, tracedToolCall and the dispatch seam with no tracing side, against a direct call (best of 5 rounds of 2,000,000 calls).`,
      tables: [
        {
          title: 'Worker CPU and wall time per step (medians)',
          headers: ['worker', 'CPU ms / step', 'wall ms / step', 'runs'],
          rows: [
            ['tracing off', round(med('off', 'cpuMsPerStep'), 3), round(med('off', 'wallMsPerStep'), 2), samples.off.length],
            ['tracing on, exporting to Jaeger', round(med('on', 'cpuMsPerStep'), 3), round(med('on', 'wallMsPerStep'), 2), samples.on.length],
          ],
          note: `Jaeger received ${spans} spans of the traced worker in ${traces.length} traces (${chats} chat spans), ${round(spans / stepsTraced, 1)} spans per step.`,
        },
        {
          title: 'Worker CPU per step by thread (medians; main: the worker process\'s event loop, worker threads: the workflow threads, platform: V8\'s GC and compiler threads and libuv\'s pool, tokio: the native core)',
          headers: ['thread', 'off ms / step', 'on ms / step', 'on − off'],
          rows: threadRows.map(([k, off, on]) => [k, round(off, 3), round(on, 3), round(on - off, 3)]),
        },
        {
          title: 'The untraced path, per call (this process does not trace)',
          headers: ['call', 'direct ns', 'through troupe\'s tracing seam ns'],
          rows: [
            ['a model request (tracedModelCall)', round(model.direct, 1), round(model.traced, 1)],
            ['a tool call (tracedToolCall)', round(tool.direct, 1), round(tool.traced, 1)],
            ['a dispatch (workflowSpanHooks lookup)', round(seam.direct, 1), round(seam.traced, 1)],
          ],
        },
      ],
      targets,
      data: { samples, spans, traces: traces.length, chats, stepsTraced, nsPerCall: { model, tool, seam }, ratio },
    };
  } finally {
    for (const w of workers) await w.close(5000).catch(() => undefined);
    await stack.close();
    await jaeger.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
