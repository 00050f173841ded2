/**
 * The agent activity, for an agent without worker tools: model turns in a loop, carrying out what the
 * decision after each says (`core/llm/next-step.ts`) — the built-in `goal` and `signal` tools
 * answered here, a transfer answered and the turn ended, then the closing call after
 * `max_tool_rounds`. Tool calls are validated against the goal snapshot and returned as events; the
 * workflow applies them.
 */
import { createHash } from 'node:crypto';
import type OpenAI from 'openai';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import type { AgentCallInput, AgentCallResult, PlannedCall, ToolEvent, Turn } from '../core/llm/contract';
import { afterTools, answerInLoop } from '../core/llm/next-step';
import { RESULT_HASH_LENGTH } from '../core/text/hash';
import { recordedForm } from '../core/waves/record';
import { openCallScope } from './llm';
import { ModelCalls } from './model';

/** Builds the agent activity for a client factory (the worker binds the endpoint options). */
export function makeCallAgent(clientFor: (input: AgentCallInput) => OpenAI) {
  return async function callAgent(input: AgentCallInput): Promise<AgentCallResult> {
    const scope = openCallScope('agent', input.agent, input.workflowId, input.timeoutMs, input.model);
    const calls = new ModelCalls(clientFor(input), scope, input.model, input.responseSchema);
    const messages: ChatCompletionMessageParam[] = input.messages.map((m) => ({ role: m.role, content: m.content }));
    const toolEvents: ToolEvent[] = [];
    let turn: Turn = { round: 0 };
    let text: string;
    let finishReason: string | undefined;
    for (;;) {
      const next = await calls.turn({ agent: input.agent, offer: input.offer, turn, textCalls: input.model.textToolCalls !== 'off' }, messages);
      finishReason = next.finishReason;
      if (next.kind === 'final') {
        text = next.text;
        break;
      }
      messages.push({ role: 'assistant', content: next.text || null, tool_calls: next.calls.map(wireCall) });
      for (const call of next.calls) {
        // no worker tools here: every call is answered in the loop
        const answered = answerInLoop(call, input.offer, input.goal)!;
        if (answered.event) toolEvents.push(answered.event);
        messages.push({ role: 'tool', tool_call_id: call.id, content: answered.content });
      }
      if (next.kind === 'hand_off') {
        toolEvents.push(next.transfer);
        text = next.text;
        break;
      }
      turn = afterTools(turn, false);
    }
    return {
      text,
      toolEvents,
      usage: calls.usage,
      llmCalls: calls.llmCalls,
      ...calls.served(input.model.name),
      ...(finishReason ? { finishReason } : {}),
      warnings: calls.warnings,
      resultHash: nativeResultHash(text),
    };
  };
}

/** A planned call in the OpenAI wire shape of the assistant message that made it. */
function wireCall(call: PlannedCall) {
  return { id: call.id, type: 'function' as const, function: { name: call.name, arguments: call.arguments } };
}

/**
 * `hashResult(recordedForm(text).normalized)` with Node's SHA-256: the value the workflow would
 * compute in its sandbox, sent with the result so the workflow does not hash in JS.
 * @internal exported for tests
 */
export function nativeResultHash(text: string): string {
  return createHash('sha256').update(recordedForm(text).normalized, 'utf8').digest('hex').slice(0, RESULT_HASH_LENGTH);
}
