/**
 * One wave (SPEC §4.5, §11.2): dispatch its agents concurrently (compacting their context first
 * when a window is set), race a durable `timeout_ms` timer, and return the raw outcomes in wave
 * order. Processing the outcomes is `process.ts`.
 */
import { CancellationScope, isCancellation, sleep } from '@temporalio/workflow';
import type { AgentCallResult } from '../core/llm/contract';
import { buildAgentMessages } from '../core/prompts/build';
import { planContext } from '../core/prompts/bounds';
import { goalSnapshot } from '../core/goals';
import { addUsage, recordCall } from '../core/budgets/ledger';
import { activeMs, takeNotes, terminationView, warn, type AgentNote } from '../core/state/state';
import { iterationOf, type WaveItem } from '../core/waves/routing';
import { allConditions, describeTermination, evaluateTermination, scoreReaders } from '../core/termination/evaluate';
import type { RunEnd } from '../core/ending/result';
import { activitiesFor, type Run } from './context';
import { diagnosticsOf, failureEnd } from './failures';
import { budgetEnd } from './process';
import { TEXTS } from './texts';

/** One agent's outcome in a wave. */
export interface AgentOutcome {
  item: WaveItem;
  result: AgentCallResult;
}

export type WaveOutcome =
  | { kind: 'done'; outcomes: AgentOutcome[] }
  | { kind: 'stopped'; end: RunEnd; outcomes: AgentOutcome[] };

/** Consecutive compaction failures that trip the breaker (§8). */
export const COMPACTION_BREAKER = 3;

/** Build an agent's messages, compacting older context into its rolling summary when needed. */
async function prepareMessages(run: Run, item: WaveItem, notes: AgentNote[]): Promise<
  { ok: true; messages: ReturnType<typeof buildAgentMessages> } | { ok: false; end: RunEnd }
> {
  const { graph, state } = run;
  const agent = graph.agents[item.agent];
  const memory = (state.memory[item.agent] ??= { own: [] });
  const thread = () =>
    graph.context === 'thread' ? state.thread.filter((e) => e.seq > (memory.threadSeq ?? 0)) : [];
  const build = () => ({
    graph,
    agent: item.agent,
    task: state.task,
    round: state.round.round,
    wave: state.round.wave,
    iteration: iterationOf(graph, item.agent, state.round.loopCounters),
    maxIterations: graph.maxIterations,
    stopConditions: describeTermination(graph.termination),
    scoreContract: scoreReaders(graph.termination, graph.edges).includes(item.agent),
    summary: memory.summary,
    ownRecent: graph.context === 'inbox' ? memory.own : [],
    triggers: item.triggers,
    thread: thread(),
    notes,
  });
  const window = agent.model.contextWindow;
  const reserve = agent.model.maxTokens ?? 1024;
  let plan = planContext(build(), window, reserve);
  if (window && plan.overflow.length > 0) {
    try {
      const compacted = await activitiesFor(agent.timeoutMs).compactTranscript({
        workflowId: state.workflowId,
        agent: item.agent,
        model: agent.model,
        summary: memory.summary,
        entries: plan.overflow,
        maxSummaryTokens: Math.max(64, Math.floor(window / 8)),
        timeoutMs: agent.timeoutMs,
      });
      recordCall(state.usage, {
        kind: 'compaction',
        agent: item.agent,
        model: agent.model.name,
        usage: compacted.usage,
        round: state.round.round,
        pricing: graph.pricing,
      });
      state.round.usage = addUsage(state.round.usage, compacted.usage);
      memory.summary = compacted.summary;
      memory.own = memory.own.slice(plan.dropped.ownRecent);
      const summarized = thread().slice(0, plan.dropped.thread);
      if (summarized.length > 0) memory.threadSeq = summarized[summarized.length - 1].seq;
      state.compactionFailures = 0;
      plan = planContext(build(), window, reserve);
    } catch (err) {
      if (isCancellation(err)) throw err;
      state.compactionFailures += 1;
      warn(state, TEXTS.compactionFailed(item.agent, state.compactionFailures));
      if (state.compactionFailures >= COMPACTION_BREAKER) {
        return {
          ok: false,
          end: {
            status: 'failed',
            reason: 'compaction_circuit_breaker',
            reasonText: TEXTS.compactionBreaker(state.compactionFailures),
            diagnostics: diagnosticsOf(err, item.agent),
          },
        };
      }
    }
  }
  if (!plan.fits) {
    return {
      ok: false,
      end: {
        status: 'failed',
        reason: 'token_window_exceeded',
        reasonText: TEXTS.windowExceeded(item.agent, plan.estimatedTokens, window ?? 0),
      },
    };
  }
  return { ok: true, messages: buildAgentMessages(plan.input) };
}

/** Dispatch one agent (compaction, then the agent activity). */
async function dispatchOne(run: Run, item: WaveItem, notes: AgentNote[], responseSchema?: Record<string, unknown>) {
  const { graph, state } = run;
  const agent = graph.agents[item.agent];
  const prepared = await prepareMessages(run, item, notes);
  if (!prepared.ok) return prepared;
  const result = await activitiesFor(agent.timeoutMs).callAgent({
    workflowId: state.workflowId,
    agent: item.agent,
    model: agent.model,
    messages: prepared.messages,
    tools: agent.tools,
    goal: state.goal && agent.tools.includes('goal') ? goalSnapshot(state.goal) : undefined,
    responseSchema,
    timeoutMs: agent.timeoutMs,
  });
  return { ok: true as const, result };
}

/**
 * Dispatch a wave concurrently, unless a budget refuses it (nothing starts once a limit is reached, and
 * `max_agent_calls` is never exceeded, §11.7). The first agent failure cancels its siblings and ends the run;
 * a `timeout_ms` timer on the active clock cancels in-flight work only if the whole termination
 * expression then holds (§11.2).
 */
export async function dispatchWave(
  run: Run,
  items: WaveItem[],
  options: { responseSchema?: Record<string, unknown>; notes?: Record<string, AgentNote[]> } = {},
): Promise<WaveOutcome> {
  const { state, graph } = run;
  const refused = budgetEnd(state, run, items.length);
  if (refused) return { kind: 'stopped', end: refused, outcomes: [] };
  const broadcast = state.broadcast;
  state.broadcast = [];
  const notesFor = items.map((item) => [...(options.notes?.[item.agent] ?? []), ...takeNotes(state, item.agent, broadcast)]);
  const scope = new CancellationScope();
  let failure: RunEnd | undefined;
  const settled: Array<AgentOutcome | undefined> = items.map(() => undefined);
  run.inFlight = items.map((i) => i.agent);

  const calls = items.map((item, index) =>
    scope
      .run(() => dispatchOne(run, item, notesFor[index], options.responseSchema))
      .then((r) => {
        if (!r.ok) {
          failure ??= r.end;
          scope.cancel();
          return;
        }
        settled[index] = { item, result: r.result };
      })
      .catch((err) => {
        if (run.root.consideredCancelled) throw err;
        if (isCancellation(err)) return;
        failure ??= failureEnd(err, item.agent);
        scope.cancel();
      })
      .finally(() => {
        run.inFlight = run.inFlight.filter((a) => a !== item.agent);
      }),
  );
  const all = Promise.all(calls);

  let timedOut: RunEnd | undefined;
  const timers = timeoutDeadlines(run);
  if (timers.length > 0) {
    const timerScope = new CancellationScope();
    const watcher = timerScope.run(async () => {
      for (const remaining of timers) {
        await sleep(remaining.waitMs);
        const stop = evaluateTermination(graph.termination, terminationView(state, Date.now()));
        if (stop) {
          timedOut = { status: stop.status, reason: stop.reason, reasonText: stop.reasonText };
          scope.cancel();
          return;
        }
      }
    });
    watcher.catch(() => undefined);
    try {
      await all;
    } finally {
      timerScope.cancel();
    }
  } else {
    await all;
  }
  run.inFlight = [];
  const outcomes = settled.filter((o): o is AgentOutcome => o !== undefined);
  if (timedOut) return { kind: 'stopped', end: timedOut, outcomes };
  if (failure) return { kind: 'stopped', end: failure, outcomes };
  return { kind: 'done', outcomes };
}

/** Waits (ms from now) at which a `timeout_ms` condition of this round would be crossed. */
function timeoutDeadlines(run: Run): Array<{ waitMs: number }> {
  const { state, graph } = run;
  const roundMs = activeMs(state, Date.now()) - state.round.startedActiveMs;
  // timeouts inside `when` guards are read, not timed (§11.2)
  const found = [...allConditions(graph.termination)].flatMap((c) => (c.kind === 'timeout_ms' ? [c.ms] : []));
  const sorted = [...new Set(found)].sort((a, b) => a - b).filter((ms) => ms > roundMs);
  let elapsed = roundMs;
  return sorted.map((ms) => {
    const waitMs = ms - elapsed;
    elapsed = ms;
    return { waitMs };
  });
}
