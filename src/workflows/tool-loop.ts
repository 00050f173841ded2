/**
 * One dispatch of an agent that uses worker tools: call the model; while its reply asks for tools,
 * run them and send their results back; the dispatch ends on a reply with no tool call
 * (docs/semantics.md, "Tools"). Each model call and each tool call is its own activity, so a crash
 * never repeats a completed call and every call shows in the history. The calls of one reply run
 * concurrently; a call that `approval.tools` names waits for a human first; the run's tool budget is
 * taken before every call.
 */
import { condition, isCancellation } from '@temporalio/workflow';
import { addUsage, NO_USAGE, takeToolCall, toolCallAllowed } from '../core/budgets/ledger';
import type { TokenCounts } from '../core/conditions/view';
import type { CompiledBudget } from '../core/graph/types';
import { goalSnapshot } from '../core/goals';
import { openHumanRequest } from '../core/humans/decisions';
import { takeDecided } from '../core/humans/requests';
import { DEFAULT_PARALLEL_TOOL_CALLS } from '../core/config/limits';
import { readToolArguments, TOOL_ARGUMENT_LIMITS, TOOL_ARGUMENT_TEXTS } from '../core/llm/tool-arguments';
import { builtinToolsOf, handleToolCall } from '../core/llm/builtin-tools';
import type { AgentCallResult, ChatMessage, HandoffTool, ToolEvent } from '../core/llm/contract';
import { handoffDefinition, handoffTools, replyTransfers } from '../core/teams/handoffs';
import type { LoopMessage, ToolCallRecord, ToolCallRequest, ToolDefinition } from '../core/llm/tool-contract';
import {
  brief,
  modelTools,
  needsApproval,
  normalizeCallIds,
  shrinkEarlierToolResults,
  TOOL_LOOP_TEXTS,
} from '../core/llm/tool-loop';
import { warn } from '../core/state/state';
import { cutUtf8, utf8ByteLength } from '../core/text/utf8';
import type { WaveItem } from '../core/waves/types';
import type { Run } from './execution';
import { modelCall, tracked } from './calls';
import { failureMessage, toolEndedRun } from './failures';
import { awaitDecision } from './human-gate';
import { activitiesFor, toolActivity } from './proxies';
import { summary, SUMMARY_TEXTS } from '../core/observe/summaries';

/** Largest final text of a dispatch, as the agent activity cuts it. */
const MAX_TEXT_BYTES = 256 * 1024;

/** What one call of a reply produced: the text for the model, and what to record. */
interface CallOutcome {
  content: string;
  event?: ToolEvent;
  record?: ToolCallRecord;
}

/** Run the tool loop of one dispatch and return it as one agent result. */
export async function runToolLoop(
  run: Run,
  item: WaveItem,
  prompt: ChatMessage[],
  specs: ToolDefinition[],
  label: string,
  responseSchema?: Record<string, unknown>,
): Promise<AgentCallResult> {
  const { graph, state } = run;
  const agent = graph.agents[item.agent];
  const handoffs = handoffTools(graph, item.agent);
  const tools = [...modelTools(agent.tools, specs), ...handoffs.map(handoffDefinition)];
  const maxRounds = agent.maxToolRounds ?? 8;
  let messages: LoopMessage[] = [...prompt];
  let usage: TokenCounts = NO_USAGE;
  let llmCalls = 0;
  let closing = false;
  const warnings: string[] = [];
  const toolEvents: ToolEvent[] = [];
  const records: ToolCallRecord[] = [];
  let text = '';
  let model = agent.model.name;
  let finishReason: string | undefined;

  for (let round = 0; ; round++) {
    const last = closing || round >= maxRounds;
    const input = {
      workflowId: state.workflowId,
      agent: item.agent,
      model: agent.model,
      messages,
      tools,
      // `tool_choice: required` holds for the first call of a dispatch, then the model may answer
      ...(last ? { toolChoice: 'none' as const } : round === 0 && agent.toolChoice ? { toolChoice: agent.toolChoice } : {}),
      ...(responseSchema ? { responseSchema } : {}),
      timeoutMs: agent.timeoutMs,
    };
    const stepLabel = SUMMARY_TEXTS.toolLoopStep(label, round + 1);
    const callModel = activitiesFor(agent.timeoutMs).callModel;
    const reply = await modelCall(run, { kind: 'agent', agent: item.agent, label: stepLabel }, () => callModel.executeWithOptions({ summary: summary(stepLabel) }, [input]));
    usage = addUsage(usage, reply.usage);
    llmCalls += reply.llmCalls ?? 1;
    warnings.push(...reply.warnings);
    text = reply.text;
    model = reply.model || model;
    finishReason = reply.finishReason;
    if (reply.toolCalls.length === 0 || state.stop) break;
    if (last) {
      warnings.push(TOOL_LOOP_TEXTS.closingCallIgnored(item.agent, round));
      break;
    }
    const calls = normalizeCallIds(reply.toolCalls, round);
    messages.push({ role: 'assistant', content: reply.text || null, toolCalls: calls });
    // a reply's calls past the agent's bound never run: each gets an error text instead
    const limit = agent.maxParallelToolCalls ?? DEFAULT_PARALLEL_TOOL_CALLS;
    if (calls.length > limit) warn(state, TOOL_LOOP_TEXTS.tooManyCallsWarning(item.agent, calls.length, limit));
    const transfers = replyTransfers(calls.slice(0, limit), handoffs);
    const outcomes = await Promise.all(
      calls.map((call, i): CallOutcome | Promise<CallOutcome> => {
        if (i >= limit) return { content: TOOL_LOOP_TEXTS.tooManyCalls(limit) };
        const transfer = transfers.results.get(i);
        return transfer !== undefined ? { content: transfer } : runCall(run, item.agent, call, specs, handoffs);
      }),
    );
    outcomes.forEach((o, i) => {
      messages.push({ role: 'tool', toolCallId: calls[i].id, content: o.content });
      if (o.event) toolEvents.push(o.event);
      if (o.record) records.push(o.record);
    });
    // a transfer ends the turn: the reply's other calls ran, and no further model call is made
    if (transfers.event) {
      toolEvents.push(transfers.event);
      break;
    }
    // a call the tool budget refused: the model gets one more answer, with no tools
    if (state.usage.toolCalls && state.usage.toolCalls.refused > 0) closing = true;
    messages = shrinkEarlierToolResults(messages);
  }

  const bounded = cutUtf8(text, MAX_TEXT_BYTES);
  if (bounded.droppedBytes > 0) warnings.push(TOOL_LOOP_TEXTS.truncatedText(item.agent, bounded.droppedBytes, MAX_TEXT_BYTES));
  return {
    text: bounded.text,
    toolEvents,
    usage,
    llmCalls,
    model,
    ...(finishReason ? { finishReason } : {}),
    warnings,
    toolCalls: records,
  };
}

/** One call of a reply: a built-in tool, a worker tool (after its approval), or an unknown tool. */
async function runCall(run: Run, agent: string, call: ToolCallRequest, specs: ToolDefinition[], handoffs: HandoffTool[]): Promise<CallOutcome> {
  const { graph, state } = run;
  const compiled = graph.agents[agent];
  const builtins = builtinToolsOf(compiled.tools);
  if ((builtins as string[]).includes(call.name)) {
    const outcome = handleToolCall(call.name, call.arguments, {
      offered: builtins,
      ...(state.goal && builtins.includes('goal') ? { goal: goalSnapshot(state.goal) } : {}),
    });
    return outcome.kind === 'ok' ? { content: outcome.result, event: outcome.event } : { content: outcome.result };
  }
  const spec = specs.find((s) => s.name === call.name);
  if (!spec) {
    const offered = [...builtins, ...specs.map((s) => s.name), ...handoffs.map((h) => h.name)];
    warn(state, TOOL_LOOP_TEXTS.unknownToolWarning(agent, call.name));
    return { content: TOOL_LOOP_TEXTS.unknownTool(call.name, offered) };
  }
  const started = Date.now();
  const gated = needsApproval(graph.approval.tools, spec.yamlName);
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
    return done(false, TOOL_LOOP_TEXTS.refusedByBudget(graph.budget.maxToolCalls ?? 0), false);
  };
  // the budget is asked before a human is (no point approving a call that cannot run), and taken after
  if (!toolCallAllowed(state.usage, toolBudget(run))) return refuse();
  if (gated) {
    const shown = approvable(state, agent, spec, call.arguments);
    if (!shown.ok) return done(false, shown.content, false);
    argumentsJson = shown.json;
    const decision = await askHuman(run, agent, spec, argumentsJson, call.asText === true);
    if (decision.kind === 'reject') return done(false, TOOL_LOOP_TEXTS.rejected(decision.text ?? ''), false);
    if (decision.kind === 'stopped') return done(false, TOOL_LOOP_TEXTS.rejected('the run is stopping'), false);
  }
  if (!takeToolCall(state.usage, toolBudget(run), agent, spec.yamlName)) return done(false, TOOL_LOOP_TEXTS.refusedByBudget(graph.budget.maxToolCalls ?? 0), false);
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
    if (result.truncatedBytes) warn(state, TOOL_LOOP_TEXTS.truncatedResult(agent, spec.yamlName, result.truncatedBytes));
    if (result.kind === 'error') warn(state, TOOL_LOOP_TEXTS.toolFailedWarning(agent, spec.yamlName, brief(result.text)));
    return done(result.kind === 'ok', result.text);
  } catch (err) {
    if (isCancellation(err) || toolEndedRun(err)) throw err;
    const message = failureMessage(err);
    warn(state, TOOL_LOOP_TEXTS.toolFailedWarning(agent, spec.yamlName, message));
    return done(false, TOOL_LOOP_TEXTS.failed(spec.yamlName, message));
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
 * The arguments of a gated call as a human will see them and the tool will get them: read strictly
 * (a repeated key or text that is not a JSON object is an error for the model) and small enough to be
 * shown whole; otherwise the text the model reads instead, with a warning.
 */
function approvable(state: Run['state'], agent: string, spec: ToolDefinition, text: string): { ok: true; json: string } | { ok: false; content: string } {
  const read = readToolArguments(text);
  const content = !read.ok
    ? TOOL_ARGUMENT_TEXTS.invalid(spec.name, [read.error])
    : utf8ByteLength(read.json) > TOOL_ARGUMENT_LIMITS.approvalBytes
      ? TOOL_ARGUMENT_TEXTS.tooLargeToApprove(spec.yamlName, utf8ByteLength(read.json))
      : undefined;
  if (read.ok && content === undefined) return { ok: true, json: read.json };
  warn(state, TOOL_LOOP_TEXTS.notOffered(agent, spec.yamlName, brief(content ?? '')));
  return { ok: false, content: content ?? '' };
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

type HumanAnswer = { kind: 'approve' | 'reject' | 'answer'; text?: string } | { kind: 'stopped' };

/**
 * Open a `tool_call` request with the arguments exactly as the tool will get them (its digest covers
 * them: only a decision naming it decides), and wait for its decision at the human gate
 * (`human-gate.ts`); `stop` ends the wait (the call is not run). A call the model wrote as text
 * (`asText`) says so in the summary and the payload: the approver is told the call was read from the
 * reply's text, not made.
 */
async function askHuman(run: Run, agent: string, spec: ToolDefinition, argumentsJson: string, asText: boolean): Promise<HumanAnswer> {
  const { state } = run;
  const summaryOf = asText ? TOOL_LOOP_TEXTS.requestSummaryAsText : TOOL_LOOP_TEXTS.requestSummary;
  const request = openHumanRequest(state, {
    kind: 'tool_call',
    agent,
    summary: summaryOf(agent, spec.yamlName, brief(argumentsJson)),
    payload: { tool: spec.yamlName, arguments: argumentsJson, ...(asText ? { writtenAsText: true } : {}) },
    gate: { tool: spec.yamlName, text: argumentsJson },
    now: Date.now(),
  });
  await awaitDecision(run, request.id);
  const [decided] = takeDecided(state, (r) => r.id === request.id);
  if (!decided?.decision) return { kind: 'stopped' };
  return { kind: decided.decision.kind, ...(decided.decision.text !== undefined ? { text: decided.decision.text } : {}) };
}
