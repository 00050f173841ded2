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
import { checkGraph, emptyGraph, joinProblems } from '../core/graph/check-graph';
import type { CompiledGraph } from '../core/graph/types';
import { buildRunResult, type RunEnd, type RunResult } from '../core/ending/result';
import { RUN_TEXTS } from '../core/ending/texts';
import { awaitingHumans, keptDecisions, pendingRequests } from '../core/humans/requests';
import { HUMAN_TEXTS } from '../core/humans/texts';
import { preparationOf } from '../core/llm/prepare';
import { migrateCarried, trimForCarry } from '../core/state/carry';
import { startClock, stopClock } from '../core/state/clock';
import { createRunState, warn, type RunState } from '../core/state/state';
import { readsLines } from '../core/conditions/walk';
import type { RecordedResult } from '../core/waves/record';
import { beginWave } from '../core/waves/routing';
import { dispatchAgents, withDeadlines } from './dispatch';
import type { Run } from './execution';
import { diagnosticsOf } from './failures';
import { localActivities } from './proxies';
import { installHandlers } from './messages';
import { runRoundLean } from './lean';
import { judgeWave, recordWave, routeWaveResults } from './processing';
import { endRound } from './round-end';
import { runVersion } from './versions';
import { nextStep } from './waits';
import { publish, publishEnd, searchAttributesSet, showDetails } from './observe';

/** The workflow argument: the compiled graph, the task, and state carried over by continue-as-new. */
export interface RunInput {
  graph: CompiledGraph;
  task: string;
  carried?: RunState;
}

/** Continue-as-new between waves when Temporal suggests it, carrying compact state. */
async function maybeContinueAsNew(run: Run, input: RunInput): Promise<void> {
  if (!workflowInfo().continueAsNewSuggested) return;
  // the lean path's last call may have ended unpublished (lean.ts); handlers may take a while
  showDetails(run);
  await condition(allHandlersFinished);
  const state = run.state;
  stopClock(state, Date.now());
  state.continuedAsNew += 1;
  trimForCarry(state);
  await continueAsNew<typeof troupeRun>({ graph: input.graph, task: input.task, carried: state });
}

/**
 * Run one wave (troupe 0.1's path; 0.2 runs `lean.ts`): dispatch the frontier, record, judge and
 * route its results. The round's `timeout_ms` timers cover the judge calls too (troupe 0.1 timed the
 * agents only).
 */
async function runWave(run: Run): Promise<void> {
  const { state } = run;
  const items = beginWave(state);
  run.wave = {};
  const judge = async (recorded: RecordedResult[]) => {
    if (!run.wave.failure && !run.wave.timedOut && !state.stop) await judgeWave(run, recorded.map((r) => r.agent));
  };
  let recorded: RecordedResult[];
  if (run.version.timerCoversJudge) {
    recorded = await withDeadlines(run, async () => {
      const done = recordWave(run, await dispatchAgents(run, items));
      await judge(done);
      return done;
    });
  } else {
    recorded = recordWave(run, await withDeadlines(run, () => dispatchAgents(run, items)));
    await judge(recorded);
  }
  if (run.wave.failure || run.wave.timedOut) return;
  routeWaveResults(run, recorded);
}

/**
 * The worker's check of the run's own endpoints and key variables, and its resolution of the agents'
 * worker tools, before any call (a local activity; skipped when the role names neither). Returns the
 * end when the worker refuses the run.
 */
async function prepare(run: Run): Promise<RunEnd | undefined> {
  const input = preparationOf(run.graph, run.state.workflowId, run.version.checksGraph);
  if (!input) return undefined;
  try {
    const prepared = await localActivities.prepareRun(input);
    if (prepared.tools) run.state.tools = prepared.tools;
    return undefined;
  } catch (err) {
    if (isCancellation(err)) throw err;
    const diagnostics = diagnosticsOf(err);
    return { status: 'failed', reason: 'fatal_error', reasonText: RUN_TEXTS.prepareFailed(diagnostics.message), diagnostics };
  }
}

/** Run waves until the round's graph stops (troupe 0.1's path; 0.2 runs `runRoundLean`). */
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
    const end = run.version.leanWaves ? await runRoundLean(run, () => maybeContinueAsNew(run, input)) : await runRound(run, input);
    const next = await endRound(run, end);
    if (next.kind === 'end_run') return next.end;
  }
}

/**
 * Why the worker refuses a start input before anything reads it (since troupe 0.3): a graph that fails
 * its check (`core/graph/check-graph.ts`), or state carried into a run that is not continuing as new
 * (it would skip the start-of-run checks).
 */
function refusedInput(input: RunInput, continued: boolean): RunEnd | undefined {
  if (input.carried !== undefined && !continued) return { status: 'failed', reason: 'fatal_error', reasonText: RUN_TEXTS.carriedAtStart };
  if (continued) return undefined;
  const wrong = checkGraph(input.graph);
  return wrong.length > 0 ? { status: 'failed', reason: 'fatal_error', reasonText: RUN_TEXTS.prepareFailed(joinProblems(wrong)) } : undefined;
}

/** The troupe run workflow. */
export async function troupeRun(input: RunInput): Promise<RunResult> {
  const info = workflowInfo();
  const version = runVersion();
  const refused = version.checksGraph ? refusedInput(input, info.continuedFromExecutionRunId !== undefined) : undefined;
  const graph = refused ? emptyGraph(info.workflowType) : input.graph;
  const carried = refused ? undefined : input.carried;
  const state = carried ? migrateCarried(carried, Date.now()) : createRunState(graph, input.task, info.workflowId, Date.now());
  if (carried && !state.paused && !awaitingHumans(state)) startClock(state, Date.now());
  const run: Run = {
    graph,
    state,
    version,
    keepLines: version.regexLines && readsLines(graph.termination, graph.edges),
    inFlight: [],
    wave: {},
    signalsSeen: 0,
    root: CancellationScope.current(),
    running: [],
    pendingToolCalls: 0,
    indexed: version.publishes && searchAttributesSet(),
  };
  installHandlers(run);
  if (!version.publishes) upsertMemo({ troupeStatus: 'running' });
  publish(run);

  try {
    if (refused) run.end = refused;
    else run.end = (run.version.prepareAtStart && !carried ? await prepare(run) : undefined) ?? (await runRounds(run, input));
  } catch (err) {
    if (!(isCancellation(err) && run.root.consideredCancelled)) throw err;
    run.end = { status: 'cancelled', reason: 'user_abort', reasonText: RUN_TEXTS.userAbort() };
  }
  stopClock(state, Date.now());
  const unanswered = pendingRequests(state);
  if (run.version.reportUnanswered && unanswered.length > 0) warn(state, RUN_TEXTS.unanswered(unanswered.map((r) => r.id)));
  const kept = keptDecisions(state);
  if (kept.length > 0) warn(state, HUMAN_TEXTS.requests.neverOpened(kept.map((k) => ({ requestId: k.requestId, kind: k.decision.kind }))));
  const result = buildRunResult(state, run.end, Date.now(), run.output, run.version.reportUnanswered);
  publishEnd(run, result);
  return result;
}
