/**
 * What one agent's dispatch sends: its messages (built by the pure prompt builder, with older context
 * compacted into its rolling summary first when it would not fit its model's window), what it offers
 * the model (`turnOffer`, `core/llm/next-step.ts`) and the input of its activity — `callAgent`, or the tool dispatch
 * (`tool-dispatch.ts`) for an agent with worker tools.
 */
import { recordCall, addUsage } from '../core/budgets/ledger';
import { describeTermination } from '../core/conditions/describe';
import { scoreReaders } from '../core/conditions/walk';
import { ENDS } from '../core/ending/decide';
import type { RunEnd } from '../core/ending/result';
import { RUN_END_TEXTS } from '../core/ending/texts';
import { goalSnapshot } from '../core/goals';
import type { CompiledGraph } from '../core/graph/types';
import type { AgentCallInput } from '../core/llm/contract';
import { turnOffer } from '../core/llm/next-step';
import { summary, SUMMARY_TEXTS, type CallPosition } from '../core/observe/summaries';
import { planContext } from '../core/prompts/bounds';
import { buildAgentMessages, outputSchemaFor, type PromptNote } from '../core/prompts/build';
import type { DispatchOptions } from '../core/run/types';
import { takeNotes, warn } from '../core/state/state';
import { iterationOf, type WaveItem } from '../core/waves/routing';
import { isCancellation } from '@temporalio/workflow';
import { modelCall } from './calls';
import type { Run } from './execution';
import { diagnosticsOf } from './failures';
import { activitiesFor } from './proxies';
import { meterCall } from './run-metrics';

/** Consecutive compaction failures that trip the breaker. */
export const COMPACTION_BREAKER = 3;

/** An agent's messages, or the end of a run whose agent's prompt cannot be prepared. */
export type Prepared = { ok: true; messages: ReturnType<typeof buildAgentMessages> } | { ok: false; end: RunEnd };

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
  if (!plan.fits) return { ok: false, end: ENDS.windowExceeded(agent, plan.estimatedTokens, window ?? 0) };
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
      const compacted = await modelCall(run, { kind: 'compaction', agent: item.agent, label }, () => compact.executeWithOptions({ summary: summary(label) }, [input]));
      recordCall(state.usage, {
        kind: 'compaction',
        agent: item.agent,
        model: agent.model.name,
        usage: compacted.usage,
        round: state.round.round,
        pricing: graph.pricing,
      });
      meterCall(graph, { kind: 'compaction', agent: item.agent, model: agent.model.name, usage: compacted.usage });
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
      warn(state, RUN_END_TEXTS.compactionFailed(item.agent, state.compactionFailures));
      if (state.compactionFailures >= COMPACTION_BREAKER) {
        return { ok: false, end: ENDS.compactionBreaker(state.compactionFailures, diagnosticsOf(err, item.agent)) };
      }
    }
  }
  return fitted(plan, item.agent, window);
}

/** Where an agent's dispatch sits in the run, for its activity labels. */
export function positionOf(run: Run, agent: string, via?: WaveItem['via']): CallPosition {
  const { graph, state } = run;
  const inLoop = graph.loopGroups.some((g) => g.nodes.includes(agent));
  return {
    agent,
    round: state.round.round,
    wave: state.round.wave,
    ...(inLoop ? { iteration: iterationOf(graph, agent, state.round.loopCounters) } : {}),
    ...(via ? { via } : {}),
  };
}

/**
 * The response schema of an agent's every call: the role's output schema for a final agent without
 * tools (its prompt carries the schema too). An agent with tools gets it only on a schema retry: an
 * endpoint that enforces a schema by grammar could not call a tool under it.
 */
function firstCallSchema(graph: CompiledGraph, agent: string): Record<string, unknown> | undefined {
  return graph.agents[agent].tools.length === 0 ? outputSchemaFor(graph, agent) : undefined;
}

/** What to call for an agent whose messages are ready: its label, its offer, its worker tools (none: `callAgent`) and its `callAgent` input. */
export function agentCall(run: Run, item: WaveItem, messages: ReturnType<typeof buildAgentMessages>, options: DispatchOptions) {
  const { graph, state } = run;
  const agent = graph.agents[item.agent];
  const position = positionOf(run, item.agent, item.via);
  const label = options.retryFor ? SUMMARY_TEXTS.retry(position, options.retryFor) : SUMMARY_TEXTS.agentCall(position);
  const specs = state.tools?.[item.agent] ?? [];
  const offer = turnOffer(graph, item.agent, specs);
  const input: AgentCallInput = {
    workflowId: state.workflowId,
    agent: item.agent,
    model: agent.model,
    messages,
    offer,
    goal: state.goal && agent.tools.includes('goal') ? goalSnapshot(state.goal) : undefined,
    responseSchema: options.responseSchema ?? firstCallSchema(graph, item.agent),
    timeoutMs: agent.timeoutMs,
  };
  return { label, specs: specs.length > 0 ? specs : undefined, input, callAgent: activitiesFor(agent.timeoutMs).callAgent };
}

/**
 * Start dispatching a wave: the notes each agent reads (its own, then the broadcast, which is
 * consumed), and the agents listed in flight.
 */
export function openWave(run: Run, items: WaveItem[], options: DispatchOptions = {}): PromptNote[][] {
  const { state } = run;
  const broadcast = state.broadcast;
  state.broadcast = [];
  run.inFlight = items.map((i) => i.agent);
  return items.map((item) => [...(options.notes?.[item.agent] ?? []), ...takeNotes(state, item.agent, broadcast)]);
}
