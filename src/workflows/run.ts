/**
 * The troupe run workflow (SPEC §4.5, §6–§8, §10, §11): rounds of waves over the compiled graph.
 * Routing, termination, checks and budgets are pure core; this file sequences them with timers,
 * signals, human waits and continue-as-new, and always returns a RunResult.
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
import { createGoal, goalFrameworkBlock } from '../core/goals';
import { emptyLedger } from '../core/budgets/ledger';
import { buildRunResult, type RunEnd, type RunResult } from '../core/ending/result';
import {
  addNote,
  entryWave,
  newRound,
  startClock,
  stopClock,
  terminationView,
  trimForCarry,
  type RunState,
} from '../core/state/state';
import { evaluateTermination } from '../core/termination/evaluate';
import type { Run } from './context';
import { gate } from './gate';
import { installHandlers } from './handlers';
import { budgetEnd, graphEnd, processWave, recordResult } from './process';
import { finishRound } from './round-end';
import { TEXTS } from './texts';
import { dispatchWave } from './wave';

/** The workflow argument: the compiled graph, the task, and state carried over by continue-as-new. */
export interface RunInput {
  graph: CompiledGraph;
  task: string;
  carried?: RunState;
}

/** A fresh run state. */
function createRunState(graph: CompiledGraph, task: string, workflowId: string, now: number): RunState {
  const state: RunState = {
    workflowId,
    task,
    round: newRound(1, 0),
    frontier: entryWave(graph, task),
    steps: 0,
    results: {},
    memory: {},
    thread: [],
    threadSeq: 0,
    notes: {},
    broadcast: [],
    usage: emptyLedger(),
    signals: [],
    warnings: [],
    transcript: [],
    goal: graph.goal ? createGoal(graph.goal, now) : undefined,
    pending: [],
    requestCounter: 0,
    held: [],
    decisions: [],
    deferred: [],
    paused: false,
    clock: { accumulatedMs: 0, since: now },
    outputAttempts: {},
    compactionFailures: 0,
    continuedAsNew: 0,
  };
  if (state.goal) {
    const block = goalFrameworkBlock(state.goal);
    for (const [name, agent] of Object.entries(graph.agents)) {
      if (agent.tools.includes('goal')) addNote(state, name, { kind: 'goal_framework', text: block });
    }
  }
  return state;
}

/** Continue-as-new between waves when Temporal suggests it, carrying compact state (§10). */
async function maybeContinueAsNew(run: Run, input: RunInput): Promise<void> {
  if (!workflowInfo().continueAsNewSuggested) return;
  await condition(allHandlersFinished);
  const state = run.state;
  stopClock(state, Date.now());
  state.continuedAsNew += 1;
  trimForCarry(state);
  await continueAsNew<typeof troupeRun>({ graph: input.graph, task: input.task, carried: state });
}

/** Run waves until the round's graph stops. `final` ends are not subject to completion checks. */
async function runRound(run: Run, input: RunInput): Promise<RunEnd> {
  const { state, graph } = run;
  for (;;) {
    const stopped = await gate(run);
    if (stopped) return stopped;
    if (state.frontier.length === 0) return graphEnd(state);
    const pre = evaluateTermination(graph.termination, terminationView(state, Date.now()));
    if (pre) return { status: pre.status, reason: pre.reason, reasonText: pre.reasonText };
    const budget = budgetEnd(state, run, state.frontier.length);
    if (budget) return budget;
    await maybeContinueAsNew(run, input);

    const items = state.frontier;
    state.frontier = state.deferred;
    state.deferred = [];
    state.round.wave += 1;
    state.round.lastWave = items.map((i) => i.agent);
    const outcome = await dispatchWave(run, items);
    if (outcome.kind === 'stopped') {
      for (const o of outcome.outcomes) recordResult(run, o);
      return outcome.end;
    }
    const verdict = await processWave(run, outcome.outcomes);
    if (verdict.kind !== 'continue') return verdict.end;
  }
}

/** Run every round until the run ends. */
async function runAll(run: Run, input: RunInput): Promise<RunEnd> {
  for (;;) {
    const end = await runRound(run, input);
    const next = await finishRound(run, end);
    if (next.kind === 'finish') return next.end;
  }
}

/** The troupe run workflow. */
export async function troupeRun(input: RunInput): Promise<RunResult> {
  const info = workflowInfo();
  const state = input.carried ?? createRunState(input.graph, input.task, info.workflowId, Date.now());
  if (input.carried && !state.paused && state.pending.length === 0) startClock(state, Date.now());
  const run: Run = { graph: input.graph, state, inFlight: [], root: CancellationScope.current() };
  installHandlers(run);
  upsertMemo({ troupeStatus: 'running' });

  try {
    run.end = await runAll(run, input);
  } catch (err) {
    if (!(isCancellation(err) && run.root.consideredCancelled)) throw err;
    run.end = { status: 'cancelled', reason: 'user_abort', reasonText: TEXTS.userAbort() };
  }
  stopClock(state, Date.now());
  const result = buildRunResult(state, run.end, Date.now(), run.output);
  upsertMemo({ troupeStatus: result.status, troupeReason: result.reason });
  return result;
}
