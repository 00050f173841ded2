/**
 * B2 — history events and bytes per review-loop iteration, from the run's own history: flat in the
 * iteration index (the agent input is bounded: docs/semantics.md, "Agent calls") and compared with the theory (6
 * events per sequential activity step, 12 per writer+critic iteration) and with a naive design that
 * re-sends the whole growing transcript as activity input (computed from the same run's payloads).
 */
import type { Client } from '@temporalio/client';
import {
  activitySteps,
  continuedAsNewRunId,
  eventRows,
  eventTypeCounts,
  iterations,
  serverHistorySizes,
  type History,
  type IterationSlice,
} from './lib/history';
import { reviewLoopYaml, BENCH_TASK } from './lib/loops';
import { measure } from './lib/measure';
import { compileYaml } from './lib/stack';
import { linearFit, mean, round } from './lib/stats';
import type { BenchContext, BenchReport, Table, TargetCheck } from './lib/types';

/** Iterations of the main B2 run (its history is also B5's long history). */
export const B2_ITERATIONS = 200;
/** Iterations of the optional continue-as-new run (`--long`). */
export const B2_LONG_ITERATIONS = 1000;

const MiB = 1024 * 1024;
const LIMITS = { suggestCanBytes: 4 * MiB, warnBytes: 10 * MiB, hardBytes: 50 * MiB, payloadErrorBytes: 2 * 1000 * 1000 };

/** Where a design whose activity input embeds the whole transcript would cross Temporal's limits. */
function naiveProjection(history: History, maxIterations: number) {
  const steps = activitySteps(history).filter((s) => s.activityType === 'callAgent');
  const rows = eventRows(history);
  const measuredPayload = steps.reduce((n, s) => n + s.inputBytes + s.resultBytes, 0);
  const eventOverheadPerStep = (rows.reduce((n, r) => n + r.bytes, 0) - measuredPayload) / steps.length;
  const baseInput = { writer: steps[0].inputBytes, critic: steps[1].inputBytes } as Record<string, number>;
  const resultBytes = mean(steps.map((s) => s.resultBytes));
  let transcript = 0;
  let total = 0;
  const crossed: Record<string, number | undefined> = {};
  const at: Record<number, { bytesPerIteration: number; totalBytes: number }> = {};
  for (let it = 1; it <= maxIterations; it++) {
    let iterationBytes = 0;
    for (const agent of ['writer', 'critic']) {
      const input = baseInput[agent] + transcript;
      if (input > LIMITS.payloadErrorBytes && crossed.payload === undefined) crossed.payload = it;
      iterationBytes += input + resultBytes + eventOverheadPerStep;
      transcript += resultBytes;
    }
    total += iterationBytes;
    at[it] = { bytesPerIteration: iterationBytes, totalBytes: total };
    if (total > LIMITS.suggestCanBytes && crossed.suggestCan === undefined) crossed.suggestCan = it;
    if (total > LIMITS.warnBytes && crossed.warn === undefined) crossed.warn = it;
    if (total > LIMITS.hardBytes && crossed.hard === undefined) crossed.hard = it;
  }
  return { baseInput, resultBytes, eventOverheadPerStep, at, crossed };
}

/** Follows a continue-as-new chain from its first run; returns each run's event count and bytes. */
async function chain(client: Client, workflowId: string, firstRunId: string) {
  const runs: Array<{ runId: string; events: number; bytes: number; startBytes: number; endBytes: number }> = [];
  let runId: string | undefined = firstRunId;
  while (runId) {
    const history: History = await client.workflow.getHandle(workflowId, runId).fetchHistory();
    const rows = eventRows(history);
    runs.push({
      runId,
      events: rows.length,
      bytes: rows.reduce((n, r) => n + r.bytes, 0),
      startBytes: rows[0]?.bytes ?? 0,
      endBytes: rows[rows.length - 1]?.bytes ?? 0,
    });
    runId = continuedAsNewRunId(history);
  }
  return runs;
}

/** Runs B2. */
export async function runB2(ctx: BenchContext): Promise<BenchReport> {
  const stack = ctx.p0;
  ctx.log(`B2 review loop of ${B2_ITERATIONS} iterations`);
  let history: History | undefined;
  const m = await measure(ctx.stub, { server: ctx.pids.server, worker: ctx.pids.worker }, async () => {
    const handle = await stack.startTroupe(compileYaml(reviewLoopYaml(B2_ITERATIONS, 'bench-history')), BENCH_TASK);
    await stack.result(handle);
    history = await handle.fetchHistory();
  });
  const h = history!;
  ctx.shared.set('history200', h);
  ctx.shared.set('steps200', m.stepMs);
  const rows = eventRows(h);
  const counts = eventTypeCounts(rows);
  const slices = iterations(h, 'writer');
  const pick = (i: number): IterationSlice => slices[Math.min(i, slices.length) - 1];
  const early = pick(10);
  const late = pick(190);
  const steady = slices.filter((s) => s.iteration >= 3);
  const bytesFit = linearFit(steady.map((s) => s.iteration), steady.map((s) => s.bytes));
  const eventsAll = new Set(slices.map((s) => s.events));
  const serverSizes = serverHistorySizes(h);
  const serverBytes = serverSizes.length ? serverSizes[serverSizes.length - 1].bytes : Number.NaN;
  const encodedTotal = rows.reduce((n, r) => n + r.bytes, 0);
  const naive = naiveProjection(h, 5000);
  // the one marker a run may hold is its version's (patched(), in its first workflow task: docs/architecture.md)
  const versionMarkers = (h.events ?? []).filter((e) => e.markerRecordedEventAttributes?.markerName === 'core_patch').length;
  const stray = (counts.TIMER_STARTED ?? 0) + (counts.MARKER_RECORDED ?? 0) - versionMarkers + (counts.WORKFLOW_EXECUTION_SIGNALED ?? 0);
  const payloadRatio = (s: IterationSlice) => s.bytes / (s.inputBytes + s.resultBytes);
  const fixedEvents = rows.length - 12 * B2_ITERATIONS;

  const tables: Table[] = [
    {
      title: `Events and bytes per iteration (one run of ${B2_ITERATIONS} writer+critic iterations, ${rows.length} events)`,
      headers: ['measure', 'iteration 10', 'iteration 190', 'all iterations 3–199', 'theory / naive'],
      rows: [
        ['events per iteration', early.events, late.events, [...eventsAll].join(', '), '12 (2 steps × 6)'],
        ['history bytes per iteration', early.bytes, late.bytes, `slope ${round(bytesFit.slope, 2)} B/iteration`, `naive: ${Math.round(naive.at[10].bytesPerIteration)} → ${Math.round(naive.at[190].bytesPerIteration)}`],
        ['activity input bytes per iteration', early.inputBytes, late.inputBytes, '', ''],
        ['activity result bytes per iteration', early.resultBytes, late.resultBytes, '', ''],
        ['bytes / (input + result payload)', round(payloadRatio(early), 3), round(payloadRatio(late), 3), '', '≤ 1.2 (target)'],
      ],
      note: 'Bytes are protobuf-encoded HistoryEvent sizes; payload bytes are the JSON data of the activity input/result.',
    },
    {
      title: 'Whole run',
      headers: ['measure', 'value'],
      rows: [
        ['events', rows.length],
        ['fixed events per run (events − 12 × iterations)', fixedEvents],
        ['event types', Object.entries(counts).map(([k, v]) => `${k} ${v}`).join(', ')],
        ['version markers (patched(), once per run)', versionMarkers],
        ['stray timers / markers / signals (besides the version marker)', stray],
        ['encoded history bytes', encodedTotal],
        ['server-reported history size (last WorkflowTaskStarted)', serverBytes],
        ['iterations until continue-as-new is suggested (4,096 events)', Math.floor((4096 - fixedEvents) / 12)],
        ['iterations until 4 MiB at the measured bytes/iteration', Math.floor(LIMITS.suggestCanBytes / late.bytes)],
      ],
    },
    {
      title: 'Naive design (whole transcript as activity input), projected from this run\'s payloads',
      headers: ['measure', 'troupe (measured)', 'naive (computed)'],
      rows: [
        ['bytes per iteration at 10', early.bytes, Math.round(naive.at[10].bytesPerIteration)],
        ['bytes per iteration at 190', late.bytes, Math.round(naive.at[190].bytesPerIteration)],
        ['history bytes after 200 iterations', encodedTotal, Math.round(naive.at[200].totalBytes)],
        ['iteration where history passes 4 MiB (CAN suggested)', Math.floor(LIMITS.suggestCanBytes / late.bytes), naive.crossed.suggestCan ?? '> 5000'],
        ['iteration where history passes 50 MiB (terminated)', Math.floor(LIMITS.hardBytes / late.bytes), naive.crossed.hard ?? '> 5000'],
        ['iteration where one input passes 2 MB (payload error)', 'never (input capped at 1 MiB)', naive.crossed.payload ?? '> 5000'],
      ],
      note: `Naive step input = this run's first input of that agent + every earlier result (${Math.round(naive.resultBytes)} B each); events add the measured ${Math.round(naive.eventOverheadPerStep)} B of non-payload bytes per step.`,
    },
  ];

  const targets: TargetCheck[] = [
    { target: 'Exactly 12 events per iteration', measured: `${[...eventsAll].join(', ')}`, met: eventsAll.size === 1 && eventsAll.has(12) },
    { target: 'No stray timers, markers or signals (the version marker aside)', measured: `${stray} (version markers: ${versionMarkers})`, met: stray === 0 && versionMarkers <= 1 },
    {
      target: 'Bytes per iteration flat (iteration 190 within 2% of iteration 10)',
      measured: `${early.bytes} → ${late.bytes} B (slope ${round(bytesFit.slope, 2)} B/iteration)`,
      met: Math.abs(late.bytes - early.bytes) <= 0.02 * early.bytes,
    },
    {
      target: 'Bytes per iteration ≤ 1.2 × (input + output payload)',
      measured: `${round(payloadRatio(late), 3)} ×`,
      met: payloadRatio(late) <= 1.2,
    },
  ];

  const data: Record<string, unknown> = {
    iterations: B2_ITERATIONS,
    events: rows.length,
    counts,
    encodedTotal,
    serverBytes,
    iteration10: early,
    iteration190: late,
    bytesFit,
    slices,
    naive: { ...naive, at: { 10: naive.at[10], 190: naive.at[190], 200: naive.at[200], 1000: naive.at[1000] } },
  };

  if (ctx.options.long) {
    ctx.log(`B2 long: ${B2_LONG_ITERATIONS} iterations with continue-as-new`);
    const handle = await stack.startTroupe(compileYaml(reviewLoopYaml(B2_LONG_ITERATIONS, 'bench-can')), BENCH_TASK);
    const result = await stack.result(handle);
    const runs = await chain(stack.client, handle.workflowId, handle.firstExecutionRunId);
    const maxEvents = Math.max(...runs.map((r) => r.events));
    tables.push({
      title: `${B2_LONG_ITERATIONS} iterations with continue-as-new on continueAsNewSuggested`,
      headers: ['run', 'events', 'encoded bytes', 'first event bytes (input, carried state)', 'last event bytes (continue-as-new / result)'],
      rows: runs.map((r, i) => [i + 1, r.events, r.bytes, r.startBytes, r.endBytes]),
      note: `Result: ${result.status}/${result.reason}; ${runs.length - 1} continue-as-new.`,
    });
    targets.push(
      { target: `≤ 3 continue-as-new per 1,000 iterations`, measured: String(runs.length - 1), met: runs.length - 1 <= 3 },
      { target: 'No run reaches 10,240 events', measured: `max ${maxEvents}`, met: maxEvents < 10240 },
    );
    data.long = { runs, result: { status: result.status, reason: result.reason } };
  } else {
    targets.push({ target: '≤ 3 continue-as-new per 1,000 iterations; no run reaches 10,240 events', measured: 'not run (add --long)', met: null });
  }

  return {
    id: 'B2',
    title: 'History events and bytes per iteration',
    method: `One troupe review loop (writer + critic, stub delay 0, ~1 KB replies) of ${B2_ITERATIONS} iterations; its history from handle.fetchHistory() is cut into iterations at each writer ActivityTaskScheduled.`,
    tables,
    targets,
    data,
  };
}
