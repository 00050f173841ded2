/**
 * B8 — following runs is cheap: the worker process's CPU for one batch of 100 review loops with and
 * without 100 concurrent followers (`followRun`, as `troupe run` and `troupe status --watch` follow
 * a run), in the same invocation, on the tuned dev server. The followers run in their own process
 * (lib/follower-process.ts), so their client work is metered apart from the worker's. Batches
 * alternate (without, with, without, with, …); each side reports its median, and the ratio is the
 * median over the pairs.
 */
import type { WorkflowHandle } from '@temporalio/client';
import { reviewLoopYaml, BENCH_TASK } from './lib/loops';
import { measure, type Measured } from './lib/measure';
import { startFollowers, type Followers } from './lib/followers';
import type { FollowReport } from './lib/follower-process';
import { compileYaml, SERVER_VARIANTS, type Stack } from './lib/stack';
import { median, round } from './lib/stats';
import type { BenchContext, BenchReport } from './lib/types';

/** Runs per batch, and followers in the followed batches (one per run). */
export const B8_RUNS = 100;
/** Iterations per run (2 model calls each). */
export const B8_ITERATIONS = 3;
/** The target: worker CPU with followers ÷ without (BENCHMARKS.md, B8). */
export const B8_LIMIT = 1.15;

interface Batch {
  followed: boolean;
  m: Measured;
  report?: FollowReport;
}

async function batch(ctx: BenchContext, stack: Stack, followers: Followers | undefined): Promise<Batch> {
  const graph = compileYaml(reviewLoopYaml(B8_ITERATIONS, 'bench-follow'));
  const roles: Record<string, number> = { server: stack.server.pid, worker: ctx.pids.worker, stub: ctx.pids.stub };
  if (followers) roles.followers = followers.pid;
  let report: FollowReport | undefined;
  const m = await measure(ctx.stub, roles, async () => {
    const handles: WorkflowHandle[] = await Promise.all(Array.from({ length: B8_RUNS }, () => stack.startTroupe(graph, BENCH_TASK)));
    const followed = followers?.follow(handles.map((h) => h.workflowId));
    await Promise.all(handles.map((h) => stack.result(h)));
    report = await followed;
  });
  return { followed: followers !== undefined, m, report };
}

/** Runs B8. */
export async function runB8(ctx: BenchContext): Promise<BenchReport> {
  const stack = ctx.variants.tuned ?? ctx.p0;
  const serverName = stack === ctx.p0 ? 'P0' : SERVER_VARIANTS.tuned.label;
  const followers = await startFollowers(stack.server.address, stack.server.namespace);
  // five pairs: a batch lasts seconds, and the box's load moves one batch's CPU by ±20 %
  const reps = Math.max(5, ctx.options.reps);
  const batches: Batch[] = [];
  try {
    ctx.log(`B8 warm-up (${B8_RUNS} runs, followed)`);
    await batch(ctx, stack, followers);
    for (let rep = 0; rep < reps; rep++) {
      for (const f of [undefined, followers]) {
        const b = await batch(ctx, stack, f);
        batches.push(b);
        ctx.log(`B8 rep ${rep + 1} ${f ? 'followed' : 'not followed'}: worker CPU ${round(b.m.cpuMs.worker ?? Number.NaN, 0)} ms, wall ${round(b.m.wallMs, 0)} ms`);
      }
    }
  } finally {
    await followers.close();
  }
  const side = (followed: boolean) => batches.filter((b) => b.followed === followed);
  const med = (bs: Batch[], pick: (b: Batch) => number | undefined) => median(bs.map((b) => pick(b) ?? Number.NaN));
  const steps = B8_RUNS * 2 * B8_ITERATIONS;
  const rowOf = (followed: boolean) => {
    const bs = side(followed);
    return {
      worker: med(bs, (b) => b.m.cpuMs.worker),
      server: med(bs, (b) => b.m.cpuMs.server),
      followers: followed ? med(bs, (b) => b.m.cpuMs.followers) : 0,
      wall: med(bs, (b) => b.m.wallMs),
      requests: med(bs, (b) => b.m.requests),
    };
  };
  const without = rowOf(false);
  const withF = rowOf(true);
  // each followed batch against the batch just before it, which ran under the same load
  const pairs = side(true).map((b, i) => (b.m.cpuMs.worker ?? Number.NaN) / (side(false)[i].m.cpuMs.worker ?? Number.NaN));
  const ratio = median(pairs);
  const reports = side(true).map((b) => b.report!);
  const perRun = (pick: (r: FollowReport) => number) => median(reports.map(pick)) / B8_RUNS;
  const fmt = (x: number, d = 1) => (Number.isFinite(x) ? round(x, d) : '—');
  return {
    id: 'B8',
    title: 'Following runs is cheap (100 followers)',
    method:
      `One batch = ${B8_RUNS} review loops of ${B8_ITERATIONS} iterations (${steps} model calls) started at once on the ${serverName} dev server, stub delay 0 ms. ` +
      `"Followed" batches also have ${B8_RUNS} concurrent followers (src/client/follow.ts followRun, one per run, in a separate process), as \`troupe run\` and \`troupe status --watch\` follow a run. ` +
      `After a followed warm-up batch, ${reps} repetitions alternate not followed / followed; each row is the median, and the ratio is the median of the ${reps} pairs (a followed batch ÷ the batch before it). Worker CPU = this process (the troupe worker, and the client that starts the runs and awaits their results in both cases).`,
    tables: [
      {
        title: 'CPU for one batch (ms, median)',
        headers: ['batch', 'worker process', 'worker CPU per model call', 'server', 'followers process', 'wall ms', 'worker ÷ not followed'],
        rows: [
          ['not followed', fmt(without.worker, 0), fmt(without.worker / steps, 2), fmt(without.server, 0), '—', fmt(without.wall, 0), 1],
          ['followed by 100', fmt(withF.worker, 0), fmt(withF.worker / steps, 2), fmt(withF.server, 0), fmt(withF.followers, 0), fmt(withF.wall, 0), fmt(ratio, 3)],
        ],
        note: `Worker CPU ratio of each pair: ${pairs.map((r) => fmt(r, 3)).join(', ')}.`,
      },
      {
        title: 'What each follower did (per followed run, median of batches)',
        headers: ['progress queries', 'other queries', 'follow Updates', 'step events', 'status events'],
        rows: [
          [
            fmt(perRun((r) => r.queries.progress ?? 0), 2),
            fmt(perRun((r) => Object.entries(r.queries).filter(([k]) => k !== 'progress').reduce((a, [, v]) => a + v, 0)), 2),
            fmt(perRun((r) => r.updates?.follow ?? 0), 2),
            fmt(perRun((r) => r.events.step), 2),
            fmt(perRun((r) => r.events.status), 2),
          ],
        ],
        note: `Queries by name over all followed batches: ${JSON.stringify(reports.map((r) => r.queries))}; failed follows: ${reports.map((r) => r.failed).join(', ')}.`,
      },
    ],
    targets: [{ target: 'following 100 runs raises worker CPU by ≤ 15 % (ratio ≤ 1.15)', measured: `${fmt(ratio, 3)}`, met: ratio <= B8_LIMIT }],
    data: { server: serverName, runs: B8_RUNS, iterations: B8_ITERATIONS, without, with: withF, ratio, pairs, batches: batches.map((b) => ({ followed: b.followed, wallMs: b.m.wallMs, cpuMs: b.m.cpuMs, requests: b.m.requests, report: b.report })) },
  };
}
