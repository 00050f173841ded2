/**
 * The end of a round (SPEC §6.1, §6.4, §7, §11.3, §11.6): completion checks (goal, output schema,
 * registered checks) may start a new round or re-dispatch final agents alone; then an optional
 * `before_exit` approval, whose reject starts a round at the final agents with the reason.
 */
import { runCompletionChecks } from '../core/checks/pipeline';
import { outputCheck } from '../core/output/check';
import { finalAgents, finalText, type RunEnd } from '../core/ending/result';
import { openRequest } from '../core/humans/requests';
import { addNote, entryWave, warn } from '../core/state/state';
import type { Run } from './context';
import { budgetEnd, recordResult, userStop } from './process';
import { gate, startRound } from './gate';
import { TEXTS } from './texts';
import { dispatchWave } from './wave';

export type RoundNext = { kind: 'finish'; end: RunEnd } | { kind: 'next' };

const finish = (end: RunEnd): RoundNext => ({ kind: 'finish', end });

/** Re-dispatch final agents alone (schema retries or a check's targets); their edges are not followed. */
async function redispatch(
  run: Run,
  targets: Array<{ agent: string; prompt: string }>,
  by: string,
): Promise<RunEnd | undefined> {
  const { state, graph } = run;
  for (const target of targets) {
    const stopped = await gate(run);
    if (stopped) return stopped;
    state.round.wave += 1;
    const isSchema = by === 'output';
    const outcome = await dispatchWave(run, [{ agent: target.agent, triggers: [] }], {
      responseSchema: isSchema ? graph.output?.schema : undefined,
      notes: {
        [target.agent]: [{ kind: isSchema ? 'schema_retry' : 'user_message', text: target.prompt, from: by }],
      },
    });
    for (const o of outcome.outcomes) recordResult(run, o, 'schema_retry');
    if (outcome.kind === 'stopped') return outcome.end;
  }
  return undefined;
}

/** Wait for the decision on one request (clocks stopped); undefined decision means `stop`. */
async function waitForDecision(run: Run, requestId: string) {
  const { state } = run;
  const stopped = await gate(run, () => state.decisions.some((d) => d.requestId === requestId));
  const decision = state.decisions.find((d) => d.requestId === requestId);
  state.decisions = state.decisions.filter((d) => d !== decision);
  return { stopped, decision };
}

/** The output-schema verdict on the final results without any retry. */
function outputAsItStands(run: Run): RunOutput {
  const { state, graph } = run;
  const finals = finalAgents(state).map((agent) => ({ agent, text: state.results[agent]?.text ?? '' }));
  const verdict = outputCheck(finals, { schema: graph.output!.schema, maxRetries: 0 }, {});
  if (verdict.kind !== 'done') return { outputValid: false };
  return {
    ...(verdict.output !== undefined ? { output: verdict.output } : {}),
    outputValid: verdict.outputValid,
    ...(verdict.outputErrors ? { outputErrors: verdict.outputErrors } : {}),
  };
}

type RunOutput = NonNullable<Run['output']>;

/** Decide what follows a round that ended with `end`. */
export async function finishRound(run: Run, end: RunEnd): Promise<RoundNext> {
  const { state, graph } = run;
  if (end.status !== 'completed' && end.status !== 'exhausted') return finish(end);
  let current = end;

  for (;;) {
    if (state.stop) return finish(userStop(run));
    if (budgetEnd(state, run)) {
      // nothing new starts once a budget is crossed (§11.7): the output is judged as it stands
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
    });
    if (outcome.goal) state.goal = outcome.goal;
    state.outputAttempts = outcome.outputAttempts;
    for (const w of outcome.warnings) warn(state, w);

    if (outcome.kind === 'continue') {
      if (outcome.action === 'new_round') {
        startRound(run, entryWave(graph, state.task));
        const kind = outcome.by === 'goal' ? 'goal_continuation' : 'user_message';
        for (const item of state.frontier) addNote(state, item.agent, { kind, text: outcome.prompt, from: outcome.by });
        return { kind: 'next' };
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
    const request = openRequest(state, {
      kind: 'before_exit',
      agent: agents.join(','),
      summary: TEXTS.beforeExitSummary(agents.join(','), finalText(state, agents).slice(0, 300)),
      now: Date.now(),
    });
    const { stopped, decision } = await waitForDecision(run, request.id);
    if (stopped) return finish(stopped);
    if (decision?.decision === 'reject') {
      startRound(
        run,
        agents.map((agent) => ({ agent, triggers: [] })),
      );
      for (const agent of agents) addNote(state, agent, { kind: 'reject_reason', text: decision.text ?? '', from: 'human' });
      return { kind: 'next' };
    }
  }
  return finish(current);
}
