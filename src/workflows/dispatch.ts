/**
 * Dispatching a wave: its agents run concurrently (each one's context compacted first when it would
 * not fit its model's window), the first failure cancels its siblings, and `withDeadlines` races the
 * durable timers of the round's `timeout_ms` conditions (docs/semantics.md, "Waves"). Outcomes come
 * back in wave order; what they mean is decided by `processing.ts` and `core/ending/decide.ts`.
 */
import { CancellationScope, isCancellation, sleep } from '@temporalio/workflow';
import { recordCall, addUsage } from '../core/budgets/ledger';
import { RUN_TEXTS } from '../core/ending/texts';
import type { RunEnd } from '../core/ending/result';
import { goalSnapshot } from '../core/goals';
import { builtinToolsOf } from '../core/llm/builtin-tools';
import { planContext } from '../core/prompts/bounds';
import { buildAgentMessages, outputSchemaFor, type PromptNote } from '../core/prompts/build';
import { activeMs } from '../core/state/clock';
import { takeNotes, warn } from '../core/state/state';
import { terminationView } from '../core/state/view';
import { describeTermination } from '../core/conditions/describe';
import { evaluateTermination } from '../core/conditions/evaluate';
import { scoreReaders, timersMs } from '../core/conditions/walk';
import type { AgentOutcome } from '../core/waves/record';
import { iterationOf, type WaveItem } from '../core/waves/routing';
import { summary, SUMMARY_TEXTS, type CallPosition } from '../core/observe/summaries';
import { tracked } from './observe';
import { activitiesFor } from './proxies';
import type { Run } from './execution';
import { diagnosticsOf, failureEnd, outlivingWorkers } from './failures';
import { runToolLoop } from './tool-loop';

/** Consecutive compaction failures that trip the breaker. */
export const COMPACTION_BREAKER = 3;

type Prepared = { ok: true; messages: ReturnType<typeof buildAgentMessages> } | { ok: false; end: RunEnd };

/** What goes into an agent's prompt now: task, position, stop rules, its memory, triggers and notes. */
function promptInput(run: Run, item: WaveItem, notes: PromptNote[]) {
  const { graph, state } = run;
  const memory = (state.memory[item.agent] ??= { own: [] });
  return {
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
    thread: threadSince(run, item.agent),
    notes,
  };
}

/** The shared thread after the part already summarized for `agent` (empty unless context is `thread`). */
function threadSince(run: Run, agent: string) {
  const { graph, state } = run;
  const seq = state.memory[agent]?.threadSeq ?? 0;
  return graph.context === 'thread' ? state.thread.filter((e) => e.seq > seq) : [];
}

/** The messages of a plan that fits, or the end when it does not. */
function fitted(plan: ReturnType<typeof planContext>, agent: string, window: number | undefined): Prepared {
  if (!plan.fits) {
    return {
      ok: false,
      end: {
        status: 'failed',
        reason: 'token_window_exceeded',
        reasonText: RUN_TEXTS.windowExceeded(agent, plan.estimatedTokens, window ?? 0),
      },
    };
  }
  return { ok: true, messages: plan.messages };
}

/**
 * An agent's messages when its context fits without compaction (no promise, no activity); undefined
 * when older context must be compacted first ({@link prepareMessages}).
 */
export function messagesWithoutCompaction(run: Run, item: WaveItem, notes: PromptNote[]): Prepared | undefined {
  const agent = run.graph.agents[item.agent];
  const window = agent.model.contextWindow;
  const plan = planContext(promptInput(run, item, notes), window, agent.model.maxTokens ?? 1024);
  if (window && plan.overflow.length > 0) return undefined;
  return fitted(plan, item.agent, window);
}

/** Build an agent's messages, compacting older context into its rolling summary when needed. */
export async function prepareMessages(run: Run, item: WaveItem, notes: PromptNote[]): Promise<Prepared> {
  const { graph, state } = run;
  const agent = graph.agents[item.agent];
  const memory = (state.memory[item.agent] ??= { own: [] });
  const window = agent.model.contextWindow;
  const reserve = agent.model.maxTokens ?? 1024;
  let plan = planContext(promptInput(run, item, notes), window, reserve);
  if (window && plan.overflow.length > 0) {
    try {
      const label = SUMMARY_TEXTS.compaction(item.agent);
      const input = {
        workflowId: state.workflowId,
        agent: item.agent,
        model: agent.model,
        summary: memory.summary,
        entries: plan.overflow,
        maxSummaryTokens: Math.max(64, Math.floor(window / 8)),
        timeoutMs: agent.timeoutMs,
      };
      const compact = activitiesFor(agent.timeoutMs).compactTranscript;
      const compacted = await tracked(run, label, () =>
        outlivingWorkers(run, label, () => compact.executeWithOptions({ summary: summary(label) }, [input])),
      );
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
      const summarized = threadSince(run, item.agent).slice(0, plan.dropped.thread);
      if (summarized.length > 0) memory.threadSeq = summarized[summarized.length - 1].seq;
      state.compactionFailures = 0;
      plan = planContext(promptInput(run, item, notes), window, reserve);
    } catch (err) {
      if (isCancellation(err)) throw err;
      state.compactionFailures += 1;
      warn(state, RUN_TEXTS.compactionFailed(item.agent, state.compactionFailures));
      if (state.compactionFailures >= COMPACTION_BREAKER) {
        return {
          ok: false,
          end: {
            status: 'failed',
            reason: 'compaction_circuit_breaker',
            reasonText: RUN_TEXTS.compactionBreaker(state.compactionFailures),
            diagnostics: diagnosticsOf(err, item.agent),
          },
        };
      }
    }
  }
  return fitted(plan, item.agent, window);
}

/** Where an agent's dispatch sits in the run, for its activity labels. */
export function positionOf(run: Run, agent: string): CallPosition {
  const { graph, state } = run;
  const inLoop = graph.loopGroups.some((g) => g.nodes.includes(agent));
  return {
    agent,
    round: state.round.round,
    wave: state.round.wave,
    ...(inLoop ? { iteration: iterationOf(graph, agent, state.round.loopCounters) } : {}),
  };
}

/** What to call for an agent whose messages are ready: its label, and its tool loop or its `callAgent` input. */
export function agentCall(run: Run, item: WaveItem, messages: ReturnType<typeof buildAgentMessages>, options: DispatchOptions) {
  const { graph, state } = run;
  const agent = graph.agents[item.agent];
  const position = positionOf(run, item.agent);
  const label = options.retryFor ? SUMMARY_TEXTS.retry(position, options.retryFor) : SUMMARY_TEXTS.agentCall(position);
  const tools = state.tools?.[item.agent];
  const input = {
    workflowId: state.workflowId,
    agent: item.agent,
    model: agent.model,
    messages,
    tools: builtinToolsOf(agent.tools),
    ...(agent.maxToolRounds !== undefined ? { maxToolRounds: agent.maxToolRounds } : {}),
    goal: state.goal && agent.tools.includes('goal') ? goalSnapshot(state.goal) : undefined,
    responseSchema: options.responseSchema ?? firstCallSchema(graph, item.agent),
    timeoutMs: agent.timeoutMs,
  };
  return { label, tools: tools && tools.length > 0 ? tools : undefined, input, callAgent: activitiesFor(agent.timeoutMs).callAgent };
}

/**
 * The response schema of an agent's every call: the role's output schema for a final agent without
 * tools (its prompt carries the schema too). An agent with tools gets it only on a schema retry: an
 * endpoint that enforces a schema by grammar could not call a tool under it.
 */
function firstCallSchema(graph: Run['graph'], agent: string): Record<string, unknown> | undefined {
  return graph.agents[agent].tools.length === 0 ? outputSchemaFor(graph, agent) : undefined;
}

/** Dispatch one agent: compaction when needed, then the agent activity. */
async function dispatchOne(run: Run, item: WaveItem, notes: PromptNote[], options: DispatchOptions) {
  const prepared = await prepareMessages(run, item, notes);
  if (!prepared.ok) return prepared;
  const call = agentCall(run, item, prepared.messages, options);
  if (call.tools) {
    return { ok: true as const, result: await runToolLoop(run, item, prepared.messages, call.tools, call.label, options.responseSchema) };
  }
  const { label, input, callAgent } = call;
  const result = await tracked(run, label, () => outlivingWorkers(run, label, () => callAgent.executeWithOptions({ summary: summary(label) }, [input])));
  return { ok: true as const, result };
}

/** Options of a dispatch: a response schema (schema retries) and extra notes per agent. */
export interface DispatchOptions {
  responseSchema?: Record<string, unknown>;
  notes?: Record<string, PromptNote[]>;
  /** A re-dispatch of a final agent, for its label: `output` (schema retry) or the check that sent it back. */
  retryFor?: string;
}

/**
 * Dispatch the agents of a wave concurrently and return the outcomes of those that finished, in wave
 * order. The first failure is recorded in `run.wave.failure` and cancels the siblings. Must be called
 * without an `await` before it, so the activities are scheduled before any timer of the wave.
 */
export async function dispatchAgents(run: Run, items: WaveItem[], options: DispatchOptions = {}): Promise<AgentOutcome[]> {
  const { state } = run;
  const broadcast = state.broadcast;
  state.broadcast = [];
  const notesFor = items.map((item) => [...(options.notes?.[item.agent] ?? []), ...takeNotes(state, item.agent, broadcast)]);
  const scope = new CancellationScope();
  const settled: Array<AgentOutcome | undefined> = items.map(() => undefined);
  run.inFlight = items.map((i) => i.agent);
  const calls = items.map((item, index) =>
    scope
      .run(() => dispatchOne(run, item, notesFor[index], options))
      .then((r) => {
        if (!r.ok) {
          run.wave.failure ??= r.end;
          scope.cancel();
          return;
        }
        settled[index] = { item, result: r.result };
      })
      .catch((err) => {
        if (run.root.consideredCancelled) throw err;
        if (isCancellation(err)) return;
        run.wave.failure ??= failureEnd(err, item.agent);
        scope.cancel();
      })
      .finally(() => {
        run.inFlight = run.inFlight.filter((a) => a !== item.agent);
      }),
  );
  await Promise.all(calls);
  run.inFlight = [];
  return settled.filter((o): o is AgentOutcome => o !== undefined);
}

/**
 * Run `body` (which must schedule its first activities before its first `await`) while the durable
 * timers of the round's `timeout_ms` conditions run on the active clock. When one fires and the whole
 * termination expression then holds, `run.wave.timedOut` is set and `body`'s scope is cancelled, which
 * aborts its in-flight calls.
 */
export async function withDeadlines<T>(run: Run, body: () => Promise<T>): Promise<T> {
  const { state, graph } = run;
  const scope = new CancellationScope();
  const done = scope.run(body);
  const timers = timeoutWaits(run);
  if (timers.length === 0) return done;
  const timerScope = new CancellationScope();
  const watcher = timerScope.run(async () => {
    for (const { waitMs, atMs } of timers) {
      await sleep(waitMs, { summary: summary(SUMMARY_TEXTS.timeout(atMs, state.round.round)) });
      const stop = evaluateTermination(graph.termination, terminationView(state, Date.now()));
      if (stop) {
        run.wave.timedOut = { status: stop.status, reason: stop.reason, reasonText: stop.reasonText };
        scope.cancel();
        return;
      }
    }
  });
  watcher.catch(() => undefined);
  try {
    return await done;
  } finally {
    timerScope.cancel();
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
