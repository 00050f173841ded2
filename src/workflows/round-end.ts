/**
 * The end of a round. Completion checks (the goal, the output schema, registered checks) may start a
 * new round or re-dispatch final agents alone; then an optional `before_exit` approval, whose reject
 * starts a round at the final agents with the reason (docs/semantics.md, "Round ends").
 */
import { runCompletionChecks } from '../core/checks/pipeline';
import { userStopEnd, type NextStep } from '../core/ending/decide';
import { finalAgents, finalText, type RunEnd } from '../core/ending/result';
import { RUN_TEXTS } from '../core/ending/texts';
import { openHumanRequest } from '../core/humans/decisions';
import { outputCheck, type OutputVerdict } from '../core/output/check';
import { defaultOutputValidator, unboundedOutputValidator, type OutputValidator } from '../core/output/validator';
import { activeMs } from '../core/state/clock';
import { addNote, entryWave, newRound, warn, type RunState } from '../core/state/state';
import { checkBudget } from '../core/budgets/ledger';
import { dispatchAgents, withDeadlines } from './dispatch';
import type { Run } from './execution';
import { recordWave } from './processing';
import { nextStep, waitForDecision } from './waits';

/** What follows a round's end: the next round's first wave is ready, or the run ends. */
export type RoundNext = Extract<NextStep, { kind: 'run_wave' } | { kind: 'end_run' }>;

const finish = (end: RunEnd): RoundNext => ({ kind: 'end_run', end });

/** Start a new round: reset round-scoped state; `frontier` is its wave 1. */
export function startRound(run: Run, frontier: RunState['frontier']): void {
  const { state } = run;
  state.round = newRound(state.round.round + 1, activeMs(state, Date.now()));
  state.frontier = frontier;
  for (const request of state.requests) delete request.held;
  state.deferred = [];
}

/** Re-dispatch final agents alone (schema retries or a check's targets); their edges are not followed. */
async function redispatch(run: Run, targets: Array<{ agent: string; prompt: string }>, by: string): Promise<RunEnd | undefined> {
  const { graph } = run;
  for (const target of targets) {
    const step = await nextStep(run, 'before_retry');
    if (step.kind === 'end_run' || step.kind === 'end_round') return step.end;
    run.state.round.wave += 1;
    run.wave = {};
    const isSchema = by === 'output';
    const outcomes = await withDeadlines(run, () =>
      dispatchAgents(run, [{ agent: target.agent, triggers: [] }], {
        responseSchema: isSchema ? graph.output?.schema : undefined,
        notes: { [target.agent]: [{ kind: isSchema ? 'schema_retry' : 'user_message', text: target.prompt, from: by }] },
        retryFor: by,
      }),
    );
    recordWave(run, outcomes, isSchema ? 'schema_retry' : 'check_retry');
    const stopped = run.wave.timedOut ?? run.wave.failure;
    if (stopped) return stopped;
  }
  return undefined;
}

/** The output validator of the run's version: 0.1 runs test `pattern` on strings of any length. */
function validatorOf(run: Run): OutputValidator {
  return run.version.boundedPatterns ? defaultOutputValidator : unboundedOutputValidator;
}

/** The output-schema verdict on the final results without any retry. */
function outputAsItStands(run: Run): OutputVerdict {
  const { state, graph } = run;
  const finals = finalAgents(state).map((agent) => ({ agent, text: state.results[agent]?.text ?? '' }));
  const verdict = outputCheck(finals, { schema: graph.output!.schema, maxRetries: 0 }, {}, validatorOf(run));
  if (verdict.kind !== 'done') return { outputValid: false };
  return {
    ...(verdict.output !== undefined ? { output: verdict.output } : {}),
    outputValid: verdict.outputValid,
    ...(verdict.outputErrors ? { outputErrors: verdict.outputErrors } : {}),
  };
}

/** Decide what follows a round that ended with `end`. */
export async function endRound(run: Run, end: RunEnd): Promise<RoundNext> {
  const { state, graph } = run;
  if (end.status !== 'completed' && end.status !== 'exhausted') return finish(end);
  let current = end;

  for (;;) {
    if (state.stop) return finish(userStopEnd(state.stop.reason));
    if (checkBudget(graph.budget, state.usage, activeMs(state, Date.now()))) {
      // nothing new starts once a budget is crossed: the output is judged as it stands
      if (graph.output) run.output = outputAsItStands(run);
      return finish(current);
    }
    const outcome = runCompletionChecks({
      now: Date.now(),
      round: state.round.round,
      status: current.status as 'completed' | 'exhausted',
      reason: current.reason,
      goal: state.goal,
      finalResults: finalAgents(state).map((agent) => ({ agent, text: state.results[agent]?.text ?? '' })),
      output: graph.output,
      outputAttempts: state.outputAttempts,
    }, undefined, validatorOf(run), { namesUnreported: run.version.trimsReplies });
    if (outcome.goal) state.goal = outcome.goal;
    state.outputAttempts = outcome.outputAttempts;
    for (const w of outcome.warnings) warn(state, w);

    if (outcome.kind === 'continue') {
      if (outcome.action === 'new_round') {
        startRound(run, entryWave(graph, state.task));
        const kind = outcome.by === 'goal' ? 'goal_continuation' : 'user_message';
        for (const item of state.frontier) addNote(state, item.agent, { kind, text: outcome.prompt, from: outcome.by });
        return { kind: 'run_wave' };
      }
      const stopped = await redispatch(run, outcome.targets, outcome.by);
      if (stopped) return finish(stopped);
      continue;
    }
    if (outcome.output) run.output = outcome.output;
    if (outcome.goalEnd) current = { ...outcome.goalEnd };
    break;
  }

  if (graph.approval.beforeExit && (current.status === 'completed' || current.status === 'exhausted')) {
    const agents = finalAgents(state);
    const request = openHumanRequest(state, {
      kind: 'before_exit',
      agent: agents.join(','),
      summary: RUN_TEXTS.beforeExitSummary(agents.join(','), finalText(state, agents).slice(0, 300)),
      now: Date.now(),
    });
    const decided = await waitForDecision(run, request.id);
    if (!decided) return finish(userStopEnd(run.state.stop?.reason));
    if (decided.decision?.kind === 'reject') {
      startRound(run, agents.map((agent) => ({ agent, triggers: [] })));
      for (const agent of agents) addNote(state, agent, { kind: 'reject_reason', text: decided.decision.text ?? '', from: 'human' });
      return { kind: 'run_wave' };
    }
  }
  return finish(current);
}
