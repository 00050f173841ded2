/**
 * B9 — a nested team's overhead (docs/teams.md, "Nested teams"): a troupe parent whose one agent is a
 * team (a pipeline of K agents) runs that team as a child workflow. Beside it, in the same run and
 * alternating with it, a bare parent (bench/floor, `floorNested`) starts the same troupe run of the
 * team as its one child workflow, so both run the same activities and the difference is what the
 * troupe parent adds: its start-of-run work, its dispatch of the team agent, recording the team's
 * result and its end. Wall time from start to result; history events of parent and child.
 */
import { defineRole } from '../src/core/config/define';
import type { History } from './lib/history';
import { BENCH_TASK } from './lib/loops';
import type { Stack } from './lib/stack';
import { median, round } from './lib/stats';
import type { BenchContext, BenchReport, TargetCheck } from './lib/types';

/** Agents of the team's pipeline (the targets are read on it). */
export const B9_TEAM_AGENTS = 8;
/** A team of one agent, beside it: the parent's fixed cost is then the largest share. */
const B9_SMALL_TEAM = 1;

/** The team (a pipeline of `k` agents) and the parent whose one agent is that team. */
function roles(k: number) {
  const names = Array.from({ length: k }, (_, i) => `step${i + 1}`);
  const team = defineRole({
    name: 'bench-team',
    agents: Object.fromEntries(names.map((n) => [n, { instructions: `Do part ${n} of the work.` }])),
    collaboration: { topology: 'pipeline', agents: names },
  });
  const parent = defineRole({
    name: 'bench-nested',
    agents: { team: { description: 'Does the work as a team.', team } },
    collaboration: { topology: 'pipeline', agents: ['team'] },
  });
  return { team: team.graph, parent: parent.graph };
}

interface Sample {
  wallMs: number;
  parentEvents: number;
  childEvents: number;
}

async function events(stack: Stack, workflowId: string): Promise<number> {
  const history: History = await stack.client.workflow.getHandle(workflowId).fetchHistory();
  return history.events?.length ?? 0;
}

/** Medians of `reps` alternating pairs (after one of each to warm up) for a team of `k` agents. */
async function measurePairs(ctx: BenchContext, stack: Stack, k: number, reps: number) {
  const { team, parent } = roles(k);
  const nested: Sample[] = [];
  const bare: Sample[] = [];
  const once = async (kind: 'nested' | 'bare'): Promise<void> => {
    const started = Date.now();
    const handle = kind === 'nested' ? await stack.startTroupe(parent, BENCH_TASK) : await stack.startFloorNested(team, BENCH_TASK);
    const result = (await handle.result()) as { status?: string; usage?: { agentCalls: number } };
    const wallMs = Date.now() - started;
    // troupe's child holds the parent's run id (docs/teams.md, "Nested teams"); the floor's does not
    const childId = kind === 'nested' ? `${handle.workflowId}/${handle.firstExecutionRunId}/team-1` : `${handle.workflowId}/team-1`;
    const agentCalls = result.usage?.agentCalls;
    if (result.status !== 'completed' || agentCalls !== k) throw new Error(`B9 ${kind}: ${JSON.stringify({ status: result.status, agentCalls })}`);
    (kind === 'nested' ? nested : bare).push({ wallMs, parentEvents: await events(stack, handle.workflowId), childEvents: await events(stack, childId) });
  };
  // one of each to warm up, then alternating pairs
  await once('bare');
  await once('nested');
  nested.length = 0;
  bare.length = 0;
  for (let i = 0; i < reps; i++) {
    if (i % 2 === 0) {
      await once('bare');
      await once('nested');
    } else {
      await once('nested');
      await once('bare');
    }
    ctx.log(`B9 K=${k} pair ${i + 1}/${reps}: nested ${nested.at(-1)!.wallMs} ms, bare ${bare.at(-1)!.wallMs} ms`);
  }
  const wall = { nested: median(nested.map((s) => s.wallMs)), bare: median(bare.map((s) => s.wallMs)) };
  const pairRatios = nested.map((s, i) => round(s.wallMs / bare[i].wallMs, 3));
  const total = (s: Sample) => s.parentEvents + s.childEvents;
  const ev = { nested: median(nested.map(total)), bare: median(bare.map(total)) };
  const parentEv = { nested: median(nested.map((s) => s.parentEvents)), bare: median(bare.map((s) => s.parentEvents)) };
  const childEv = { nested: median(nested.map((s) => s.childEvents)), bare: median(bare.map((s) => s.childEvents)) };
  return { k, wall, pairRatios, ev, parentEv, childEv, nested, bare, wallRatio: wall.nested / wall.bare, eventRatio: ev.nested / ev.bare };
}

/** Runs B9. */
export async function runB9(ctx: BenchContext): Promise<BenchReport> {
  const stack: Stack = ctx.variants.tuned ?? ctx.p0;
  const reps = Math.max(3, ctx.options.reps);
  const main = await measurePairs(ctx, stack, B9_TEAM_AGENTS, reps);
  const small = await measurePairs(ctx, stack, B9_SMALL_TEAM, reps);
  const { wall, pairRatios, ev, wallRatio, eventRatio } = main;
  const rowsOf = (m: typeof main) => [
    [`K = ${m.k}: nested team (troupe parent)`, m.wall.nested, m.parentEv.nested, m.childEv.nested, m.ev.nested],
    [`K = ${m.k}: bare parent, same child`, m.wall.bare, m.parentEv.bare, m.childEv.bare, m.ev.bare],
    [`K = ${m.k}: ratio`, round(m.wallRatio, 3), round(m.parentEv.nested / m.parentEv.bare, 3), round(m.childEv.nested / m.childEv.bare, 3), round(m.eventRatio, 3)],
  ];
  const targets: TargetCheck[] = [
    { target: '(B9) a nested team\'s wall time ≤ 1.2 × the bare parent\'s with the same child', measured: `${wall.nested} ms vs ${wall.bare} ms (×${round(wallRatio, 3)}; pairs ${pairRatios.join(', ')})`, met: wallRatio <= 1.2 },
    { target: '(B9) history events, parent + child ≤ 1.2 × the bare parent\'s', measured: `${ev.nested} vs ${ev.bare} (×${round(eventRatio, 3)})`, met: eventRatio <= 1.2 },
  ];
  return {
    id: 'B9',
    title: 'A nested team over a bare parent with the same child workflow',
    method:
      `A troupe parent whose one agent is a team: a pipeline of K = ${B9_TEAM_AGENTS} agents (and K = ${B9_SMALL_TEAM}), run as a child workflow (\`<parent id>/<parent run id>/team-1\`). ` +
      `Same run, on the same server and workers: the floor's bare parent (\`floorNested\`, bench/floor) starts the same troupe run of the team as its one child workflow and returns its result. ` +
      `One of each to warm up, then ${reps} pairs, alternating which goes first; wall time from the client's start to its result; events of the parent's and the child's histories.`,
    tables: [
      {
        title: 'Median per run',
        headers: ['variant', 'wall ms', 'parent events', 'child events', 'events, parent + child'],
        rows: [...rowsOf(main), ...rowsOf(small)],
        note: `Wall-time ratios of the pairs: K = ${main.k}: ${main.pairRatios.join(', ')}; K = ${small.k}: ${small.pairRatios.join(', ')}. The targets are read on K = ${main.k}.`,
      },
    ],
    targets,
    data: { main, small },
  };
}
