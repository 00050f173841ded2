/**
 * B15 — continuing a run (docs/semantics.md, "Teams that go on"). (1) What a continuation costs
 * before its first model call, against starting a fresh run with the same thread passed as its task:
 * the continued start reads the source's RunResult, checks its team state and starts the run with
 * it in its input; the workflow checks it again and seeds its state. Same run, same server and
 * worker, alternating pairs; wall time from the client's start to the stub's first request. (2) The
 * team state of a 200-message thread, with short and with long replies: its bytes against the 1 MiB
 * bound (or the refusal, naming its size).
 */
import { defineRole } from '../src/core/config/define';
import type { RunResult } from '../src/core/ending/result';
import { PROMPT_TEXTS } from '../src/core/prompts/build';
import { TEAM_STATE_MAX_BYTES, teamStateSize } from '../src/core/state/team-state';
import { BENCH_TASK } from './lib/loops';
import type { Stack } from './lib/stack';
import { median, round } from './lib/stats';
import type { BenchContext, BenchReport, TargetCheck } from './lib/types';

/** Messages of the source run whose thread is continued (and passed as a task). */
const B15_SOURCE_MESSAGES = 30;
/** Messages of the long thread whose team state is measured. */
const B15_LONG_MESSAGES = 200;
/** Reply lengths of the long thread: the stub's default and a long reply. */
const B15_REPLY_CHARS = [1000, 32 * 1024];

/** A round-robin of three that ends after `messages` messages. */
function panel(messages: number) {
  return defineRole({
    name: 'bench-panel',
    agents: { alice: { instructions: 'Propose.' }, bob: { instructions: 'Challenge.' }, carol: { instructions: 'Summarize.' } },
    collaboration: { topology: 'round-robin', agents: ['alice', 'bob', 'carol'], termination: { any_of: [{ max_messages: messages }] } },
  }).graph;
}

/** A team state's thread as one task text, as a user would paste it. */
function threadAsTask(result: RunResult): string {
  return result.teamState!.thread.map((e) => `${PROMPT_TEXTS.threadEntry(e.agent, false)}\n${e.text}`).join('\n\n');
}

/** One start: wall time from `start()` to the stub's first request after it, and to the client's start returning; the run's result. */
async function toFirstCall(ctx: BenchContext, start: () => Promise<{ result(): Promise<unknown> }>): Promise<{ ms: number; clientMs: number; result: RunResult }> {
  await ctx.stub.reset();
  const started = Date.now();
  const handle = await start();
  const clientMs = Date.now() - started;
  const result = (await handle.result()) as RunResult;
  if (result.status === 'failed') throw new Error(`B15: ${result.reasonText}`);
  const [first] = await ctx.stub.arrivals();
  if (first === undefined) throw new Error('B15: no model call');
  return { ms: first - started, clientMs, result };
}

/** Runs B15. */
export async function runB15(ctx: BenchContext): Promise<BenchReport> {
  const stack: Stack = ctx.variants.tuned ?? ctx.p0;
  const reps = Math.max(7, ctx.options.reps);
  await ctx.stub.configure(0);
  const source = (await (await stack.startTroupe(panel(B15_SOURCE_MESSAGES), BENCH_TASK)).result()) as RunResult;
  const one = panel(1);
  // each continuation continues the last one (a chain, as a chat goes on), so its id `<thread>/<n>` is free at once;
  // the fresh run gets the thread the continuation goes on from, written out as its task
  let last = source;
  const continued: number[] = [];
  const fresh: number[] = [];
  const clientMs: { continued: number[]; fresh: number[] } = { continued: [], fresh: [] };
  const once = async (kind: 'continued' | 'fresh') => {
    const run = await toFirstCall(ctx, () => (kind === 'continued' ? stack.continueTroupe(one, 'go on', last.teamState!.source.runId) : stack.startTroupe(one, threadAsTask(last))));
    (kind === 'continued' ? continued : fresh).push(run.ms);
    clientMs[kind].push(run.clientMs);
    if (kind === 'continued') last = run.result;
  };
  await once('fresh');
  await once('continued');
  continued.length = 0;
  fresh.length = 0;
  for (let i = 0; i < reps; i++) {
    if (i % 2 === 0) {
      await once('fresh');
      await once('continued');
    } else {
      await once('continued');
      await once('fresh');
    }
    ctx.log(`B15 pair ${i + 1}/${reps}: continued ${round(continued.at(-1)!, 1)} ms, fresh ${round(fresh.at(-1)!, 1)} ms`);
  }
  const wall = { continued: median(continued), fresh: median(fresh) };
  const ratio = wall.continued / wall.fresh;
  const pairRatios = continued.map((c, i) => round(c / fresh[i], 3));
  const client = { continued: median(clientMs.continued), fresh: median(clientMs.fresh) };

  const long: Array<{ replyChars: number; bytes?: number; largest?: string; warning?: string; threadEntries?: number; resultBytes: number }> = [];
  for (const replyChars of B15_REPLY_CHARS) {
    await ctx.stub.configure(0, replyChars);
    const r = (await (await stack.startTroupe(panel(B15_LONG_MESSAGES), BENCH_TASK)).result()) as RunResult;
    if (r.steps !== B15_LONG_MESSAGES) throw new Error(`B15: the long run took ${r.steps} steps`);
    const resultBytes = Buffer.byteLength(JSON.stringify(r));
    if (r.teamState) {
      const size = teamStateSize(r.teamState);
      long.push({ replyChars, bytes: size.bytes, largest: `${size.largest.part} (${size.largest.bytes} B)`, threadEntries: r.teamState.thread.length, resultBytes });
    } else {
      long.push({ replyChars, warning: r.warnings.find((w) => w.startsWith('the team state takes')), resultBytes });
    }
    ctx.log(`B15 ${B15_LONG_MESSAGES} messages of ${replyChars} chars: ${JSON.stringify(long.at(-1))}`);
  }
  await ctx.stub.configure(0);

  const withinOrRefused = long.every((l) => (l.bytes !== undefined ? l.bytes <= TEAM_STATE_MAX_BYTES : l.warning !== undefined));
  const targets: TargetCheck[] = [
    {
      target: '(B15) continuing a run ≤ 1.1 × a fresh run with the same thread as its task, start → first model call',
      measured: `${round(wall.continued, 1)} ms vs ${round(wall.fresh, 1)} ms (×${round(ratio, 3)}; pairs ${pairRatios.join(', ')})`,
      met: ratio <= 1.1,
    },
    {
      target: `(B15) the team state of a ${B15_LONG_MESSAGES}-message thread within ${TEAM_STATE_MAX_BYTES / 1024} KiB, or refused with its size`,
      measured: long.map((l) => `${l.replyChars}-char replies: ${l.bytes !== undefined ? `${l.bytes} B` : l.warning}`).join('; '),
      met: withinOrRefused,
    },
  ];
  return {
    id: 'B15',
    title: 'Continuing a run, and the team state of a long thread',
    method:
      `A round-robin of three ends after ${B15_SOURCE_MESSAGES} messages; its team state (the last 8 thread entries after the task, each agent's context, the cursor) is continued by a run of one message, each continuation continuing the one before (a chain), ` +
      `against a fresh run of one message whose task is the same thread written out. One of each to warm up, then ${reps} pairs, alternating which goes first, on the same server and worker; ` +
      `wall time from the client's start call (for the continuation: reading the source's RunResult and checking its state included) to the stub's first request. ` +
      `Then a round-robin of ${B15_LONG_MESSAGES} messages with ${B15_REPLY_CHARS.join(' and ')}-character replies: its RunResult's team state in bytes (encoded JSON), or the warning of a state over its bound.`,
    tables: [
      {
        title: 'Start → first model call, median',
        headers: ['variant', 'start → first model call, ms', 'start call returned, ms'],
        rows: [
          ['continued (--continue)', round(wall.continued, 1), round(client.continued, 1)],
          ['fresh, thread as task', round(wall.fresh, 1), round(client.fresh, 1)],
          ['ratio', round(ratio, 3), round(client.continued / client.fresh, 3)],
        ],
        note: `Pair ratios: ${pairRatios.join(', ')}.`,
      },
      {
        title: `Team state of a ${B15_LONG_MESSAGES}-message thread`,
        headers: ['reply chars', 'team state bytes', 'largest part', 'thread entries', 'RunResult bytes'],
        rows: long.map((l) => [l.replyChars, l.bytes ?? l.warning ?? '', l.largest ?? '', l.threadEntries ?? '', l.resultBytes]),
      },
    ],
    targets,
    data: { continued, fresh, wall, ratio, pairRatios, clientMs, client, long },
  };
}
