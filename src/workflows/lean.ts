/**
 * The round loop's hot path since troupe 0.2 (`RunVersion.leanWaves`): the same decisions, calls and
 * records as the 0.1 path in `run.ts` and `dispatch.ts`, with a promise only where the workflow
 * waits. The SDK captures a stack trace for every promise a workflow creates, so promises were most
 * of troupe's cost per step over a bare activity (BENCHMARKS.md, B1 and B5): a decision that needs
 * no wait, the continue-as-new check, a wave without judges and an agent's messages without
 * compaction take none, and the one call of a one-agent wave is awaited by the round loop itself,
 * so that such a step creates as many promises as a bare activity awaited in a loop. Fewer promises
 * also mean fewer microtask turns, so within one activation the commands of concurrent branches may
 * come in another order than on the 0.1 path, which is why this is a version of the workflow and not
 * a refactoring.
 */
import { CancellationScope, isCancellation, workflowInfo } from '@temporalio/workflow';
import type { RunEnd } from '../core/ending/result';
import { judgeTargets } from '../core/conditions/walk';
import type { PromptNote } from '../core/prompts/build';
import { takeNotes } from '../core/state/state';
import type { AgentOutcome, RecordedResult } from '../core/waves/record';
import { beginWave, type WaveItem } from '../core/waves/routing';
import { summary } from '../core/observe/summaries';
import { agentCall, messagesWithoutCompaction, prepareMessages, timeoutWaits, withDeadlines, type DispatchOptions } from './dispatch';
import type { Run } from './execution';
import { dispatchAgain, failureEnd } from './failures';
import { running } from './observe';
import { judgeWave, recordWave, routeWaveResults } from './processing';
import { runToolLoop } from './tool-loop';
import { decideNow, nextStep } from './waits';

/**
 * Run waves until the round's graph stops; `continueAsNew` is called when Temporal suggests it.
 *
 * A wave of one agent without a round timer (every step of a pipeline or a review loop) is
 * dispatched right here, so that a step costs the workflow one `await`, as a bare activity in a loop
 * does: each async function between the loop and the activity would add two promises, and the SDK
 * captures a stack trace for each (BENCHMARKS.md, B1). Other waves go through `runWave`.
 */
export async function runRoundLean(run: Run, continueAsNew: () => Promise<void>): Promise<RunEnd> {
  for (;;) {
    const before = decideNow(run, 'before_wave') ?? (await nextStep(run, 'before_wave'));
    if (before.kind !== 'run_wave') return before.end;
    if (workflowInfo().continueAsNewSuggested) await continueAsNew();
    const items = beginWave(run.state);
    run.wave = {};
    if (items.length === 1 && timeoutWaits(run).length === 0) {
      const [item] = items;
      const [notes] = openWave(run, items);
      const outcomes: AgentOutcome[] = [];
      try {
        const prepared = messagesWithoutCompaction(run, item, notes) ?? (await prepareMessages(run, item, notes));
        if (prepared.ok) {
          const { label, tools, input, callAgent } = agentCall(run, item, prepared.messages, {});
          if (tools) {
            outcomes.push({ item, result: await runToolLoop(run, item, prepared.messages, tools, label) });
          } else {
            const done = running(run, label);
            try {
              for (let lost = 1; ; lost++) {
                try {
                  outcomes.push({ item, result: await callAgent.executeWithOptions({ summary: summary(label) }, [input]) });
                  break;
                } catch (err) {
                  if (!dispatchAgain(run, label, err, lost)) throw err;
                }
              }
            } finally {
              // Not published here: every way on to the run's next block publishes first (the
              // next call or a judge's through `running`, a wait through `nextStep` or
              // `waitForDecision`, `maybeContinueAsNew`, `publishEnd`), and until then no query
              // can see the details. A finished call changes nothing a human waits on, so this
              // skips no command (BENCHMARKS.md, B5).
              done({ publish: false });
            }
          }
        } else {
          run.wave.failure ??= prepared.end;
        }
      } catch (err) {
        callFailed(run, item, err);
      } finally {
        run.inFlight = [];
      }
      const recorded = recordWave(run, outcomes);
      if (judging(run, recorded)) await judgeWave(run, [item.agent]);
      if (!run.wave.failure && !run.wave.timedOut) routeWaveResults(run, recorded);
    } else {
      await runWave(run, items);
    }
    const after = decideNow(run, 'after_wave') ?? (await nextStep(run, 'after_wave'));
    if (after.kind !== 'run_wave') return after.end;
  }
}

/**
 * One wave: dispatch, record, judge (only when a `converged` condition reads one of its agents), and
 * route. The round's `timeout_ms` timers cover the dispatch and the judging.
 */
async function runWave(run: Run, items: WaveItem[]): Promise<void> {
  let recorded: RecordedResult[];
  if (timeoutWaits(run).length === 0) {
    recorded = recordWave(run, await dispatchWave(run, items));
    if (judging(run, recorded)) await judgeWave(run, recorded.map((r) => r.agent));
  } else {
    recorded = await withDeadlines(run, async () => {
      const done = recordWave(run, await dispatchWave(run, items));
      if (judging(run, done)) await judgeWave(run, done.map((r) => r.agent));
      return done;
    });
  }
  if (run.wave.failure || run.wave.timedOut) return;
  routeWaveResults(run, recorded);
}

/** Whether the wave's results go to the judge: it ran to its end and a `converged` condition reads one of them. */
function judging(run: Run, recorded: RecordedResult[]): boolean {
  if (run.wave.failure || run.wave.timedOut || run.state.stop) return false;
  const { graph } = run;
  return judgeTargets(graph.termination, graph.edges).some((t) => recorded.some((r) => r.agent === t.agent));
}

/**
 * Start dispatching a wave: the notes each agent reads (its own, then the broadcast, which is
 * consumed), and the agents listed in flight.
 */
function openWave(run: Run, items: WaveItem[], options: DispatchOptions = {}): PromptNote[][] {
  const { state } = run;
  const broadcast = state.broadcast;
  state.broadcast = [];
  run.inFlight = items.map((i) => i.agent);
  return items.map((item) => [...(options.notes?.[item.agent] ?? []), ...takeNotes(state, item.agent, broadcast)]);
}

/**
 * A call of the wave failed with `err`: the wave's first failure is recorded (a cancellation is not a
 * failure); when the run itself is cancelled, the error goes on.
 */
function callFailed(run: Run, item: WaveItem, err: unknown): void {
  if (run.root.consideredCancelled) throw err;
  if (isCancellation(err)) return;
  run.wave.failure ??= failureEnd(err, item.agent);
}

/**
 * Dispatch the agents of a wave concurrently; the outcomes of those that finished, in wave order.
 * The first failure is recorded in `run.wave.failure` and cancels the siblings. Every call is
 * scheduled before the first `await`.
 */
async function dispatchWave(run: Run, items: WaveItem[], options: DispatchOptions = {}): Promise<AgentOutcome[]> {
  const notesFor = openWave(run, items, options);
  const settled: Array<AgentOutcome | undefined> = items.map(() => undefined);
  const one = async (item: WaveItem, index: number, cancelSiblings: () => void): Promise<void> => {
    try {
      // messages without a promise unless older context must be compacted first
      const prepared = messagesWithoutCompaction(run, item, notesFor[index]) ?? (await prepareMessages(run, item, notesFor[index]));
      if (!prepared.ok) {
        run.wave.failure ??= prepared.end;
        cancelSiblings();
        return;
      }
      const { label, tools, input, callAgent } = agentCall(run, item, prepared.messages, options);
      const result = tools
        ? await runToolLoop(run, item, prepared.messages, tools, label, options.responseSchema)
        : await trackedCall(run, label, () => callAgent.executeWithOptions({ summary: summary(label) }, [input]));
      settled[index] = { item, result };
    } catch (err) {
      callFailed(run, item, err);
      if (!isCancellation(err)) cancelSiblings();
    } finally {
      run.inFlight = run.inFlight.filter((a) => a !== item.agent);
    }
  };
  if (items.length === 1) {
    // no sibling to cancel: no scope of its own
    await one(items[0], 0, () => undefined);
  } else {
    const scope = new CancellationScope();
    await scope.run(() => Promise.all(items.map((item, index) => one(item, index, () => scope.cancel()))));
  }
  run.inFlight = [];
  return settled.filter((o): o is AgentOutcome => o !== undefined);
}

/**
 * Run `call` listed as running in the current details under `label`, and dispatch it again when it
 * was lost with its worker on every attempt (`tracked` and `outlivingWorkers` in one promise).
 */
async function trackedCall<T>(run: Run, label: string, call: () => Promise<T>): Promise<T> {
  const done = running(run, label);
  try {
    for (let lost = 1; ; lost++) {
      try {
        return await call();
      } catch (err) {
        if (!dispatchAgain(run, label, err, lost)) throw err;
      }
    }
  } finally {
    done();
  }
}
