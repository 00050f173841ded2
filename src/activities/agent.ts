/**
 * The agent activity: one chat-completions call plus a bounded loop for the
 * built-in `goal`/`signal` tools. Tool calls are validated against the goal snapshot and returned as
 * events; the workflow applies them. The final text is cut to 256 KiB.
 */
import { createHash } from 'node:crypto';
import type OpenAI from 'openai';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import type { AgentCallInput, AgentCallResult, ToolEvent } from '../core/llm/contract';
import { handleToolCall, toolDefinitions } from '../core/llm/builtin-tools';
import { handoffDefinition, replyTransfers } from '../core/teams/handoffs';
import { addUsage, NO_USAGE } from '../core/budgets/ledger';
import { chatCompletion, openCallScope, rejectsResponseFormat, type ChatResponse } from './llm';
import { chatBody, rejectsSchemas, rememberRejectsSchemas } from './model';
import { replyFollowUps } from './replies';
import { cutUtf8 } from '../core/text/utf8';
import { RESULT_HASH_LENGTH } from '../core/text/hash';
import { recordedForm } from '../core/waves/record';
import { ACTIVITY_TEXTS } from './texts';

/**
 * Limits of the agent activity.
 * @internal exported for tests
 */
export const AGENT_LIMITS = {
  /** Tool rounds answered inside one activity before the closing `tool_choice: none` call. */
  maxToolRounds: 4,
  /** Largest final text, in UTF-8 bytes. */
  maxTextBytes: 256 * 1024,
} as const;

/** Builds the agent activity for a client factory (the worker binds the endpoint options). */
export function makeCallAgent(clientFor: (input: AgentCallInput) => OpenAI) {
  return async function callAgent(input: AgentCallInput): Promise<AgentCallResult> {
    const scope = openCallScope('agent', input.agent, input.workflowId, input.timeoutMs, input.model);
    const client = clientFor(input);
    const handoffs = input.handoffs ?? [];
    const tools = [...toolDefinitions(input.tools), ...handoffs.map(handoffDefinition)];
    const offered = [...input.tools, ...handoffs.map((h) => h.name)];
    const messages: ChatCompletionMessageParam[] = input.messages.map((m) => ({ role: m.role, content: m.content }));
    const toolEvents: ToolEvent[] = [];
    const warnings: string[] = [];
    let usage = NO_USAGE;
    let llmCalls = 0;
    let toolRounds = 0;
    let last: ChatResponse;
    let structured = input.responseSchema !== undefined && !rejectsSchemas(client);
    const follow = replyFollowUps(input.agent, offered, input.model.textToolCalls !== 'off');

    for (;;) {
      const closing = tools.length > 0 && toolRounds >= (input.maxToolRounds ?? AGENT_LIMITS.maxToolRounds);
      // `tool_choice: required` holds until the first tool round, then the model may answer
      const mustCall = !closing && toolRounds === 0 && input.toolChoice === 'required';
      try {
        const choice = closing ? 'none' : mustCall ? 'required' : undefined;
        const body = chatBody(input.model, messages, tools, choice, structured ? input.responseSchema : undefined);
        last = await chatCompletion(client, body, scope);
      } catch (err) {
        if (!structured || !rejectsResponseFormat(err)) throw err;
        structured = false;
        rememberRejectsSchemas(client);
        warnings.push(ACTIVITY_TEXTS.agent.noResponseFormat(input.agent));
        continue;
      }
      usage = addUsage(usage, last.usage);
      warnings.push(...(last.warnings ?? []));
      llmCalls += 1;
      const message = last.completion.choices[0]!.message;
      let calls = (message.tool_calls ?? []).filter((c) => c.type === 'function');
      let content = message.content ?? null;
      if (calls.length === 0) {
        // a call written as text, a required call not made, an empty reply, one cut by max_tokens (replies.ts)
        const next = follow.next(message.content ?? '', last.completion.choices[0]!.finish_reason, warnings, {
          mustCall,
          toolsOff: closing,
          refused: Boolean(message.refusal),
          given: messages,
        });
        if (!next) break;
        if ('ask' in next) {
          messages.push(...next.ask);
          continue;
        }
        calls = [{ id: `text_call_${llmCalls}`, type: 'function', function: next.call }];
        content = null;
      }
      if (tools.length === 0) {
        warnings.push(ACTIVITY_TEXTS.agent.unofferedTools(input.agent));
        break;
      }
      if (closing) {
        warnings.push(ACTIVITY_TEXTS.agent.toolRoundsExhausted(input.agent, toolRounds));
        break;
      }
      messages.push({ role: 'assistant', content, tool_calls: calls });
      const transfers = replyTransfers(calls.map((c) => c.function), handoffs);
      calls.forEach((call, i) => {
        const transfer = transfers.results.get(i);
        if (transfer !== undefined) {
          messages.push({ role: 'tool', tool_call_id: call.id, content: transfer });
          return;
        }
        const outcome = handleToolCall(call.function.name, call.function.arguments, {
          offered: input.tools,
          ...(input.goal ? { goal: input.goal } : {}),
        }, offered);
        if (outcome.kind === 'ok') toolEvents.push(outcome.event);
        messages.push({ role: 'tool', tool_call_id: call.id, content: outcome.result });
      });
      toolRounds += 1;
      // a transfer ends the turn: the reply's other calls ran, and no further model call is made
      if (transfers.event) {
        toolEvents.push(transfers.event);
        break;
      }
    }

    const choice = last.completion.choices[0]!;
    let text = follow.text(choice.message.content ?? '');
    if (text === '' && choice.message.refusal) {
      text = choice.message.refusal;
      warnings.push(ACTIVITY_TEXTS.agent.refusal(input.agent));
    }
    const bounded = cutUtf8(text, AGENT_LIMITS.maxTextBytes);
    if (bounded.droppedBytes > 0) {
      warnings.push(ACTIVITY_TEXTS.agent.truncated(input.agent, bounded.droppedBytes, AGENT_LIMITS.maxTextBytes));
    }
    if (choice.finish_reason === 'length') warnings.push(ACTIVITY_TEXTS.agent.lengthFinish(input.agent));
    return {
      text: bounded.text,
      toolEvents,
      usage,
      llmCalls,
      model: last.completion.model || input.model.name,
      ...(last.requestId ? { requestId: last.requestId } : {}),
      ...(choice.finish_reason ? { finishReason: choice.finish_reason } : {}),
      warnings,
      resultHash: nativeResultHash(bounded.text),
    };
  };
}

/**
 * `hashResult(recordedForm(text).normalized)` with Node's SHA-256: the value the workflow would
 * compute in its sandbox, sent with the result so the workflow does not hash in JS.
 * @internal exported for tests
 */
export function nativeResultHash(text: string): string {
  return createHash('sha256').update(recordedForm(text).normalized, 'utf8').digest('hex').slice(0, RESULT_HASH_LENGTH);
}
