/**
 * Entry point of the benchmark suite (`npm run bench`, i.e. `tsx bench/run.ts`): starts its own
 * Temporal dev server(s) and stub LLM, runs B1–B16 (B16 on its own
 * cluster: Temporal on PostgreSQL, bench/lib/cluster.ts), and writes bench/results/latest.json and
 * latest.md. Every benchmark compares against a baseline measured in the same run.
 *
 * Flags: --only B1,B4  --reps N (default 3)  --steps N (B1, default 200)  --long (B2 with 1,000
 * iterations and continue-as-new, B3 with N = 128 and 200 ms, B4 with K = 64, B16 with 200 ms)  --no-variants (skip the
 * dev servers with eager dispatch / faster transfer-queue polling)  --tuned-only (only the tuned dev server besides
 * P0; B1 then compares troupe with the floor on it alone)
 * --budget-s N (soft budget, default 300: B1 scales its repetitions to fit; the run aborts at 2×).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { runB1 } from './b1-step-overhead';
import { runB2 } from './b2-history';
import { runB3 } from './b3-throughput';
import { runB4 } from './b4-fanout';
import { runB5 } from './b5-replay';
import { runB6 } from './b6-memory';
import { runB7 } from './b7-tool-calls';
import { runB8 } from './b8-follow';
import { runB9 } from './b9-nested-team';
import { runB10 } from './b10-streamed-calls';
import { runB11 } from './b11-live-text';
import { runB12 } from './b12-metrics';
import { runB13 } from './b13-tracing';
import { runB14 } from './b14-endless-replies';
import { runB15 } from './b15-continue';
import { runB16 } from './b16-cluster-throughput';
import { environment, load } from './lib/env';
import { reviewLoopYaml, BENCH_TASK } from './lib/loops';
import { tcpPingPong, trivialRpc } from './lib/calibrate';
import { spinCalibrationMs } from './lib/measure';
import { renderMarkdown, type SuiteResult } from './lib/report';
import { buildBundles, compileYaml, SERVER_VARIANTS, startStack, type ServerVariant, type Stack } from './lib/stack';
import { startBenchStub } from './lib/stub-client';
import { round } from './lib/stats';
import type { BenchContext, BenchOptions, BenchReport } from './lib/types';

/** The benchmarks in the order they run (B2 before B5: B5 replays B2's history). */
export const BENCHMARKS: Record<string, (ctx: BenchContext) => Promise<BenchReport>> = {
  B1: runB1,
  B2: runB2,
  B3: runB3,
  B4: runB4,
  B5: runB5,
  B6: runB6,
  B7: runB7,
  B8: runB8,
  B9: runB9,
  B10: runB10,
  B11: runB11,
  B12: runB12,
  B13: runB13,
  B14: runB14,
  B15: runB15,
  B16: runB16,
};

/** Iterations of the run whose requests the baselines and the floor workflow replay (cycled). */
export const RECORDED_ITERATIONS = 40;

/** Parsed command line. */
export interface CliOptions extends BenchOptions {
  only: string[];
  budgetS: number;
  out: string;
}

/** Parses the flags listed in the file comment. */
export function parseArgs(argv: string[]): CliOptions {
  const opts: CliOptions = {
    steps: 200,
    reps: 3,
    long: false,
    serverVariants: true,
    tunedOnly: false,
    only: Object.keys(BENCHMARKS),
    budgetS: 300,
    out: path.join(__dirname, 'results'),
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const next = () => {
      const v = argv[++i];
      if (v === undefined) throw new Error(`${a} needs a value`);
      return v;
    };
    if (a === '--long') opts.long = true;
    else if (a === '--no-variants') opts.serverVariants = false;
    else if (a === '--tuned-only') opts.tunedOnly = true;
    else if (a === '--reps') opts.reps = Math.max(1, Number(next()));
    else if (a === '--steps') opts.steps = Math.max(4, 2 * Math.round(Number(next()) / 2));
    else if (a === '--budget-s') opts.budgetS = Number(next());
    else if (a === '--out') opts.out = path.resolve(next());
    else if (a === '--only') opts.only = next().toUpperCase().split(',').map((s) => s.trim());
    else throw new Error(`unknown flag ${a}`);
  }
  const unknown = opts.only.filter((id) => !(id in BENCHMARKS));
  if (unknown.length) throw new Error(`unknown benchmark(s) ${unknown.join(', ')}; known: ${Object.keys(BENCHMARKS).join(', ')}`);
  return opts;
}

function log(line: string): void {
  process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${line}\n`);
}

async function main(): Promise<number> {
  const opts = parseArgs(process.argv.slice(2));
  const started = performance.now();
  const watchdog = setTimeout(() => {
    log(`twice the time budget of ${opts.budgetS} s passed; aborting`);
    process.exit(2);
  }, 2 * opts.budgetS * 1000);
  watchdog.unref();

  const spinBefore = spinCalibrationMs();
  const loadBefore = load();
  log(`load ${JSON.stringify(loadBefore)}, spin calibration ${round(spinBefore)} ms`);
  const stub = await startBenchStub();
  const tBundle = performance.now();
  const bundles = await buildBundles();
  log(`bundles built in ${round(performance.now() - tBundle, 0)} ms`);
  let requests: BenchContext['requests'] = [];
  const floorRequests = () => requests;
  const tStack = performance.now();
  const p0 = await startStack({ name: 'P0', bundles, stubUrl: stub.url, floorRequests });
  const p0StartMs = performance.now() - tStack;
  const stacks: Stack[] = [p0];
  const variants: Partial<Record<ServerVariant, Stack>> = {};
  const startVariant = async (name: ServerVariant) => {
    const stack = await startStack({ name, bundles, stubUrl: stub.url, floorRequests, dynamicConfig: SERVER_VARIANTS[name].dynamicConfig });
    stacks.push(stack);
    variants[name] = stack;
  };
  const stopVariant = async (name: ServerVariant) => {
    const stack = variants[name];
    if (!stack) return;
    delete variants[name];
    stacks.splice(stacks.indexOf(stack), 1);
    await stack.close();
  };
  await trivialRpc(p0.client, p0.server.pid, 50);
  const calibration = { tcpPingPongMs: await tcpPingPong(), getSystemInfo: await trivialRpc(p0.client, p0.server.pid) };
  log(`calibration ${JSON.stringify(calibration)}`);
  const result: SuiteResult = {
    environment: environment(p0.server.version),
    options: { steps: opts.steps, reps: opts.reps, long: opts.long, serverVariants: opts.serverVariants, tunedOnly: opts.tunedOnly, only: opts.only.join(','), budgetS: opts.budgetS },
    setup: {},
    benchmarks: [],
    errors: [],
    totalMs: 0,
  };
  try {
    log('recording the requests the baselines replay');
    const handle = await p0.startTroupe(compileYaml(reviewLoopYaml(RECORDED_ITERATIONS, 'bench-record')), BENCH_TASK);
    await p0.result(handle);
    requests = await stub.requests();
    if (opts.serverVariants && !opts.tunedOnly && opts.only.includes('B1')) {
      await startVariant('eager');
      await startVariant('fast-transfer');
    }
    if (opts.serverVariants && opts.only.some((id) => ['B1', 'B3', 'B4', 'B7', 'B8', 'B9', 'B10', 'B11'].includes(id))) await startVariant('tuned');
    const shared = new Map<string, unknown>();
    for (const id of opts.only) {
      const ctx: BenchContext = {
        options: opts,
        stub,
        bundles,
        p0,
        variants: { ...variants },
        requests,
        pids: { server: p0.server.pid, worker: process.pid, stub: stub.pid },
        log,
        shared,
        calibration,
      };
      const t0 = performance.now();
      const loadAt = load();
      log(`${id} starting (load ${loadAt.load1})`);
      try {
        const report = await BENCHMARKS[id](ctx);
        report.durationMs = performance.now() - t0;
        report.data.load = { before: loadAt, after: load() };
        result.benchmarks.push(report);
      } catch (err) {
        log(`${id} failed: ${err instanceof Error ? err.stack : String(err)}`);
        result.errors.push({ id, message: err instanceof Error ? err.message : String(err) });
      }
      if (id === 'B1') {
        await stopVariant('eager');
        await stopVariant('fast-transfer');
      }
    }
  } finally {
    for (const s of stacks) await s.close().catch((err: unknown) => log(`closing ${s.name}: ${String(err)}`));
    await stub.close();
  }
  const spinAfter = spinCalibrationMs();
  result.totalMs = performance.now() - started;
  result.setup = {
    'dev server': 'temporal server start-dev, in memory, headless, default dynamic config (P0)',
    'server variants': opts.serverVariants
      ? Object.entries(SERVER_VARIANTS).map(([k, v]) => `${k}: ${JSON.stringify(v.dynamicConfig)}`).join('; ')
      : 'off',
    worker: 'src/worker.ts createWorker (prebuilt bundle, reuseV8Context default, maxConcurrentActivityTaskExecutions 100, heartbeat throttle 500 ms), in this process',
    stub: 'test/helpers/stub-llm.ts in a child process, ~1 KB replies',
    'troupe bundle ms': Math.round(bundles.troupeMs),
    'dev server + workers start ms': Math.round(p0StartMs),
    'load average before / after': `${loadBefore.load1} / ${load().load1}`,
    'spin calibration ms before / after (lower = less contention)': `${round(spinBefore, 0)} / ${round(spinAfter, 0)}`,
    'TCP ping-pong between two processes, ms p50 / p95': `${calibration.tcpPingPongMs.p50} / ${calibration.tcpPingPongMs.p95}`,
    'GetSystemInfo RPC: round trip ms p50 / p95, server CPU ms, client CPU ms per call': `${calibration.getSystemInfo.p50} / ${calibration.getSystemInfo.p95}, ${calibration.getSystemInfo.serverCpuMs}, ${calibration.getSystemInfo.clientCpuMs}`,
  };
  result.calibration = calibration;
  fs.mkdirSync(opts.out, { recursive: true });
  fs.writeFileSync(path.join(opts.out, 'latest.json'), JSON.stringify(result, null, 2) + '\n');
  fs.writeFileSync(path.join(opts.out, 'latest.md'), renderMarkdown(result));
  log(`wrote ${path.join(opts.out, 'latest.json')} and latest.md in ${round(result.totalMs / 1000, 1)} s`);
  for (const b of result.benchmarks) {
    for (const t of b.targets) log(`${b.id} ${t.met === null ? '—' : t.met ? 'MET    ' : 'NOT MET'} ${t.target}: ${t.measured}`);
  }
  return result.errors.length ? 1 : 0;
}

if (require.main === module) {
  main().then(
    (code) => process.exit(code),
    (err: unknown) => {
      log(err instanceof Error ? (err.stack ?? err.message) : String(err));
      process.exit(1);
    },
  );
}
