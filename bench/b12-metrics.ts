/**
 * B12 — what `--metrics` adds to a model call: `chatCompletion` (a real HTTP request to the bench
 * stub, zero delay, ~1 KB reply) with troupe's model-call metrics recorded through the runtime's
 * Prometheus exporter, against the same call with the SDK's no-op meter (a worker without
 * `--metrics`), in alternating blocks in one process (bench/b12-metrics-child.ts: the runtime is one
 * per process, so it is not this one). Reported as the ratio of the medians, and the difference in µs.
 */
import { spawn } from 'node:child_process';
import * as path from 'node:path';
import { freePort } from '../src/dev/temporal-server';
import { median, round } from './lib/stats';
import type { BenchContext, BenchReport } from './lib/types';

/** Alternating blocks of each mode, and calls per block. */
export const B12_BLOCKS = 20;
export const B12_PER_BLOCK = 100;

export async function runB12(ctx: BenchContext): Promise<BenchReport> {
  await ctx.stub.configure(0, 1000);
  const address = `127.0.0.1:${await freePort()}`;
  const child = path.join(__dirname, 'b12-metrics-child.ts');
  const tsx = require.resolve('tsx/cli');
  const out = await new Promise<string>((resolve, reject) => {
    const p = spawn(process.execPath, [tsx, child, ctx.stub.url, address, String(B12_BLOCKS), String(B12_PER_BLOCK)], {
      env: { ...process.env, TROUPE_STREAM: 'off' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (d) => (stdout += d));
    p.stderr.on('data', (d) => (stderr += d));
    p.on('exit', (code) => (code === 0 ? resolve(stdout) : reject(new Error(`B12 child exited ${code}: ${stderr}`))));
  });
  const { on, off, counted } = JSON.parse(out.trim().split('\n').at(-1)!) as { on: number[]; off: number[]; counted: number };
  const onUs = median(on);
  const offUs = median(off);
  const ratio = onUs / offUs;
  ctx.log(`B12 per model call: metrics on ${round(onUs, 1)} µs, off ${round(offUs, 1)} µs, ${round(ratio, 3)} ×; ${counted} requests counted`);
  return {
    id: 'B12',
    title: 'B12 — A model call with --metrics',
    method: `chatCompletion against the bench stub (zero delay, ~1 KB reply, not streamed), ${B12_BLOCKS} alternating blocks of ${B12_PER_BLOCK} calls per mode, one process with the runtime's Prometheus exporter installed; metrics on: the runtime's meter, off: the SDK's no-op meter`,
    tables: [
      {
        title: 'Per model call (median of block means)',
        headers: ['metrics', 'µs per call', '× off'],
        rows: [
          ['off (no-op meter)', round(offUs, 1), 1],
          ['on (Prometheus)', round(onUs, 1), round(ratio, 3)],
        ],
      },
    ],
    targets: [{ target: 'B12 model call with metrics on ÷ off ≤ 1.05 ×', measured: `${round(ratio, 3)} × (${round(onUs - offUs, 1)} µs)`, met: ratio <= 1.05 }],
    // every call made with the runtime's meter is counted: the blocks and half the warm-up
    data: { on, off, onUs, offUs, ratio, counted, expectedCounted: B12_BLOCKS * B12_PER_BLOCK + 25 },
  };
}
