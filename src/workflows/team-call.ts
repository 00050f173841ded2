/**
 * A team agent's dispatch (docs/teams.md, "Nested teams"): the child role runs as a Temporal child
 * workflow (`troupeRun`, id `<parent id>/<parent run id>/<agent>-<n>`, on the parent's task queue),
 * with the agent's input as its task and its share of the parent's remaining budgets as its caps.
 * The run id is the one on the parent's start event, which a reset keeps, so the children a reset
 * run replays have their recorded ids; an id a run already holds (the reset's base run's child, or a
 * run someone started there by hand) is skipped for the next `n`. Cancelling the dispatch's scope
 * (the run cancelled, a sibling failed, a round timer) cancels the child; the parent close policy
 * cancels it should the parent end first. What its RunResult means is decided in the core
 * (`core/teams/team-run.ts`).
 */
import { WorkflowExecutionAlreadyStartedError, WorkflowIdReusePolicy } from '@temporalio/common';
import { CancellationScope, CancelledFailure, ParentClosePolicy, startChild, workflowInfo, type ChildWorkflowHandle, type Workflow } from '@temporalio/workflow';
import { recordTeamRun } from '../core/budgets/ledger';
import type { RunEnd, RunResult } from '../core/ending/result';
import type { CompiledBudget } from '../core/graph/types';
import type { AgentCallResult } from '../core/llm/contract';
import { staticDetails, staticSummary } from '../core/observe/details';
import { RUNNING_STATUS } from '../core/observe/search';
import { SUMMARY_TEXTS } from '../core/observe/summaries';
import { childGraph, childWorkflowId, teamOutcome, teamTask } from '../core/teams/team-run';
import type { PromptNote } from '../core/prompts/build';
import type { WaveItem } from '../core/waves/types';
import type { Run } from './execution';
import { SEARCH_KEYS, WORKFLOW_TYPE, type RunInput } from '../contract';
import { keepChildTeamState } from '../core/state/team-state';
import { positionOf } from './agent-call';
import { running } from './observe';
import { withinDispatchOf } from './spans';

/** The Temporal UI's label of a team agent's dispatch (the child's summary, and its entry in the current details). */
export function teamLabel(run: Run, item: WaveItem): string {
  return SUMMARY_TEXTS.team(positionOf(run, item.agent, item.via), run.graph.agents[item.agent].team!.file);
}

/**
 * Run `item`'s team as a child workflow (its task: the agent's input and `notes`; its caps: its
 * `share` of the parent's budgets, `core/budgets/shares.ts`): its result as the agent's, or the end of the parent's failed
 * dispatch when the child ended other than completed or exhausted. Throws a cancellation when the
 * child ended cancelled because the parent cancelled or stopped it.
 */
export async function teamCall(
  run: Run,
  item: WaveItem,
  label: string,
  notes: PromptNote[],
  share: CompiledBudget,
): Promise<{ ok: true; result: AgentCallResult } | { ok: false; end: RunEnd }> {
  const { graph, state } = run;
  const team = graph.agents[item.agent].team!;
  const runs = (state.teamRuns ??= {});
  const next = () => childWorkflowId(state.workflowId, workflowInfo().originalExecutionRunId, item.agent, (runs[item.agent] = (runs[item.agent] ?? 0) + 1));
  let workflowId = next();
  // a continued parent's team agent goes on from its last child's team state (docs/teams.md, "Nested teams")
  const carried = state.carriedTeams?.[item.agent];
  if (carried) delete state.carriedTeams![item.agent];
  const input: RunInput = { graph: childGraph(team.graph, graph, share), task: teamTask(state.task, item.triggers, notes), ...(carried ? { teamState: carried } : {}) };
  const child: Run['children'][number] = { agent: item.agent, workflowId };
  run.children.push(child);
  const done = running(run, { kind: 'agent', agent: item.agent, label });
  try {
    let handle = await startTeamRun(run, workflowId, input);
    // a run holds the id (the child of the run a reset started from, or one started there by hand): the next n
    while (handle === undefined) {
      child.workflowId = workflowId = next();
      handle = await withinDispatchOf(item.agent, () => startTeamRun(run, workflowId, input));
    }
    child.handle = handle;
    // a stop or a pause that came while the child was starting reaches it now (in the dispatch's span)
    const { stop } = state;
    const started = handle;
    if (stop) void withinDispatchOf(item.agent, () => started.signal('stop', stop.reason !== undefined ? { reason: stop.reason } : {})).catch(() => undefined);
    else if (state.paused) void withinDispatchOf(item.agent, () => started.signal('pause')).catch(() => undefined);
    const result = (await handle.result()) as RunResult;
    // a child the parent cancelled or stopped is no failure: the parent ends as it was told to
    if (result.status === 'cancelled' && (CancellationScope.current().consideredCancelled || state.stop)) throw new CancelledFailure(result.reasonText);
    keepChildTeamState(state, item.agent, result.teamState);
    const outcome = teamOutcome(item.agent, result);
    // a failed child's usage still counts: the parent's result says what the run spent
    if (!outcome.ok) recordTeamRun(state.usage, { agent: item.agent, round: state.round.round, usage: result.usage });
    return outcome;
  } finally {
    run.children = run.children.filter((c) => c !== child);
    done();
  }
}

/**
 * Start a team's child run as `startRun` starts a run: its UI summary and details, its memo and,
 * where the parent has them, troupe's search attributes (so `troupe list --waiting` finds its
 * requests). Undefined when a run, running or closed, already holds `workflowId`.
 */
async function startTeamRun(run: Run, workflowId: string, input: RunInput): Promise<ChildWorkflowHandle<Workflow> | undefined> {
  const thread = input.teamState?.threadId ?? workflowId;
  try {
    return await startChild(WORKFLOW_TYPE, {
      workflowId,
      args: [input],
      parentClosePolicy: ParentClosePolicy.REQUEST_CANCEL,
      // a closed run's id too: a reset run's team never joins the history of its base run's child
      workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
      memo: { troupeStatus: RUNNING_STATUS, troupeGraph: input.graph.name, troupeWaiting: false, troupeThread: thread },
      staticSummary: staticSummary(input.graph, input.task),
      staticDetails: staticDetails(input.graph),
      ...(run.indexed
        ? {
            typedSearchAttributes: [
              { key: SEARCH_KEYS.graph, value: input.graph.name },
              { key: SEARCH_KEYS.status, value: RUNNING_STATUS },
              { key: SEARCH_KEYS.waiting, value: false },
              { key: SEARCH_KEYS.thread, value: thread },
            ],
          }
        : {}),
    });
  } catch (err) {
    if (err instanceof WorkflowExecutionAlreadyStartedError) return undefined;
    throw err;
  }
}
