/**
 * The troupe run workflow: the entry and the round loop. A run is rounds of waves over the compiled
 * graph (docs/semantics.md). Between waves one pure decision (`core/ending/decide.ts`) says what
 * happens next; this file carries it out with the phases beside it: waiting (`waits.ts`), dispatching
 * (`dispatch.ts`), processing (`processing.ts`) and ending a round (`round-end.ts`). Every end,
 * cancellation included, returns a RunResult.
 */
import {
  allHandlersFinished,
  CancellationScope,
  condition,
  continueAsNew,
  isCancellation,
  upsertMemo,
  workflowInfo,
} from '@temporalio/workflow';
import type { CompiledGraph } from '../core/graph/types';
import { buildRunResult, type RunEnd, type RunResult } from '../core/ending/result';
import { RUN_TEXTS } from '../core/ending/texts';
import { awaitingHumans } from '../core/humans/requests';
import { migrateCarried, trimForCarry } from '../core/state/carry';
import { startClock, stopClock } from '../core/state/clock';
import { createRunState, type RunState } from '../core/state/state';
import { dispatchAgents, withDeadlines } from './dispatch';
import type { Run } from './execution';
import { installHandlers } from './messages';
import { judgeWave, recordWave, routeWaveResults } from './processing';
import { endRound } from './round-end';
import { runVersion } from './versions';
import { nextStep } from './waits';

/** The workflow argument: the compiled graph, the task, and state carried over by continue-as-new. */
export interface RunInput {
  graph: CompiledGraph;
  task: string;
  carried?: RunState;
}

/** Continue-as-new between waves when Temporal suggests it, carrying compact state. */
async function maybeContinueAsNew(run: Run, input: RunInput): Promise<void> {
  if (!workflowInfo().continueAsNewSuggested) return;
  await condition(allHandlersFinished);
  const state = run.state;
  stopClock(state, Date.now());
  state.continuedAsNew += 1;
  trimForCarry(state);
  await continueAsNew<typeof troupeRun>({ graph: input.graph, task: input.task, carried: state });
}

/** Run one wave: dispatch the frontier, record, judge and route its results. */
async function runWave(run: Run): Promise<void> {
  const { state } = run;
  const items = state.frontier;
  state.frontier = state.deferred;
  state.deferred = [];
  state.round.wave += 1;
  state.round.lastWave = items.map((i) => i.agent);
  run.wave = {};
  const outcomes = await withDeadlines(run, () => dispatchAgents(run, items));
  const recorded = recordWave(run, outcomes);
  if (run.wave.failure || run.wave.timedOut) return;
  if (!state.stop) await judgeWave(run, recorded.map((r) => r.agent));
  routeWaveResults(run, recorded);
}

/** Run waves until the round's graph stops. */
async function runRound(run: Run, input: RunInput): Promise<RunEnd> {
  for (;;) {
    const before = await nextStep(run, 'before_wave');
    if (before.kind !== 'run_wave') return before.end;
    await maybeContinueAsNew(run, input);
    await runWave(run);
    const after = await nextStep(run, 'after_wave');
    if (after.kind !== 'run_wave') return after.end;
  }
}

/** Run every round until the run ends. */
async function runRounds(run: Run, input: RunInput): Promise<RunEnd> {
  for (;;) {
    const end = await runRound(run, input);
    const next = await endRound(run, end);
    if (next.kind === 'end_run') return next.end;
  }
}

/** The troupe run workflow. */
export async function troupeRun(input: RunInput): Promise<RunResult> {
  const info = workflowInfo();
  const state = input.carried ? migrateCarried(input.carried, Date.now()) : createRunState(input.graph, input.task, info.workflowId, Date.now());
  if (input.carried && !state.paused && !awaitingHumans(state)) startClock(state, Date.now());
  const run: Run = {
    graph: input.graph,
    state,
    version: runVersion(),
    inFlight: [],
    wave: {},
    signalsSeen: 0,
    root: CancellationScope.current(),
  };
  installHandlers(run);
  upsertMemo({ troupeStatus: 'running' });

  try {
    run.end = await runRounds(run, input);
  } catch (err) {
    if (!(isCancellation(err) && run.root.consideredCancelled)) throw err;
    run.end = { status: 'cancelled', reason: 'user_abort', reasonText: RUN_TEXTS.userAbort() };
  }
  stopClock(state, Date.now());
  const result = buildRunResult(state, run.end, Date.now(), run.output);
  upsertMemo({ troupeStatus: result.status, troupeReason: result.reason });
  return result;
}
