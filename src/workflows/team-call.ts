/**
 * A team agent's dispatch (docs/teams.md, "Nested teams"): the child role runs as a Temporal child
 * workflow (`troupeRun`, id `<parent id>/<parent run id>/<agent>-<n>`, on the parent's task queue),
 * with the agent's input as its task and its share of the parent's remaining budgets as its caps.
 * An id another run already holds fails the dispatch, saying so. Cancelling the dispatch's scope
 * (the run cancelled, a sibling failed, a round timer) cancels the child; the parent close policy
 * cancels it should the parent end first. What its RunResult means is decided in the core
 * (`core/teams/team-run.ts`).
 */
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import { CancellationScope, CancelledFailure, ParentClosePolicy, startChild, workflowInfo, type ChildWorkflowHandle, type Workflow } from '@temporalio/workflow';
import { recordTeamRun } from '../core/budgets/ledger';
import { ENDS } from '../core/ending/decide';
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
  const n = (runs[item.agent] = (runs[item.agent] ?? 0) + 1);
  const workflowId = childWorkflowId(state.workflowId, workflowInfo().runId, item.agent, n);
  // a continued parent's team agent goes on from its last child's team state (docs/teams.md, "Nested teams")
  const carried = state.carriedTeams?.[item.agent];
  if (carried) delete state.carriedTeams![item.agent];
  const input: RunInput = { graph: childGraph(team.graph, graph, share), task: teamTask(state.task, item.triggers, notes), ...(carried ? { teamState: carried } : {}) };
  const child: Run['children'][number] = { agent: item.agent, workflowId };
  run.children.push(child);
  const done = running(run, { kind: 'agent', agent: item.agent, label });
  try {
    const handle = await startTeamRun(run, workflowId, input);
    // another run holds the id (started by hand: troupe never starts one there)
    if (handle === undefined) return { ok: false, end: ENDS.teamIdTaken(item.agent, team.file, workflowId) };
    child.handle = handle;
    // a stop or a pause that came while the child was starting reaches it now
    if (state.stop) void handle.signal('stop', state.stop.reason !== undefined ? { reason: state.stop.reason } : {}).catch(() => undefined);
    else if (state.paused) void handle.signal('pause').catch(() => undefined);
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
 * requests). Undefined when another run already holds `workflowId`.
 */
async function startTeamRun(run: Run, workflowId: string, input: RunInput): Promise<ChildWorkflowHandle<Workflow> | undefined> {
  const thread = input.teamState?.threadId ?? workflowId;
  try {
    return await startChild(WORKFLOW_TYPE, {
      workflowId,
      args: [input],
      parentClosePolicy: ParentClosePolicy.REQUEST_CANCEL,
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
