/**
 * The dispatch of an agent that uses worker tools (docs/semantics.md, "Tools"): a loop that carries out
 * what the decision after each model turn says (`core/llm/next-step.ts`, made inside the `callModel`
 * activity) — run the reply's calls and call the model again, hand off, or end with the final answer.
 * Each model call and each tool call is its own activity, so a crash never repeats a completed call
 * and every call shows in the history. The calls of one reply run concurrently; a call that
 * `approval.tools` names waits for a human first, a wait the round machine sees
 * (`core/run/tool-approval.ts`); the run's tool budget is taken before every call.
 */
import { condition, isCancellation } from '@temporalio/workflow';
import { addUsage, NO_USAGE, takeToolCall, toolCallAllowed } from '../core/budgets/ledger';
import type { TokenCounts } from '../core/conditions/view';
import type { CompiledBudget } from '../core/graph/types';
import { goalSnapshot } from '../core/goals';
import type { AgentCallInput, AgentCallResult, PlannedCall, ToolEvent, Turn } from '../core/llm/contract';
import { afterTools, answerInLoop } from '../core/llm/next-step';
import type { LoopMessage, ToolCallRecord, ToolCallRequest, ToolDefinition } from '../core/llm/tool-contract';
import { shrinkEarlierToolResults, TOOL_CALL_TEXTS } from '../core/llm/tool-calls';
import { closeToolApproval, openToolApproval } from '../core/run/tool-approval';
import { warn } from '../core/state/state';
import { brief } from '../core/text/format';
import type { Run } from './execution';
import { modelCall, tracked } from './calls';
import { failureMessage, toolEndedRun } from './failures';
import { awaitDecision } from './human-gate';
import { activitiesFor, toolActivity } from './proxies';
import { summary, SUMMARY_TEXTS } from '../core/observe/summaries';

/** What one call of a reply produced: the text for the model, and what to record. */
interface CallOutcome {
  content: string;
  event?: ToolEvent;
  record?: ToolCallRecord;
}

/**
 * Run the dispatch of `input`'s agent, whose worker tools are `specs`, and return it as one agent
 * result. `input` is what the agent activity would get: its messages, its offer, its schema.
 */
export async function dispatchWithTools(run: Run, input: AgentCallInput, specs: readonly ToolDefinition[], label: string): Promise<AgentCallResult> {
  const { state } = run;
  const { agent, offer } = input;
  let messages: LoopMessage[] = [...input.messages];
  let usage: TokenCounts = NO_USAGE;
  let llmCalls = 0;
  const warnings: string[] = [];
  const toolEvents: ToolEvent[] = [];
  const records: ToolCallRecord[] = [];
  let model = input.model.name;
  const callModel = activitiesFor(input.timeoutMs).callModel;

  for (let turn: Turn = { round: 0 }; ; ) {
    const step = {
      workflowId: input.workflowId,
      agent,
      model: input.model,
      messages,
      offer,
      turn,
      ...(input.responseSchema ? { responseSchema: input.responseSchema } : {}),
      timeoutMs: input.timeoutMs,
    };
    const stepLabel = SUMMARY_TEXTS.toolLoopStep(label, turn.round + 1);
    const reply = await modelCall(run, { kind: 'agent', agent, label: stepLabel }, () => callModel.executeWithOptions({ summary: summary(stepLabel) }, [step]));
    usage = addUsage(usage, reply.usage);
    llmCalls += reply.llmCalls ?? 1;
    warnings.push(...reply.warnings);
    model = reply.model || model;
    const next = reply.next;
    const ended = (text: string, transfer?: ToolEvent): AgentCallResult => ({
      text,
      toolEvents: transfer ? [...toolEvents, transfer] : toolEvents,
      usage,
      llmCalls,
      model,
      ...(next.finishReason ? { finishReason: next.finishReason } : {}),
      warnings,
      toolCalls: records,
    });
    // `stop` ends the dispatch at the next reply: its calls do not run
    if (next.kind === 'final' || state.stop) return ended(next.text);
    messages.push({ role: 'assistant', content: next.text || null, toolCalls: next.calls.map(requested) });
    // the goal as it stands now: a signal may have changed it since the dispatch began
    const goal = state.goal && offer.builtins?.includes('goal') ? goalSnapshot(state.goal) : undefined;
    const outcomes = await Promise.all(next.calls.map((call): CallOutcome | Promise<CallOutcome> => answerInLoop(call, offer, goal) ?? runCall(run, input, call, specs)));
    outcomes.forEach((o, i) => {
      messages.push({ role: 'tool', toolCallId: next.calls[i].id, content: o.content });
      if (o.event) toolEvents.push(o.event);
      if (o.record) records.push(o.record);
    });
    // a transfer ends the turn: the reply's other calls ran, and no further model call is made
    if (next.kind === 'hand_off') return ended(next.text, next.transfer);
    // a call the tool budget refused: the model gets one more answer, with no tools
    turn = afterTools(turn, (state.usage.toolCalls?.refused ?? 0) > 0);
    messages = shrinkEarlierToolResults(messages);
  }
}

/** A planned call as the assistant message records it: what the model asked for. */
function requested(call: PlannedCall): ToolCallRequest {
  return { id: call.id, name: call.name, arguments: call.arguments, ...(call.asText ? { asText: true as const } : {}) };
}

/** One call of a worker tool: after its approval when it is gated, within the run's tool budget and its bound on pending calls. */
async function runCall(run: Run, input: AgentCallInput, call: PlannedCall, specs: readonly ToolDefinition[]): Promise<CallOutcome> {
  const { graph, state } = run;
  const { agent } = input;
  const spec = specs.find((s) => s.name === call.name)!;
  const started = Date.now();
  const gated = call.run === 'worker' && call.gated === true;
  // what runs: the model's text, or (a gated call) the arguments exactly as the human saw them
  let argumentsJson = call.arguments;
  const done = (ok: boolean, content: string, ran = true): CallOutcome => ({
    content,
    record: {
      tool: spec.yamlName,
      arguments: gated ? argumentsJson : brief(argumentsJson),
      ok,
      result: brief(content),
      durationMs: Date.now() - started,
      ...(ran ? {} : { ran: false as const }),
    },
  });
  const refuse = () => {
    takeToolCall(state.usage, toolBudget(run), agent, spec.yamlName); // counts the refusal
    return done(false, TOOL_CALL_TEXTS.refusedByBudget(graph.budget.maxToolCalls ?? 0), false);
  };
  // the budget is asked before a human is (no point approving a call that cannot run), and taken after
  if (!toolCallAllowed(state.usage, toolBudget(run))) return refuse();
  if (gated) {
    const gate = openToolApproval(run.machine, { agent, tool: spec.yamlName, name: spec.name, arguments: call.arguments, asText: call.asText === true }, Date.now());
    if (!gate.ok) return done(false, gate.answer, false);
    argumentsJson = gate.arguments;
    let verdict;
    try {
      await awaitDecision(run, gate.requestId);
    } finally {
      verdict = closeToolApproval(run.machine, gate.requestId);
    }
    if (verdict.kind === 'reject') return done(false, TOOL_CALL_TEXTS.rejected(verdict.reason), false);
    if (verdict.kind === 'stopped') return done(false, TOOL_CALL_TEXTS.rejected('the run is stopping'), false);
  }
  if (!takeToolCall(state.usage, toolBudget(run), agent, spec.yamlName)) return done(false, TOOL_CALL_TEXTS.refusedByBudget(graph.budget.maxToolCalls ?? 0), false);
  const release = await toolSlot(run);
  try {
    const label = SUMMARY_TEXTS.toolCall(spec.yamlName, agent);
    const result = await tracked(run, { kind: 'tool', agent, tool: spec.yamlName, label }, () => toolActivity(spec, label)({
      workflowId: state.workflowId,
      agent,
      tool: spec.name,
      argumentsJson,
      toolCallId: call.id,
      timeoutMs: spec.timeoutMs,
    }));
    if (result.truncatedBytes) warn(state, TOOL_CALL_TEXTS.truncatedResult(agent, spec.yamlName, result.truncatedBytes));
    if (result.kind === 'error') warn(state, TOOL_CALL_TEXTS.toolFailedWarning(agent, spec.yamlName, brief(result.text)));
    return done(result.kind === 'ok', result.text);
  } catch (err) {
    if (isCancellation(err) || toolEndedRun(err)) throw err;
    const message = failureMessage(err);
    warn(state, TOOL_CALL_TEXTS.toolFailedWarning(agent, spec.yamlName, message));
    return done(false, TOOL_CALL_TEXTS.failed(spec.yamlName, message));
  } finally {
    release();
  }
}

/**
 * The tool budget this run's agents draw on now: `max_tool_calls` less the calls held for the team
 * agents in flight in the same wave (`core/budgets/shares.ts`).
 */
function toolBudget(run: Run): CompiledBudget {
  const { budget } = run.graph;
  const reserved = run.reservedToolCalls ?? 0;
  return budget.maxToolCalls === undefined || reserved === 0 ? budget : { ...budget, maxToolCalls: budget.maxToolCalls - reserved };
}

/**
 * Most tool calls one run keeps scheduled at once; the rest wait for a slot. Temporal fails every
 * workflow task of a run past 2,000 pending activities: with at most 256 agents (one model call or
 * compaction each) and their judges, 1,024 tool calls keep a wave under it (docs/semantics.md, "Bounds on hostile input").
 */
export const MAX_PENDING_TOOL_CALLS = 1024;

/**
 * Wait for a slot among the run's pending tool calls ({@link MAX_PENDING_TOOL_CALLS}) and take it; the
 * returned function gives it back. Every waiter's condition holds once one slot frees, so each looks
 * again when it wakes: only as many as there are free slots take one.
 */
async function toolSlot(run: Run): Promise<() => void> {
  while (run.pendingToolCalls >= MAX_PENDING_TOOL_CALLS) await condition(() => run.pendingToolCalls < MAX_PENDING_TOOL_CALLS);
  run.pendingToolCalls += 1;
  return () => {
    run.pendingToolCalls -= 1;
  };
}
