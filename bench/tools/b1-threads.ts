/**
 * B1's probe by thread (bench-only, not part of `npm run bench`): where a troupe step's worker CPU
 * goes against the floor carrying the request and reply, thread by thread. Each worker runs alone in
 * a child process (`b1-threads-worker.ts`) on one tuned dev server and one stub; runs of `steps`
 * steps alternate between them (the order rotated every round), and each thread's CPU is read from
 * `/proc/<pid>/task/<tid>/schedstat` (ns on CPU) before and after each run. The workers:
 *
 * - troupe as B1 runs it (its model calls streamed; no metrics exported, so none recorded);
 * - troupe recording the workflow's metrics, as a worker that exports them does: each of the 3
 *   recordings a step makes is a sink call that crosses to the main thread (docs/observability.md);
 * - troupe with `TROUPE_STREAM=off` (the floor and 0.2 sent whole requests);
 * - the floor carrying the request and reply (`floorChat`, B1's "floor activity carrying…").
 *
 * Threads are grouped: the main thread; the workflow thread (the busiest other thread named `node`);
 * V8's helper threads (the other `node` threads: garbage collection, compilers); the Rust core's
 * threads (`tokio-runtime-w`, `workflow-proces…`, `temporal-…`).
 *
 * Usage: `npx tsx bench/tools/b1-threads.ts [rounds=6] [steps=200]`; `B1_CPU_PROF=dir` also writes a
 * V8 CPU profile per thread of each worker into `dir/<worker>`.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { bundleWorkflows } from '../../src/worker';
import { forkChild, type Child } from '../lib/child';
import { reviewLoopYaml, BENCH_TASK } from '../lib/loops';
import { buildBundles, compileYaml, installRuntime, SERVER_VARIANTS, startStack } from '../lib/stack';
import { median, round } from '../lib/stats';
import { requestBytes, startBenchStub } from '../lib/stub-client';
import type { ThreadsWorkerKind } from './b1-threads-worker';

/** ns on CPU by thread id; the main thread's id is the process id. */
type Threads = Map<number, { comm: string; ns: number }>;

function threadsOf(pid: number): Threads {
  const out: Threads = new Map();
  for (const tid of fs.readdirSync(`/proc/${pid}/task`)) {
    try {
      const comm = fs.readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim();
      const ns = Number(fs.readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
      out.set(Number(tid), { comm, ns });
    } catch {
      // the thread ended between the listing and the read
    }
  }
  return out;
}

function spent(before: Threads, after: Threads): Threads {
  const out: Threads = new Map();
  for (const [tid, t] of after) out.set(tid, { comm: t.comm, ns: t.ns - (before.get(tid)?.ns ?? 0) });
  return out;
}

const GROUPS = ['main', 'workflow thread', 'V8 helper threads', 'Rust core threads', 'other'] as const;
type Group = (typeof GROUPS)[number];

/** CPU µs by group; `workflowTid` is the worker's workflow thread. */
function grouped(pid: number, workflowTid: number, t: Threads): Record<Group, number> {
  const g = Object.fromEntries(GROUPS.map((k) => [k, 0])) as Record<Group, number>;
  for (const [tid, { comm, ns }] of t) {
    const group: Group =
      tid === pid ? 'main' : tid === workflowTid ? 'workflow thread' : comm === 'node' ? 'V8 helper threads' : /^(tokio|workflow-proc|temporal)/.test(comm) ? 'Rust core threads' : 'other';
    g[group] += ns / 1000;
  }
  return g;
}

interface Variant {
  name: string;
  kind: ThreadsWorkerKind;
  bundle?: string;
}

async function main(): Promise<void> {
  const rounds = Number(process.argv[2] ?? 6);
  const steps = Number(process.argv[3] ?? 200);
  const prof = process.env.B1_CPU_PROF;
  installRuntime();
  const stub = await startBenchStub();
  const bundles = await buildBundles();
  let requests: Awaited<ReturnType<typeof stub.requests>> = [];
  const stack = await startStack({ name: 'B1 threads', bundles, stubUrl: stub.url, floorRequests: () => requests, dynamicConfig: SERVER_VARIANTS.tuned.dynamicConfig });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'troupe-b1-threads-'));
  const children: Array<Child<{ pid: number }>> = [];
  try {
    // the requests the floor replays, as B1 records them
    await stack.result(await stack.startTroupe(compileYaml(reviewLoopYaml(40, 'bench-record')), BENCH_TASK));
    requests = await stub.requests();
    const file = (name: string, content: string) => {
      const f = path.join(dir, name);
      fs.writeFileSync(f, content);
      return f;
    };
    const bundleFile = (name: string, b: { code: string; sourceMap: string }) => file(`${name}.json`, JSON.stringify({ code: b.code, sourceMap: b.sourceMap }));
    const requestsFile = file('requests.json', JSON.stringify(requests));
    const troupe = bundleFile('troupe', bundles.troupe);
    const variants: Variant[] = [
      { name: 'troupe (as B1 runs it: no metrics exported, none recorded)', kind: 'troupe', bundle: troupe },
      { name: 'troupe recording workflow metrics (a worker that exports them)', kind: 'troupe', bundle: bundleFile('metrics', await bundleWorkflows(undefined, undefined, false, true)) },
      { name: 'troupe, streaming off', kind: 'troupe-nostream', bundle: troupe },
      { name: 'floor carrying the request and reply', kind: 'floor', bundle: bundleFile('floor', bundles.floor) },
    ];
    const queue = (i: number) => `b1-threads-${i}-${process.pid}`;
    for (const [i, v] of variants.entries()) {
      const execArgv = prof ? ['--cpu-prof', '--cpu-prof-dir', path.join(prof, String(i))] : [];
      children.push(
        await forkChild<{ pid: number }>(path.join(__dirname, 'b1-threads-worker.ts'), [v.kind, stack.server.address, stack.server.namespace, queue(i), stub.url, v.bundle!, requestsFile], v.name, execArgv),
      );
    }
    const graph = compileYaml(reviewLoopYaml(steps / 2));
    const sizes = requestBytes(requests);
    const once = async (i: number) => {
      const pid = children[i].ready.pid;
      const before = threadsOf(pid);
      const t0 = performance.now();
      if (variants[i].kind === 'floor') {
        const handle = await stack.client.workflow.start('floorLoop', { taskQueue: queue(i), workflowId: `b1-threads-floor-${t0}`, args: [{ steps, mode: 'activity-payload', requestBytes: sizes }] });
        await handle.result();
      } else {
        await stack.result(await stack.startTroupe(graph, BENCH_TASK, queue(i)));
      }
      const wallMs = performance.now() - t0;
      // what the worker does after the result (its last completion) lands in this run
      await new Promise((r) => setTimeout(r, 300));
      return { wallMs, threads: spent(before, threadsOf(pid)) };
    };
    for (const i of variants.keys()) await once(i);
    const samples = variants.map(() => [] as Array<Awaited<ReturnType<typeof once>>>);
    for (let r = 0; r < rounds; r++) {
      const order = variants.map((_, k) => (k + r) % variants.length);
      for (const i of order) samples[i].push(await once(i));
      console.error(`round ${r + 1}/${rounds}: ` + variants.map((v, i) => `${v.name} ${round(samples[i].at(-1)!.wallMs / steps)} ms/step`).join(', '));
    }
    const rows = variants.map((v, i) => {
      const pid = children[i].ready.pid;
      // the workflow thread: the busiest thread named `node` other than the main thread, over all runs
      const totals = new Map<number, number>();
      for (const s of samples[i]) for (const [tid, t] of s.threads) if (tid !== pid && t.comm === 'node') totals.set(tid, (totals.get(tid) ?? 0) + t.ns);
      const workflowTid = [...totals].sort((a, b) => b[1] - a[1])[0]?.[0] ?? -1;
      const perRun = samples[i].map((s) => grouped(pid, workflowTid, s.threads));
      const perStep = (k: Group) => median(perRun.map((g) => g[k] / steps));
      const total = median(perRun.map((g) => GROUPS.reduce((a, k) => a + g[k], 0) / steps));
      return { name: v.name, ...Object.fromEntries(GROUPS.map((k) => [k, perStep(k)])), total, wallMsPerStep: median(samples[i].map((s) => s.wallMs / steps)) } as Record<Group | 'total' | 'wallMsPerStep', number> & { name: string };
    });
    const floor = rows[rows.length - 1];
    console.log(`CPU µs per step by thread, median of ${rounds} runs of ${steps} steps (load ${os.loadavg().map((l) => round(l, 1)).join(' ')})\n`);
    console.log(`| worker | ${GROUPS.join(' | ')} | total | ÷ the floor | wall ms/step |`);
    console.log(`|---|${GROUPS.map(() => '---|').join('')}---|---|---|`);
    for (const r of rows) console.log(`| ${r.name} | ${GROUPS.map((k) => round(r[k], 0)).join(' | ')} | ${round(r.total, 0)} | ${round(r.total / floor.total, 3)} | ${round(r.wallMsPerStep, 2)} |`);
    console.log(`\n${JSON.stringify(rows)}`);
  } finally {
    for (const c of children) await c.close(10_000);
    await stack.close();
    await stub.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

void main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
