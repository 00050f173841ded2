/**
 * troupe's spans inside the workflow (docs/observability.md, "Traces"): each dispatch of an agent is
 * an `invoke_agent` span, the parent of the activities it schedules (its model calls, its tool
 * calls, a nested team's child run), and the run's own span gets its status and reason at the end.
 *
 * Workflow code names only this seam. The hooks are installed by troupe's tracing workflow
 * interceptor (`src/telemetry/workflow-interceptors.ts`), which is bundled only when the worker
 * traces. Without them there is no span and no promise of its own: `openDispatchSpan` returns
 * undefined and `within` calls straight through. With them a span is started, made the active
 * context while the dispatch's calls are scheduled, and ended in the dispatch's `finally`: no promise,
 * no await, so the workflow's commands and their order are the same with tracing on or off; span ids
 * and times come from the workflow's own deterministic random and clock. The active context does not
 * outlive `within`'s synchronous call: an activity the dispatch schedules after an await finds its
 * dispatch by the agent its input names, and a team's child started or signalled after an await is
 * put back in its dispatch with {@link withinDispatchOf}.
 */
import type { TokenCounts } from '../core/conditions/view';
import type { AgentCallResult } from '../core/llm/contract';
import type { WaveItem } from '../core/waves/types';
import type { Run } from './execution';

/** What an `invoke_agent` span starts with. */
export interface DispatchSpanStart {
  agent: string;
  model: string;
  round: number;
  /** How the agent was chosen, when not by an edge: `handoff`, `selected`. */
  via?: string;
  /** The role file of a team agent (its dispatch is a child run). */
  team?: string;
}

/** How a dispatch ended, for its span. */
export type DispatchSpanEnd =
  | { ok: true; usage: TokenCounts; model: string; finishReason?: string; llmCalls: number }
  | { ok: false; error: string };

/** What the run's span gets at the end. */
export interface RunSpanEnd {
  graph: string;
  status: string;
  reason: string;
}

/** A dispatch's open span: run the calls that belong to it `within` it, `end` it once, in a `finally`. */
export interface DispatchSpan {
  /** Runs `fn` with the span active (the activities it schedules are its children); returns `fn`'s own promise. */
  within<T>(fn: () => Promise<T>): Promise<T>;
  end(how: DispatchSpanEnd): void;
}

/** The hooks the tracing workflow interceptor installs. */
export interface WorkflowSpanHooks {
  /** Starts a dispatch's span. */
  dispatch(start: DispatchSpanStart): DispatchSpan;
  /** Sets the run's status and reason on the run's span (`RunWorkflow`). */
  runEnded(end: RunSpanEnd): void;
  /** Runs `fn` with `agent`'s open dispatch span active (none open: as it is); returns `fn`'s own promise. */
  within<T>(agent: string, fn: () => Promise<T>): Promise<T>;
}

/** Where the hooks live: a global of the workflow's own sandbox (each run has its own globals). */
const HOOKS = Symbol.for('troupe.workflowSpanHooks');

/** Installs the hooks for the current run (the tracing workflow interceptor calls it). */
export function installWorkflowSpanHooks(hooks: WorkflowSpanHooks): void {
  (globalThis as Record<symbol, unknown>)[HOOKS] = hooks;
}

/** The hooks, when the worker traces. */
export function workflowSpanHooks(): WorkflowSpanHooks | undefined {
  return (globalThis as Record<symbol, unknown>)[HOOKS] as WorkflowSpanHooks | undefined;
}

/** The `invoke_agent` span of `item`'s dispatch when the worker traces; undefined (nothing at all) otherwise. */
export function openDispatchSpan(run: Run, item: WaveItem): DispatchSpan | undefined {
  const hooks = workflowSpanHooks();
  if (!hooks) return undefined;
  const agent = run.graph.agents[item.agent];
  return hooks.dispatch({
    agent: item.agent,
    model: agent.model.name,
    round: run.state.round.round,
    ...(item.via ? { via: item.via.kind } : {}),
    ...(agent.team ? { team: agent.team.file } : {}),
  });
}

/** `fn()` within `span` when there is one: the very promise `fn` returns either way. */
export function within<T>(span: DispatchSpan | undefined, fn: () => Promise<T>): Promise<T> {
  return span ? span.within(fn) : fn();
}

/**
 * `fn()` within the open dispatch span of `agent`, for a call its dispatch makes after an await that
 * names no agent (a team's child started again, a signal to it); the very promise `fn` returns.
 */
export function withinDispatchOf<T>(agent: string, fn: () => Promise<T>): Promise<T> {
  const hooks = workflowSpanHooks();
  return hooks ? hooks.within(agent, fn) : fn();
}

/** How a dispatch that produced `result` ended, for its span. */
export function dispatchSucceeded(result: AgentCallResult): DispatchSpanEnd {
  return { ok: true, usage: result.usage, model: result.model, llmCalls: result.llmCalls, ...(result.finishReason ? { finishReason: result.finishReason } : {}) };
}

/** Sets the run's status and reason on its span, when the worker traces. */
export function runSpanEnded(end: RunSpanEnd): void {
  workflowSpanHooks()?.runEnded(end);
}
