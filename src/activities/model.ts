/**
 * A model turn inside an activity, and the model-call activity of the tool dispatch. A turn is one
 * chat-completions request and the follow-ups the decision after it asks for (`core/llm/next-step.ts`,
 * `core/llm/follow-ups.ts`), with the endpoint's refusal of a response schema handled once: the agent
 * activity (`agent.ts`) takes turns in a loop; `callModel` takes one turn of an agent that uses worker
 * tools and returns the step the workflow carries out (`workflows/tool-dispatch.ts`), running nothing.
 */
import type OpenAI from 'openai';
import type {
  ChatCompletionCreateParamsNonStreaming,
  ChatCompletionMessageParam,
} from 'openai/resources/chat/completions';
import type { TokenCounts } from '../core/conditions/view';
import type { ResolvedModel } from '../core/graph/types';
import type { ModelCallInput, ModelCallResult, SettledStep } from '../core/llm/contract';
import type { FollowUpsUsed } from '../core/llm/follow-ups';
import { nextRequest, nextStep, type TurnSetting } from '../core/llm/next-step';
import { offeredTools } from '../core/llm/next-step';
import type { LoopMessage, WorkerFunctionTool } from '../core/llm/tool-contract';
import { addUsage, NO_USAGE } from '../core/budgets/ledger';
import { chatCompletion, openCallScope, rejectsResponseFormat, type ChatResponse, type LlmCallScope } from './llm';
import { ACTIVITY_TEXTS } from './texts';

/** The name sent with a response schema as `response_format.json_schema.name`. */
const RESPONSE_FORMAT_NAME = 'troupe_output';

/** A chat-completions request body: the model's settings, the tools offered, a response schema. */
function chatBody(
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
function rejectsSchemas(client: OpenAI): boolean {
  return refusingSchemas.has(client.baseURL);
}

/** Remember that `client`'s endpoint refuses response schemas. */
function rememberRejectsSchemas(client: OpenAI): void {
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

/** The texts of a request's messages that are not the model's own (system, user, tool): what it was given. */
function givenTexts(messages: readonly ChatCompletionMessageParam[]): string[] {
  return messages.flatMap((m) => {
    if (m.role === 'assistant') return [];
    if (typeof m.content === 'string') return [m.content];
    return (m.content ?? []).flatMap((part) => ('text' in part && typeof part.text === 'string' ? [part.text] : []));
  });
}

/** The model calls of one activity: the endpoint, the tools sent, the response schema while the endpoint takes it, and what the calls cost. */
export class ModelCalls {
  usage: TokenCounts = NO_USAGE;
  llmCalls = 0;
  readonly warnings: string[] = [];
  /** The last response, once a call was made. */
  last?: ChatResponse;
  /** The follow-ups asked so far (each at most once in the activity). */
  readonly used: FollowUpsUsed = {};
  private schema: Record<string, unknown> | undefined;

  constructor(
    private readonly client: OpenAI,
    private readonly scope: LlmCallScope,
    private readonly model: ResolvedModel,
    responseSchema: Record<string, unknown> | undefined,
  ) {
    this.schema = responseSchema && !rejectsSchemas(client) ? responseSchema : undefined;
  }

  /**
   * One model turn at `at` on `messages`: the request, then the follow-ups the decision asks for
   * (added to `messages`), until it settles. An endpoint that refuses the response schema is asked
   * again without it, once, and remembered.
   */
  async turn(at: TurnSetting, messages: ChatCompletionMessageParam[]): Promise<SettledStep> {
    const { toolChoice } = nextRequest(at.offer, at.turn);
    const tools = offeredTools(at.offer);
    for (;;) {
      let response: ChatResponse;
      try {
        response = await chatCompletion(this.client, chatBody(this.model, messages, tools, toolChoice, this.schema), this.scope);
      } catch (err) {
        if (!this.schema || !rejectsResponseFormat(err)) throw err;
        this.schema = undefined;
        rememberRejectsSchemas(this.client);
        this.warnings.push(ACTIVITY_TEXTS.agent.noResponseFormat(at.agent));
        continue;
      }
      this.last = response;
      this.usage = addUsage(this.usage, response.usage);
      this.warnings.push(...(response.warnings ?? []));
      this.llmCalls += 1;
      const { message, finish_reason: finishReason } = response.completion.choices[0]!;
      const calls = (message.tool_calls ?? []).flatMap((c) => (c.type === 'function' ? [{ id: c.id, name: c.function.name, arguments: c.function.arguments ?? '' }] : []));
      const reply = { text: message.content ?? '', calls, finishReason, refusal: message.refusal, given: () => givenTexts(messages) };
      const next = nextStep(at, reply, this.used, this.warnings);
      if (next.kind !== 'ask_again') return next;
      messages.push({ role: 'assistant', content: next.reply }, { role: 'user', content: next.request });
    }
  }

  /** What the calls report besides their step: the model that answered and the last request id. */
  served(fallback: string): { model: string; requestId?: string } {
    const last = this.last!;
    return { model: last.completion.model || fallback, ...(last.requestId ? { requestId: last.requestId } : {}) };
  }
}

/** Builds the model-call activity for a client factory (the worker binds the endpoint options). */
export function makeCallModel(clientFor: (input: ModelCallInput) => OpenAI) {
  return async function callModel(input: ModelCallInput): Promise<ModelCallResult> {
    const scope = openCallScope('agent', input.agent, input.workflowId, input.timeoutMs, input.model);
    const calls = new ModelCalls(clientFor(input), scope, input.model, input.responseSchema);
    const at = { agent: input.agent, offer: input.offer, turn: input.turn, textCalls: input.model.textToolCalls !== 'off' };
    const next = await calls.turn(at, wireMessages(input.messages));
    return {
      next,
      usage: calls.usage,
      ...(calls.llmCalls > 1 ? { llmCalls: calls.llmCalls } : {}),
      ...calls.served(input.model.name),
      warnings: calls.warnings,
    };
  };
}
