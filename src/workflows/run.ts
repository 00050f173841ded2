/**
 * The troupe run workflow: the entry, and the one loop that carries out what the round machine
 * (`core/run/step.ts`) says to do next — the start-of-run step, a wave's calls (`waves.ts`), the
 * judge, a wait at the human gate (`human-gate.ts`), continue-as-new — and feeds back what happened,
 * until the machine names the end. Every end, cancellation included, returns a RunResult.
 *
 * The loop is where speed is won (BENCHMARKS.md, B1 and B5): the SDK captures a stack trace for every
 * promise a workflow creates, so the machine decides without any, and a wave of one agent without a
 * round timer (every step of a pipeline or a review loop) is carried out right here by the one
 * dispatch body (`dispatch.ts`), so that such a step costs the workflow one `await`, as a bare
 * activity awaited in a loop does.
 */
import {
  allHandlersFinished,
  CancellationScope,
  condition,
  continueAsNew,
  isCancellation,
  workflowInfo,
} from '@temporalio/workflow';
import { timersMs, readsLines } from '../core/conditions/walk';
import { ENDS } from '../core/ending/decide';
import { buildRunResult, type RunEnd, type RunResult } from '../core/ending/result';
import { RUN_END_TEXTS } from '../core/ending/texts';
import { checkGraph, emptyGraph, joinProblems } from '../core/graph/check-graph';
import { awaitingHumans, keptDecisions, pendingRequests } from '../core/humans/requests';
import { HUMAN_TEXTS } from '../core/humans/texts';
import { preparationOf } from '../core/llm/prepare';
import { step, type Machine } from '../core/run/step';
import type { AgentOutcome, Command, RunEvent } from '../core/run/types';
import { carryState, readCarried } from '../core/state/carry';
import { startClock, stopClock } from '../core/state/clock';
import { createRunState, warn } from '../core/state/state';
import { continuationIssues, continueRunState, readTeamState, sizeProblem, teamStateOf } from '../core/state/team-state';
import { openWave } from './agent-call';
import { AgentDispatch } from './dispatch';
import type { Run } from './execution';
import { diagnosticsOf } from './failures';
import { awaitDecision } from './human-gate';
import { installHandlers } from './handlers';
import type { RunInput } from '../contract';
import { publish, publishEnd, searchAttributesSet, showDetails } from './observe';
import { meterEvent } from './run-metrics';
import { stepProbe } from './probe';
import { localActivities } from './proxies';
import { runSpanEnded } from './spans';
import { dispatchWave, judge, selectSpeaker, WaveTimers } from './waves';

/**
 * Why the worker refuses a start input before anything reads it: a graph that fails its check
 * (`core/graph/check-graph.ts`), or state carried into a run that is not continuing as new (it would
 * skip the start-of-run checks).
 */
function refusedInput(input: RunInput, continued: boolean): RunEnd | undefined {
  if (input.carried !== undefined && !continued) return ENDS.carriedAtStart();
  if (continued) return undefined;
  const wrong = checkGraph(input.graph);
  if (wrong.length > 0) return ENDS.refused(joinProblems(wrong));
  if (input.teamState === undefined) return undefined;
  // a team state is untrusted input, checked as the client checked it (docs/semantics.md, "Teams that go on")
  const read = readTeamState(input.teamState);
  const problems = read.ok ? [sizeProblem(read.state), ...continuationIssues(input.graph, read.state).errors].filter((p): p is string => p !== undefined) : read.problems;
  return problems.length > 0 ? ENDS.refused(joinProblems(problems.map((p) => `teamState: ${p}`))) : undefined;
}

/** A fresh run state; for a run that continues a team, at the team's cursor with its thread and contexts. */
function startState(input: RunInput, graph: RunInput['graph'], workflowId: string, now: number) {
  const state = createRunState(graph, input.task, workflowId, now);
  if (input.teamState) {
    continueRunState(state, graph, input.teamState, input.task);
    for (const w of continuationIssues(graph, input.teamState).warnings) warn(state, w);
  }
  return state;
}

/** The troupe run workflow. */
export async function troupeRun(input: RunInput): Promise<RunResult> {
  const info = workflowInfo();
  const refused = refusedInput(input, info.continuedFromExecutionRunId !== undefined);
  const graph = refused ? emptyGraph(info.workflowType) : input.graph;
  const carried = refused || !input.carried ? undefined : readCarried(input.carried, Date.now());
  const state = carried ?? startState(refused ? { graph, task: input.task } : input, graph, info.workflowId, Date.now());
  if (carried && !state.paused && !awaitingHumans(state)) startClock(state, Date.now());
  const machine: Machine = {
    graph,
    state,
    phase: { at: 'start' },
    wave: {},
    keepLines: readsLines(graph.termination, graph.edges),
    timed: timersMs(graph.termination).length > 0,
  };
  const run: Run = {
    graph,
    state,
    machine,
    inFlight: [],
    signalsSeen: 0,
    root: CancellationScope.current(),
    running: [],
    children: [],
    pendingToolCalls: 0,
    indexed: searchAttributesSet(),
  };
  installHandlers(run);
  publish(run);

  try {
    const end = await loop(run, refused ? { kind: 'refused', end: refused } : { kind: 'begin', carried: carried !== undefined }, input);
    run.end = end.end;
    run.output = end.output;
  } catch (err) {
    if (!(isCancellation(err) && run.root.consideredCancelled)) throw err;
    run.end = ENDS.userAbort();
  }
  stopClock(state, Date.now());
  const unanswered = pendingRequests(state);
  if (unanswered.length > 0) warn(state, RUN_END_TEXTS.unanswered(unanswered.map((r) => r.id)));
  const kept = keptDecisions(state);
  if (kept.length > 0) warn(state, HUMAN_TEXTS.requests.neverOpened(kept.map((k) => ({ requestId: k.requestId, kind: k.decision.kind }))));
  const result = withTeamState(buildRunResult(state, run.end, Date.now(), run.output), run, refused !== undefined);
  publishEnd(run, result);
  runSpanEnded({ graph: graph.name, status: result.status, reason: result.reason });
  return result;
}

/**
 * The RunResult with the run's team state (docs/semantics.md, "Teams that go on"), taken here at the
 * run's end; over its bound, none, and a warning that names its size and largest part. A refused
 * start has none: there is no team to go on with.
 */
function withTeamState(result: RunResult, run: Run, refused: boolean): RunResult {
  const { state, graph } = run;
  if (refused) return result;
  const team = teamStateOf(state, graph, result, workflowInfo().workflowId, run.lastDispatched);
  const tooLarge = sizeProblem(team, undefined, result);
  if (!tooLarge) return { ...result, teamState: team };
  warn(state, tooLarge);
  return { ...result, warnings: state.warnings };
}

/**
 * The one round loop: the machine's next command, carried out, until it is `end`. The wave's timers
 * (when the round has `timeout_ms` conditions) cover its dispatch and its judging.
 */
async function loop(run: Run, first: RunEvent, input: RunInput): Promise<Extract<Command, { kind: 'end' }>> {
  let event = first;
  let timers: WaveTimers | undefined;
  // `troupe rewind`'s probe, in its replay only (`probe.ts`)
  const probe = stepProbe();
  for (;;) {
    meterEvent(run.graph, run.state, event);
    const command = step(run.machine, event, { now: Date.now(), continueAsNewSuggested: workflowInfo().continueAsNewSuggested });
    probe?.stepped(run, event, command);
    if (command.kind !== 'judge') {
      timers?.close();
      timers = undefined;
    }
    switch (command.kind) {
      case 'end':
        return command;
      case 'prepare':
        event = await prepare(run);
        break;
      case 'continue_as_new':
        await continueAsNewWithState(run, input);
        break;
      case 'dispatch': {
        run.lastDispatched = command.items;
        timers = command.timed ? WaveTimers.start(run) : undefined;
        // a team agent goes the wave's way, which takes its share of the budgets first
        if (timers || command.items.length > 1 || run.graph.agents[command.items[0].agent].team) {
          const wave = timers;
          event = wave ? await wave.run(run, () => dispatchWave(run, command.items, command.options)) : await dispatchWave(run, command.items, command.options);
          if (wave?.timedOut) event = { ...event, timedOut: wave.timedOut };
          break;
        }
        // a wave of one agent without a timer: `settleDispatch` (dispatch.ts) written out here, so
        // that the step's one `await` is the agent activity's own (see the module doc)
        const [notes] = openWave(run, command.items, command.options);
        const d = new AgentDispatch(run, command.items[0], notes, command.options);
        const outcomes: AgentOutcome[] = [];
        let failure: RunEnd | undefined;
        try {
          for (let lost = 1; ; lost++) {
            try {
              outcomes.push(d.succeeded(await d.call()));
              break;
            } catch (err) {
              if (!d.again(err, lost)) throw err;
            }
          }
        } catch (err) {
          failure = d.failed(err);
        } finally {
          d.close();
        }
        event = { kind: 'dispatched', outcomes, ...(failure ? { failure } : {}) };
        break;
      }
      case 'judge': {
        const wave = timers;
        const answers = wave ? await wave.run(run, () => judge(run, command.targets)) : await judge(run, command.targets);
        event = { kind: 'judged', answers, ...(wave?.timedOut ? { timedOut: wave.timedOut } : {}) };
        break;
      }
      case 'select':
        event = await selectSpeaker(run, command.turn);
        break;
      case 'wait':
        await awaitDecision(run);
        event = { kind: 'woke' };
        break;
      case 'await_decision':
        await awaitDecision(run, command.requestId);
        event = { kind: 'decided' };
        break;
      default: {
        const never: never = command;
        throw new Error(`loop: unknown command ${JSON.stringify(never)}`);
      }
    }
  }
}

/**
 * The worker's check of the run's own endpoints and key variables, its resolution of the agents'
 * worker tools and its checks of the graph that need Node, before any call (a local activity).
 */
async function prepare(run: Run): Promise<RunEvent> {
  const input = preparationOf(run.graph, run.state.workflowId);
  if (!input) return { kind: 'prepared' };
  try {
    const prepared = await localActivities.prepareRun(input);
    return { kind: 'prepared', ...(prepared.tools ? { tools: prepared.tools } : {}) };
  } catch (err) {
    if (isCancellation(err)) throw err;
    const diagnostics = diagnosticsOf(err);
    return { kind: 'refused', end: ENDS.refused(diagnostics.message, diagnostics) };
  }
}

/** Continue as new between waves (Temporal suggested it), carrying the state in its current schema. */
async function continueAsNewWithState(run: Run, input: RunInput): Promise<never> {
  // the fast path's last call may have ended unpublished; handlers may take a while
  showDetails(run);
  await condition(allHandlersFinished);
  const state = run.state;
  stopClock(state, Date.now());
  state.continuedAsNew += 1;
  return continueAsNew<typeof troupeRun>({ graph: input.graph, task: input.task, carried: carryState(state) });
}
