/**
 * The one decision after a model turn (docs/semantics.md, "Agent calls" and "Tools"), as the OpenAI
 * Agents runner's `NextStep`, and what it reads: what a dispatch offers the model ({@link turnOffer}:
 * the built-in tools, the worker tools, each marked when `approval.tools` gates it, the transfers and
 * the bounds of its tool loop, built once per dispatch for the agent activity and the tool dispatch
 * alike). Given the reply and what was offered, what happens next — ask once more
 * (`follow-ups.ts`), the final answer, run these tools (which need a human first), or hand off (the
 * first transfer is made, the others refused). The agent activity (`activities/agent.ts`), the
 * model-call activity (`activities/model.ts`) and the workflow's tool dispatch
 * (`workflows/tool-dispatch.ts`) are loops that carry the answer out; none decides on its own. Where
 * the dispatch stands between turns is here too: the request of its next call ({@link nextRequest},
 * the closing call after `max_tool_rounds`) and the turn after a tool round ({@link afterTools}).
 * Pure; warnings go to the caller's list.
 */
import type { GoalSnapshot, NextStep, PlannedCall, ToolEvent, Turn, TurnOffer } from './contract';
import { builtinToolsOf, handleToolCall, toolDefinitions } from './builtin-tools';
import { followUp, type FollowUpsUsed } from './follow-ups';
import { workerFunctionTool, type ToolCallRequest, type ToolDefinition, type WorkerFunctionTool } from './tool-contract';
import { handoffDefinition, handoffTools, replyTransfers } from '../teams/handoffs';
import { cutUtf8 } from '../text/utf8';
import { DEFAULT_PARALLEL_TOOL_CALLS } from '../config/limits';
import type { CompiledGraph } from '../graph/types';
import { needsApproval } from './tool-calls';

/**
 * Bounds of a turn's outcome.
 * @internal exported for tests
 */
export const TURN_LIMITS = {
  /** Largest final text of a dispatch, in UTF-8 bytes. */
  maxTextBytes: 256 * 1024,
} as const;

/** The warnings and tool results the decision leaves, so tests pin them. */
export const TURN_TEXTS = {
  truncated: (agent: string, dropped: number, limit: number) => `agent ${agent}: output cut to ${limit} bytes (${dropped} bytes dropped)`,
  lengthFinish: (agent: string) => `agent ${agent}: the reply stopped at the max_tokens limit (finish_reason length); raise model.max_tokens`,
  refusal: (agent: string) => `agent ${agent}: the model refused; its refusal is the result`,
  unofferedTools: (agent: string) => `agent ${agent}: the model called tools although none were offered; ignored`,
  closingCallIgnored: (agent: string, rounds: number) =>
    `agent ${agent}: tool calls requested after ${rounds} tool rounds (max_tool_rounds) were ignored`,
  unknownTool: (name: string, offered: readonly string[]) =>
    `Error: unknown tool '${name}'. Available tools: ${offered.length > 0 ? offered.join(', ') : 'none'}.`,
  unknownToolWarning: (agent: string, name: string) => `agent ${agent}: the model called ${name}, which it was not offered`,
  tooManyCalls: (limit: number) =>
    `Error: this reply asked for more than ${limit} tool calls (max_parallel_tool_calls); this call was not run. Ask for fewer calls at once.`,
  tooManyCallsWarning: (agent: string, calls: number, limit: number) =>
    `agent ${agent}: a reply asked for ${calls} tool calls; the ${calls - limit} past max_parallel_tool_calls (${limit}) were not run`,
} as const;

/** What the decision reads besides the reply: who is asked, what was offered, where the dispatch is. */
export interface TurnSetting {
  agent: string;
  offer: TurnOffer;
  turn: Turn;
  /** false: the model's `text_tool_calls: off` (no call written as text is read). */
  textCalls: boolean;
}

/** A model's reply, as the decision reads it. */
export interface ModelReply {
  /** The reply's text (empty when it has none). */
  text: string;
  /** The function calls it made, in order. */
  calls: ReadonlyArray<{ id?: string; name: string; arguments: string }>;
  finishReason?: string | null;
  /** The model's refusal, when it refused. */
  refusal?: string | null;
  /** The texts of the request's messages that are not the model's own (a call written as text must not be a quote of one); read only when needed. */
  given: () => readonly string[];
}

/** Whether the next call of the dispatch is the closing one: tools were offered and the rounds are used up, or the budget refused a call. */
function closingCall(offer: TurnOffer, turn: Turn): boolean {
  return offeredNames(offer).length > 0 && (turn.closing === true || turn.round >= offer.maxToolRounds);
}

/**
 * The `tool_choice` of the dispatch's next model call: `none` for the closing call, `required` for
 * the first call of an agent that must call a tool first (after the first tool round it may answer).
 */
export function nextRequest(offer: TurnOffer, turn: Turn): { toolChoice?: 'none' | 'required' } {
  if (closingCall(offer, turn)) return { toolChoice: 'none' };
  return turn.round === 0 && offer.toolChoice === 'required' ? { toolChoice: 'required' } : {};
}

/** The turn after a tool round; `refused`: the tool budget refused a call, so the model answers once more without tools. */
export function afterTools(turn: Turn, refused: boolean): Turn {
  return { round: turn.round + 1, ...(turn.closing || refused ? { closing: true as const } : {}) };
}

/**
 * What happens after `reply`. `used` holds the follow-ups the model call already asked (this function
 * records the one it asks); warnings go to `warnings`.
 */
export function nextStep(at: TurnSetting, reply: ModelReply, used: FollowUpsUsed, warnings: string[]): NextStep {
  const { agent, offer, turn } = at;
  const offered = offeredNames(offer);
  const closing = closingCall(offer, turn);
  const finishReason = reply.finishReason ?? undefined;
  let calls: ToolCallRequest[] = reply.calls.map((c) => ({ id: c.id ?? '', name: c.name, arguments: c.arguments }));
  let written = false;
  if (calls.length === 0) {
    const mustCall = !closing && turn.round === 0 && offer.toolChoice === 'required';
    const refused = Boolean(reply.refusal);
    const next = followUp(agent, offered, at.textCalls, { text: reply.text, finishReason, refused, given: reply.given }, { mustCall, toolsOff: closing }, used);
    warnings.push(...next.warnings);
    switch (next.kind) {
      case 'ask':
        return { kind: 'ask_again', reply: reply.text, request: next.request };
      case 'stands':
        break;
      case 'call':
        calls = [{ id: '', name: next.name, arguments: next.arguments, asText: true }];
        written = true;
        break;
      default: {
        const never: never = next;
        return never;
      }
    }
  }
  // a call written as text is the whole reply: it has no other text, and ends as a made call does;
  // any other reply's text goes after a reply it continued (cut at max_tokens), or is its refusal
  const text = written ? '' : withRefusal(agent, `${used.continued ?? ''}${reply.text}`, reply.refusal, warnings);
  const finish = written ? 'tool_calls' : finishReason;
  if (calls.length === 0) return final(agent, text, finish, warnings);
  if (offered.length === 0) {
    warnings.push(TURN_TEXTS.unofferedTools(agent));
    return final(agent, text, finish, warnings);
  }
  if (closing) {
    warnings.push(TURN_TEXTS.closingCallIgnored(agent, turn.round));
    return final(agent, text, finish, warnings);
  }
  if (finish === 'length') warnings.push(TURN_TEXTS.lengthFinish(agent));
  const { planned, transfer } = planCalls(at, normalizeCallIds(calls, turn.round), warnings);
  const outcome = finish ? { finishReason: finish } : {};
  if (!transfer) return { kind: 'run_tools', text, calls: planned, ...outcome };
  return { kind: 'hand_off', text: finalText(agent, text, warnings), calls: planned, transfer, ...outcome };
}

/**
 * How each call of a reply is carried out: the first `max_parallel_tool_calls` run (a built-in, a
 * worker tool, gated or not), the rest are answered with an error; among those that run, the first
 * transfer is made and any other refused (`core/teams/handoffs.ts`); a tool not offered is answered
 * with what was.
 */
function planCalls(at: TurnSetting, calls: ToolCallRequest[], warnings: string[]): { planned: PlannedCall[]; transfer?: ReturnType<typeof replyTransfers>['event'] } {
  const { agent, offer } = at;
  const limit = offer.maxParallelToolCalls;
  if (calls.length > limit) warnings.push(TURN_TEXTS.tooManyCallsWarning(agent, calls.length, limit));
  const transfers = replyTransfers(calls.slice(0, limit), offer.handoffs ?? []);
  const planned = calls.map((call, i): PlannedCall => {
    if (i >= limit) return { ...call, run: 'past_limit' };
    const answer = transfers.results.get(i);
    if (answer !== undefined) return { ...call, run: 'transfer', answer };
    if ((offer.builtins ?? []).some((b) => b === call.name)) return { ...call, run: 'builtin' };
    const worker = (offer.workerTools ?? []).find((t) => t.definition.function.name === call.name);
    if (worker) return { ...call, run: 'worker', ...(worker.gated ? { gated: true as const } : {}) };
    warnings.push(TURN_TEXTS.unknownToolWarning(agent, call.name));
    return { ...call, run: 'unknown' };
  });
  return { planned, ...(transfers.event ? { transfer: transfers.event } : {}) };
}

/** The tool result of a call that runs nothing (a transfer, an unknown tool, one past the reply's bound); undefined for a call that runs. */
export function answerWithoutRunning(call: PlannedCall, offer: TurnOffer): string | undefined {
  switch (call.run) {
    case 'transfer':
      return call.answer;
    case 'unknown':
      return TURN_TEXTS.unknownTool(call.name, offeredNames(offer));
    case 'past_limit':
      return TURN_TEXTS.tooManyCalls(offer.maxParallelToolCalls);
    case 'builtin':
    case 'worker':
      return undefined;
    default: {
      const never: never = call;
      return never;
    }
  }
}

/**
 * The answer of a call the loop gives itself: a built-in tool's (with its event, when the call is
 * valid, against `goal` as it stands) or that of a call that runs nothing; undefined for a worker
 * tool, which runs as its own activity.
 */
export function answerInLoop(call: PlannedCall, offer: TurnOffer, goal: GoalSnapshot | undefined): { content: string; event?: ToolEvent } | undefined {
  const given = answerWithoutRunning(call, offer);
  if (given !== undefined) return { content: given };
  if (call.run !== 'builtin') return undefined;
  const outcome = handleToolCall(call.name, call.arguments, { offered: offer.builtins ?? [], ...(goal ? { goal } : {}) });
  return outcome.kind === 'ok' ? { content: outcome.result, event: outcome.event } : { content: outcome.result };
}

/** The reply's text, or its refusal when it has none (with a warning). */
function withRefusal(agent: string, text: string, refusal: string | null | undefined, warnings: string[]): string {
  if (text !== '' || !refusal) return text;
  warnings.push(TURN_TEXTS.refusal(agent));
  return refusal;
}

/** A final answer: its text within its bound, and a warning when it stopped at `max_tokens`. */
function final(agent: string, text: string, finishReason: string | undefined, warnings: string[]): NextStep {
  const bounded = finalText(agent, text, warnings);
  if (finishReason === 'length') warnings.push(TURN_TEXTS.lengthFinish(agent));
  return { kind: 'final', text: bounded, ...(finishReason ? { finishReason } : {}) };
}

/** A dispatch's final text: cut to {@link TURN_LIMITS}.maxTextBytes with a marker and a warning. */
export function finalText(agent: string, text: string, warnings: string[]): string {
  const bounded = cutUtf8(text, TURN_LIMITS.maxTextBytes);
  if (bounded.droppedBytes > 0) warnings.push(TURN_TEXTS.truncated(agent, bounded.droppedBytes, TURN_LIMITS.maxTextBytes));
  return bounded.text;
}

/**
 * Call ids the loop can rely on: some endpoints omit them or repeat them (and a call written as text
 * has none), while every call needs its own answer. A missing or repeated id becomes
 * `call_<round>_<index>` (with `_2`, `_3`, … when the endpoint itself used that one).
 */
export function normalizeCallIds(calls: readonly ToolCallRequest[], round: number): ToolCallRequest[] {
  const given = new Set(calls.map((c) => c.id));
  const seen = new Set<string>();
  return calls.map((c, i) => {
    let id = c.id;
    if (!id || seen.has(id)) {
      id = `call_${round}_${i}`;
      for (let n = 2; given.has(id) || seen.has(id); n += 1) id = `call_${round}_${i}_${n}`;
    }
    seen.add(id);
    return { ...c, id };
  });
}

/** The offer of agent `agent`'s dispatch, whose worker tools (resolved at the run's start) are `specs`. */
export function turnOffer(graph: CompiledGraph, agent: string, specs: readonly ToolDefinition[] = []): TurnOffer {
  const compiled = graph.agents[agent];
  const builtins = builtinToolsOf(compiled.tools);
  const handoffs = handoffTools(graph, agent);
  const workerTools = specs.map((spec) => ({
    definition: workerFunctionTool(spec),
    ...(needsApproval(graph.approval.tools, spec.yamlName) ? { gated: true as const } : {}),
  }));
  return {
    ...(builtins.length > 0 ? { builtins } : {}),
    ...(workerTools.length > 0 ? { workerTools } : {}),
    ...(handoffs.length > 0 ? { handoffs } : {}),
    maxToolRounds: compiled.maxToolRounds,
    maxParallelToolCalls: compiled.maxParallelToolCalls ?? DEFAULT_PARALLEL_TOOL_CALLS,
    ...(compiled.toolChoice ? { toolChoice: compiled.toolChoice } : {}),
  };
}

/** The tools the model is offered, as sent: the built-ins, then the worker tools, then the transfers. */
export function offeredTools(offer: TurnOffer): WorkerFunctionTool[] {
  return [...toolDefinitions(offer.builtins ?? []), ...(offer.workerTools ?? []).map((t) => t.definition), ...(offer.handoffs ?? []).map(handoffDefinition)];
}

/** Every tool name the model was offered, in the order of {@link offeredTools}. */
export function offeredNames(offer: TurnOffer): string[] {
  return [...(offer.builtins ?? []), ...(offer.workerTools ?? []).map((t) => t.definition.function.name), ...(offer.handoffs ?? []).map((h) => h.name)];
}
