/**
 * Processing a finished wave, in a fixed order: (1) record every result in wave order and apply the
 * `goal` tool's events, (2) judge, concurrently, the results a `converged` condition or guard needs,
 * (3) route in wave order, evaluating `when` guards on the state after judging and counting the back
 * edges followed (docs/semantics.md, "Waves"). What the run does next is decided afterwards, in one
 * place (`core/ending/decide.ts`).
 */
import { isCancellation } from '@temporalio/workflow';
import { addUsage, recordCall } from '../core/budgets/ledger';
import { RUN_TEXTS } from '../core/ending/texts';
import { applyGoalEvents, goalRunStatus, type GoalEvent } from '../core/goals';
import { warn } from '../core/state/state';
import { terminationView } from '../core/state/view';
import { conditionHolds } from '../core/conditions/evaluate';
import { verdictKey } from '../core/conditions/view';
import { judgeTargets } from '../core/conditions/walk';
import { recordResult, type AgentOutcome, type RecordedResult } from '../core/waves/record';
import { routeIntoState } from '../core/waves/routing';
import { outlivingWorkers } from './failures';
import { tracked } from './observe';
import { activitiesFor, JUDGE_TIMEOUT_MS } from './proxies';
import { summary, SUMMARY_TEXTS } from '../core/observe/summaries';
import type { Run } from './execution';
import type { RunEnd } from '../core/ending/result';

/** Default judge criteria when a `converged` condition names none. */
export const DEFAULT_CRITERIA = 'the result fully satisfies the task';

/**
 * Step (1): record the wave's results in wave order and, for a wave that ran to its end, apply their
 * `goal` tool events. A wave cut short by a failure or a timer, and a re-dispatch at the round's end
 * (a schema or check retry), record their results only: the run or round is already ending.
 */
export function recordWave(run: Run, outcomes: AgentOutcome[], kind: 'agent' | 'schema_retry' | 'check_retry' = 'agent'): RecordedResult[] {
  const now = Date.now();
  const recorded = outcomes.map((o) => recordResult(run.state, run.graph, o, now, kind, { keepLines: run.keepLines, trimLines: run.version.trimsReplies }));
  // a reply still cut by max_tokens is no result: recorded, then the run ends (since troupe 0.3)
  const cut = run.version.trimsReplies ? outcomes.find((o) => o.result.finishReason === 'length' && run.graph.agents[o.item.agent].onTruncated !== 'accept') : undefined;
  if (cut) run.wave.failure ??= truncatedEnd(run, cut.item.agent);
  const cutShort = run.wave.failure !== undefined || run.wave.timedOut !== undefined;
  if (kind === 'agent' && !cutShort) {
    applyWaveGoalEvents(run, recorded.flatMap((r) => r.goalEvents.map((event) => ({ agent: r.agent, event }))));
  }
  return recorded;
}

/** The end of a run whose agent's reply was still cut by `max_tokens` after its continuation. */
function truncatedEnd(run: Run, agent: string): RunEnd {
  return { status: 'failed', reason: 'truncated_output', reasonText: RUN_TEXTS.truncated(agent, run.graph.agents[agent].model.maxTokens) };
}

/**
 * Apply a wave's `goal` tool events in wave order; a goal set completed or blocked ends the round
 * after this wave (`run.wave.goalEnd`), a paused goal pauses the run until `resume`.
 */
function applyWaveGoalEvents(run: Run, events: Array<{ agent: string; event: GoalEvent }>): void {
  const { state } = run;
  if (!state.goal || events.length === 0) return;
  const applied = applyGoalEvents(state.goal, events, Date.now());
  state.goal = applied.goal;
  for (const w of applied.warnings) warn(state, w);
  if (applied.effect === 'end_round') run.wave.goalEnd = goalRunStatus(applied.goal);
}

/** Step (2): judge, concurrently, the results of agents named by a `converged` condition or guard. */
export async function judgeWave(run: Run, agents: string[]): Promise<void> {
  const { state, graph } = run;
  const targets = judgeTargets(graph.termination, graph.edges).filter((t) => agents.includes(t.agent));
  if (targets.length === 0) return;
  await Promise.all(
    targets.map(async (target) => {
      const latest = state.round.latest[target.agent];
      if (!latest) return;
      const key = verdictKey(target.agent, target.criteria);
      try {
        const label = SUMMARY_TEXTS.judge(target.agent);
        const timeoutMs = graph.judge.timeoutMs ?? JUDGE_TIMEOUT_MS;
        const input = {
          workflowId: state.workflowId,
          agent: target.agent,
          model: graph.judge.model,
          criteria: target.criteria ?? DEFAULT_CRITERIA,
          task: state.task,
          result: state.results[target.agent]?.text ?? latest.text,
          timeoutMs,
        };
        const judge = activitiesFor(timeoutMs).judgeConvergence;
        const verdict = await tracked(run, label, () =>
          outlivingWorkers(run, label, () => judge.executeWithOptions({ summary: summary(label) }, [input])),
        );
        state.round.verdicts[key] = { hash: latest.hash, converged: verdict.converged, reason: verdict.reason };
        state.round.usage = addUsage(state.round.usage, verdict.usage);
        recordCall(state.usage, {
          kind: 'judge',
          agent: target.agent,
          model: graph.judge.model.name,
          usage: verdict.usage,
          round: state.round.round,
          pricing: graph.pricing,
        });
      } catch (err) {
        if (isCancellation(err) && run.root.consideredCancelled) throw err;
        // a timer that ends the wave cancels its judge calls: no verdict, and nothing failed
        if (isCancellation(err) && run.wave.timedOut) return;
        state.round.verdicts[key] = { hash: latest.hash, converged: false };
        warn(state, RUN_TEXTS.judgeFailed(target.agent, err));
      }
    }),
  );
}

/** Step (3): route the wave's results, except those held back for a human decision. */
export function routeWaveResults(run: Run, recorded: RecordedResult[]): void {
  const { state, graph } = run;
  const held = new Set(state.requests.filter((r) => r.held).map((r) => r.agent));
  const view = terminationView(state, Date.now());
  routeIntoState(
    state,
    graph,
    recorded.filter((r) => !held.has(r.agent)),
    (when) => conditionHolds(when, view),
  );
}
