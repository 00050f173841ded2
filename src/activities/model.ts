/**
 * One model call of an agent that uses worker tools. The workflow drives the tool loop and sends the
 * whole conversation so far; this activity makes one chat-completions request and returns the
 * model's text and the tool calls it asks for, without running any of them.
 */
import type OpenAI from 'openai';
import type {
  ChatCompletionCreateParamsNonStreaming,
  ChatCompletionMessageParam,
} from 'openai/resources/chat/completions';
import type { ResolvedModel } from '../core/graph/types';
import type { LoopMessage, ModelCallInput, ModelCallResult, ToolCallRequest, WorkerFunctionTool } from '../core/llm/tool-contract';
import { addUsage, NO_USAGE } from '../core/budgets/ledger';
import { chatCompletion, openCallScope, rejectsResponseFormat, type ChatResponse } from './llm';
import { replyFollowUps } from './replies';
import { ACTIVITY_TEXTS } from './texts';

/** The name sent with a response schema as `response_format.json_schema.name`. */
const RESPONSE_FORMAT_NAME = 'troupe_output';

/** A chat-completions request body: the model's settings, the tools offered, a response schema. */
export function chatBody(
  model: ResolvedModel,
  messages: ChatCompletionMessageParam[],
  tools: readonly WorkerFunctionTool[],
  toolChoice: 'none' | 'required' | undefined,
  responseSchema: Record<string, unknown> | undefined,
): ChatCompletionCreateParamsNonStreaming {
  return {
    model: model.name,
    messages: [...messages],
    ...(model.temperature !== undefined ? { temperature: model.temperature } : {}),
    ...(model.maxTokens !== undefined ? { max_tokens: model.maxTokens } : {}),
    ...(tools.length > 0 ? { tools: [...tools], ...(toolChoice ? { tool_choice: toolChoice } : {}) } : {}),
    ...(responseSchema
      ? { response_format: { type: 'json_schema' as const, json_schema: { name: RESPONSE_FORMAT_NAME, strict: false, schema: responseSchema } } }
      : {}),
  };
}

/**
 * Endpoints that refused `response_format: json_schema` (HTTP 400 naming it), by base URL: the worker
 * remembers them and sends them no schema again (the schema is in the prompt too), instead of paying a
 * refused request on every call.
 */
const refusingSchemas = new Set<string>();

/** Whether `client`'s endpoint refused a response schema before. */
export function rejectsSchemas(client: OpenAI): boolean {
  return refusingSchemas.has(client.baseURL);
}

/** Remember that `client`'s endpoint refuses response schemas. */
export function rememberRejectsSchemas(client: OpenAI): void {
  if (refusingSchemas.size > 256) refusingSchemas.clear();
  refusingSchemas.add(client.baseURL);
}

/** The loop's messages in the OpenAI wire shape. */
function wireMessages(messages: readonly LoopMessage[]): ChatCompletionMessageParam[] {
  return messages.map((m): ChatCompletionMessageParam => {
    if (m.role === 'tool') return { role: 'tool', tool_call_id: m.toolCallId, content: m.content };
    if (m.role === 'assistant' && 'toolCalls' in m) {
      return {
        role: 'assistant',
        content: m.content,
        tool_calls: m.toolCalls.map((c) => ({ id: c.id, type: 'function' as const, function: { name: c.name, arguments: c.arguments } })),
      };
    }
    return { role: m.role, content: m.content } as ChatCompletionMessageParam;
  });
}

/** Builds the model-call activity for a client factory (the worker binds the endpoint options). */
export function makeCallModel(clientFor: (input: ModelCallInput) => OpenAI) {
  return async function callModel(input: ModelCallInput): Promise<ModelCallResult> {
    const scope = openCallScope('agent', input.agent, input.workflowId, input.timeoutMs, input.model);
    const client = clientFor(input);
    const messages = wireMessages(input.messages);
    const warnings: string[] = [];
    let schema = input.responseSchema && !rejectsSchemas(client) ? input.responseSchema : undefined;
    const follow = replyFollowUps(input.agent, input.tools.map((t) => t.function.name), input.model.textToolCalls !== 'off');
    const when = { mustCall: input.toolChoice === 'required', toolsOff: input.toolChoice === 'none' };
    let response: ChatResponse;
    let usage = NO_USAGE;
    let llmCalls = 0;
    let written: { name: string; arguments: string } | undefined;
    for (;;) {
      try {
        response = await chatCompletion(client, chatBody(input.model, messages, input.tools, input.toolChoice, schema), scope);
      } catch (err) {
        if (!schema || !rejectsResponseFormat(err)) throw err;
        schema = undefined;
        rememberRejectsSchemas(client);
        warnings.push(ACTIVITY_TEXTS.agent.noResponseFormat(input.agent));
        continue;
      }
      usage = addUsage(usage, response.usage);
      warnings.push(...(response.warnings ?? []));
      llmCalls += 1;
      const reply = response.completion.choices[0]!;
      const called = (reply.message.tool_calls ?? []).some((c) => c.type === 'function');
      // a call written as text, a required call not made, an empty reply, one cut by max_tokens (replies.ts)
      const refused = Boolean(reply.message.refusal);
      const next = called ? undefined : follow.next(reply.message.content ?? '', reply.finish_reason, warnings, { ...when, refused, given: messages });
      if (!next) break;
      if ('call' in next) {
        written = next.call;
        break;
      }
      messages.push(...next.ask);
    }
    const choice = response.completion.choices[0]!;
    let text = written ? '' : follow.text(choice.message.content ?? '');
    if (text === '' && choice.message.refusal) {
      text = choice.message.refusal;
      warnings.push(ACTIVITY_TEXTS.agent.refusal(input.agent));
    }
    // a call written as text ends its reply as a made call does
    const finishReason = written ? 'tool_calls' : choice.finish_reason;
    if (finishReason === 'length') warnings.push(ACTIVITY_TEXTS.agent.lengthFinish(input.agent));
    const toolCalls: ToolCallRequest[] = written
      ? [{ id: '', ...written, asText: true }]
      : (choice.message.tool_calls ?? [])
          .filter((c) => c.type === 'function')
          .map((c) => ({ id: c.id ?? '', name: c.function.name, arguments: c.function.arguments ?? '' }));
    return {
      text,
      toolCalls,
      usage,
      ...(llmCalls > 1 ? { llmCalls } : {}),
      model: response.completion.model || input.model.name,
      ...(response.requestId ? { requestId: response.requestId } : {}),
      ...(finishReason ? { finishReason } : {}),
      warnings,
    };
  };
}
