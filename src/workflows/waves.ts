/**
 * Carrying out a wave's commands: dispatching its agents concurrently (the first failure cancels the
 * siblings), asking the judge, and the round's `timeout_ms` timers, which cover both and cancel what
 * is in flight when the termination expression holds as one fires (docs/semantics.md, "Waves").
 * Outcomes go back to the round machine, which records and routes them.
 */
import { CancellationScope, isCancellation, sleep } from '@temporalio/workflow';
import { evaluateTermination } from '../core/conditions/evaluate';
import type { JudgeTarget } from '../core/conditions/plugin';
import { timersMs } from '../core/conditions/walk';
import { ENDS } from '../core/ending/decide';
import type { RunEnd } from '../core/ending/result';
import { summary, SUMMARY_TEXTS } from '../core/observe/summaries';
import type { AgentOutcome, DispatchOptions, JudgeAnswer, RunEvent } from '../core/run/types';
import { judgeInput } from '../core/run/wave';
import { activeMs } from '../core/state/clock';
import { terminationView } from '../core/state/view';
import type { WaveItem } from '../core/waves/types';
import { openWave } from './agent-call';
import { modelCall } from './calls';
import { AgentDispatch, settleDispatch } from './dispatch';
import type { Run } from './execution';
import { failureMessage } from './failures';
import { activitiesFor, JUDGE_TIMEOUT_MS, SELECTOR_TIMEOUT_MS } from './proxies';
import { NO_USAGE } from '../core/budgets/ledger';
import { shareWave, waveParties } from '../core/budgets/shares';
import type { SelectTurn } from '../core/teams/turns';

/**
 * Dispatch the agents of a wave concurrently, each by the one dispatch body (`dispatch.ts`); the
 * outcomes of those that finished, in wave order, and the wave's first failure (which cancels the
 * siblings). Every call is scheduled before the first `await`.
 */
export async function dispatchWave(run: Run, items: WaveItem[], options: DispatchOptions): Promise<Extract<RunEvent, { kind: 'dispatched' }>> {
  const notesFor = openWave(run, items, options);
  // the team agents' shares of what is left, taken before anything starts (`core/budgets/shares.ts`)
  const split = shareWave(run.graph.budget, run.state.usage, activeMs(run.state, Date.now()), waveParties(run.graph, items.map((i) => i.agent)));
  const shareOf = new Map(items.filter((i) => run.graph.agents[i.agent].team).map((item, n) => [item, split.shares[n]]));
  run.reservedToolCalls = split.reservedToolCalls;
  const settled: Array<AgentOutcome | undefined> = items.map(() => undefined);
  let failure: RunEnd | undefined;
  const one = async (item: WaveItem, index: number, cancelSiblings: () => void): Promise<void> => {
    const { outcome, end } = await settleDispatch(new AgentDispatch(run, item, notesFor[index], options, shareOf.get(item)));
    settled[index] = outcome;
    if (!end) return;
    failure ??= end;
    cancelSiblings();
  };
  try {
    if (items.length === 1) {
      // no sibling to cancel: no scope of its own
      await one(items[0], 0, () => undefined);
    } else {
      const scope = new CancellationScope();
      await scope.run(() => Promise.all(items.map((item, index) => one(item, index, () => scope.cancel()))));
    }
  } finally {
    // the teams' usage is recorded with the wave's outcomes, before any other call can start
    run.reservedToolCalls = 0;
  }
  return { kind: 'dispatched', outcomes: settled.filter((o): o is AgentOutcome => o !== undefined), ...(failure ? { failure } : {}) };
}

/** Ask the judge about each target, concurrently; a target a timer cancelled has no answer. */
export async function judge(run: Run, targets: JudgeTarget[]): Promise<JudgeAnswer[]> {
  const { graph, state } = run;
  const timeoutMs = graph.judge.timeoutMs ?? JUDGE_TIMEOUT_MS;
  const call = activitiesFor(timeoutMs).judgeConvergence;
  const answers = await Promise.all(
    targets.map(async (target): Promise<JudgeAnswer | undefined> => {
      const label = SUMMARY_TEXTS.judge(target.agent);
      const input = { workflowId: state.workflowId, agent: target.agent, model: graph.judge.model, ...judgeInput(run.machine, target), timeoutMs };
      try {
        const verdict = await modelCall(run, { kind: 'judge', agent: target.agent, label }, () => call.executeWithOptions({ summary: summary(label) }, [input]));
        return { target, converged: verdict.converged, reason: verdict.reason, usage: verdict.usage };
      } catch (err) {
        if (isCancellation(err) && run.root.consideredCancelled) throw err;
        // a timer that ends the wave cancels its judge calls: no verdict, and nothing failed
        if (isCancellation(err)) return undefined;
        return { target, error: failureMessage(err) };
      }
    }),
  );
  return answers.filter((a): a is JudgeAnswer => a !== undefined);
}

/**
 * Ask the selector who speaks next (docs/teams.md, "Selector teams"). A selector that fails never
 * fails the run: the machine falls back to list order, with a warning.
 */
export async function selectSpeaker(run: Run, turn: SelectTurn): Promise<Extract<RunEvent, { kind: 'selected' }>> {
  const { graph, state } = run;
  const selector = graph.selector!;
  const timeoutMs = selector.timeoutMs ?? SELECTOR_TIMEOUT_MS;
  const label = SUMMARY_TEXTS.select(turn.turn, state.round.round);
  const input = {
    workflowId: state.workflowId,
    model: selector.model,
    prompt: turn.prompt,
    participants: turn.participants,
    candidates: turn.candidates,
    ...(turn.previous !== undefined ? { previous: turn.previous } : {}),
    maxAttempts: selector.maxAttempts,
    timeoutMs,
  };
  try {
    const answer = await modelCall(run, { kind: 'selector', agent: 'selector', label }, () =>
      activitiesFor(timeoutMs).selectSpeaker.executeWithOptions({ summary: summary(label) }, [input]),
    );
    return { kind: 'selected', ...answer };
  } catch (err) {
    if (run.root.consideredCancelled) throw err;
    return { kind: 'selected', attempts: 0, usage: NO_USAGE, rejected: [], error: failureMessage(err) };
  }
}

/**
 * The round's `timeout_ms` timers over a wave: `run(body)` runs the wave's calls in a scope the timers
 * cancel; `timedOut` is the end when one fired and the termination expression then held.
 */
export class WaveTimers {
  readonly scope = new CancellationScope();
  timedOut?: RunEnd;
  private readonly timerScope = new CancellationScope();

  private constructor(private readonly waits: Array<{ waitMs: number; atMs: number }>) {}

  /** Timers for the round's `timeout_ms` conditions still ahead; undefined when there are none. */
  static start(run: Run): WaveTimers | undefined {
    const waits = timeoutWaits(run);
    return waits.length > 0 ? new WaveTimers(waits) : undefined;
  }

  /** Run `body` in the wave's scope; the timers start after its first calls are scheduled. */
  run<T>(run: Run, body: () => Promise<T>): Promise<T> {
    const done = this.scope.run(body);
    if (!this.started) this.arm(run);
    return done;
  }

  private started = false;

  private arm(run: Run): void {
    this.started = true;
    const { state, graph } = run;
    const watcher = this.timerScope.run(async () => {
      for (const { waitMs, atMs } of this.waits) {
        await sleep(waitMs, { summary: summary(SUMMARY_TEXTS.timeout(atMs, state.round.round)) });
        const stop = evaluateTermination(graph.termination, terminationView(state, Date.now()));
        if (stop) {
          this.timedOut = ENDS.condition(stop);
          this.scope.cancel();
          return;
        }
      }
    });
    watcher.catch(() => undefined);
  }

  /** The wave is over: its timers stop. */
  close(): void {
    this.timerScope.cancel();
  }
}

/**
 * Waits (ms, each after the previous) at which a `timeout_ms` condition of this round is crossed, with
 * the condition's own `timeout_ms`.
 */
export function timeoutWaits(run: Run): Array<{ waitMs: number; atMs: number }> {
  const { state, graph } = run;
  const roundMs = activeMs(state, Date.now()) - state.round.startedActiveMs;
  // timeouts inside `when` guards are read, not timed
  const found = timersMs(graph.termination);
  const sorted = [...new Set(found)].sort((a, b) => a - b).filter((ms) => ms > roundMs);
  let elapsed = roundMs;
  return sorted.map((ms) => {
    const waitMs = ms - elapsed;
    elapsed = ms;
    return { waitMs, atMs: ms };
  });
}
