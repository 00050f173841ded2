/**
 * B14 — worker memory under replies without end (docs/semantics.md, "Bounds on hostile input"): a
 * troupe worker alone in a child process (lib/worker-process.ts, createWorker from the prebuilt
 * bundle) runs one wave of 8 agents, each with `timeout_ms: 120000` (what the examples set for slow
 * local models), against an endpoint that streams 64 KiB content chunks to every request without end
 * (the test stub's `endless` reply, in this process). Measured: the worker's resident memory (VmRSS
 * sampled every 100 ms, and the kernel's peak VmHWM), how long until the run ended or the worker
 * died, and how the run ended. With the reply caps each call fails at its 16 MiB cap; without them
 * each call holds its reply until the heap runs out.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { startStubLlm } from '../test/helpers/stub-llm';
import { forkChild } from './lib/child';
import { memoryMiB } from './lib/proc';
import { compileYaml } from './lib/stack';
import { round } from './lib/stats';
import type { BenchContext, BenchReport } from './lib/types';
import type { WorkerReady } from './lib/worker-process';

/** Agents of the one wave, each with its endless reply. */
export const B14_AGENTS = 8;
/** Each agent's `timeout_ms`. */
export const B14_TIMEOUT_MS = 120_000;
/** How long B14 waits for the run to end or the worker to die (past it the run is terminated). */
export const B14_WAIT_MS = 150_000;
/** Target: the worker lives, and its peak RSS stays under this (MiB). */
export const B14_LIMIT_MIB = 1024;

/** The star of {@link B14_AGENTS} agents. */
function endlessRole(): string {
  const names = Array.from({ length: B14_AGENTS }, (_, i) => `agent${i + 1}`);
  return `
name: bench-endless
model: { name: stub-model, timeout_ms: ${B14_TIMEOUT_MS} }
agents:
${names.map((n) => `  ${n}: { instructions: "Answer part ${n} of the task." }`).join('\n')}
collaboration:
  topology: star
  agents: [${names.join(', ')}]
`;
}

/** How the measured run ended. */
interface Outcome {
  /** `run <status>/<reason>`, `worker died (<signal or code>)`, or `still running after …`. */
  end: string;
  workerDied: boolean;
  elapsedMs: number;
}

export async function runB14(ctx: BenchContext): Promise<BenchReport> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'troupe-bench-b14-'));
  const bundleFile = path.join(dir, 'troupe.json');
  fs.writeFileSync(bundleFile, JSON.stringify({ code: ctx.bundles.troupe.code, sourceMap: ctx.bundles.troupe.sourceMap }));
  const stub = await startStubLlm();
  stub.respond(() => ({ endless: { shape: 'stream' } }));
  const taskQueue = `bench-endless-${process.pid}`;
  const { server } = ctx.p0;
  const child = await forkChild<WorkerReady>(
    path.join(__dirname, 'lib', 'worker-process.ts'),
    ['troupe', server.address, server.namespace, taskQueue, stub.url, bundleFile],
    'B14 worker',
  );
  const pid = child.ready.pid;
  const exited = new Promise<string>((resolve) => child.process.once('exit', (code, signal) => resolve(signal ?? `exit code ${code}`)));
  const empty = memoryMiB(pid).rss ?? Number.NaN;
  const samples: Array<{ atMs: number; rssMiB: number }> = [];
  let peakMiB = empty;
  const t0 = performance.now();
  const sampler = setInterval(() => {
    const m = memoryMiB(pid);
    if (m.rss !== undefined) samples.push({ atMs: Math.round(performance.now() - t0), rssMiB: round(m.rss) });
    if (m.peak !== undefined) peakMiB = Math.max(peakMiB, m.peak);
  }, 100);
  let outcome: Outcome;
  const handle = await ctx.p0.startTroupe(compileYaml(endlessRole()), 'answer every part', taskQueue);
  try {
    const ended = await Promise.race([
      ctx.p0.result(handle).then((r) => ({ end: `run ${r.status}/${r.reason}`, workerDied: false })),
      exited.then((how) => ({ end: `worker died (${how})`, workerDied: true })),
      new Promise<{ end: string; workerDied: boolean }>((resolve) => setTimeout(() => resolve({ end: `still running after ${B14_WAIT_MS / 1000} s`, workerDied: false }), B14_WAIT_MS).unref()),
    ]);
    outcome = { ...ended, elapsedMs: performance.now() - t0 };
  } finally {
    clearInterval(sampler);
    const m = memoryMiB(pid);
    if (m.peak !== undefined) peakMiB = Math.max(peakMiB, m.peak);
    await handle.terminate('B14 done').catch(() => undefined);
    await child.close(5000).catch(() => undefined);
    await stub.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
  const requests = stub.requests;
  const writtenMiB = requests.reduce((n, r) => n + r.bytesWritten, 0) / 1024 / 1024;
  const maxSampled = samples.reduce((m, s) => Math.max(m, s.rssMiB), empty);
  ctx.log(`B14: ${outcome.end} after ${round(outcome.elapsedMs / 1000, 1)} s; worker RSS ${round(empty)} MiB idle, peak ${round(peakMiB)} MiB; ${requests.length} requests, ${round(writtenMiB)} MiB sent`);
  const met = !outcome.workerDied && outcome.end.startsWith('run ') && peakMiB <= B14_LIMIT_MIB;
  return {
    id: 'B14',
    title: 'B14 — Replies without end',
    method:
      `One troupe worker alone in a child process (createWorker from the prebuilt bundle, default heap) on the P0 dev server; one run of a star of ${B14_AGENTS} agents, ` +
      `each with timeout_ms ${B14_TIMEOUT_MS}, against the test stub answering every request with server-sent events of 64 KiB of content without end (no [DONE]), ` +
      `written as fast as the worker reads. The worker's VmRSS sampled every 100 ms and its VmHWM (peak) read from /proc until the run ended, the worker died, or ${B14_WAIT_MS / 1000} s passed.`,
    tables: [
      {
        title: 'Worker memory with 8 replies without end',
        headers: ['how it ended', 'after (s)', 'idle RSS (MiB)', 'peak RSS (MiB)', 'requests', 'sent by the endpoint (MiB)'],
        rows: [[outcome.end, round(outcome.elapsedMs / 1000, 1), round(empty), round(peakMiB), requests.length, round(writtenMiB)]],
      },
    ],
    targets: [{ target: `${B14_AGENTS} replies without end at once: the run ends, the worker lives, its peak RSS ≤ ${B14_LIMIT_MIB} MiB`, measured: `${outcome.end}, peak ${round(peakMiB)} MiB`, met }],
    data: { outcome, emptyMiB: empty, peakMiB, maxSampledMiB: maxSampled, samples, requests: requests.length, writtenMiB },
  };
}
