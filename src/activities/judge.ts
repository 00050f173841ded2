/**
 * The convergence judge activity: asks the judge model, at temperature 0, whether
 * an agent's latest result meets the criteria, as a strict `convergence_verdict` JSON object. Endpoints
 * that reject `response_format` get one retry without it, and the first JSON object in the reply is read.
 */
import { ApplicationFailure } from '@temporalio/activity';
import type OpenAI from 'openai';
import type { ChatCompletionCreateParamsNonStreaming } from 'openai/resources/chat/completions';
import { FAILURE_TYPES, type JudgeInput, type JudgeResult, type LlmFailureDetails } from '../core/llm/contract';
import { firstBalancedJson } from '../core/text/json';
import { chatCompletion, openCallScope, rejectsResponseFormat, type ChatResponse } from './llm';
import { ACTIVITY_TEXTS } from './texts';

/**
 * The strict response format the judge requests.
 * @internal exported for tests
 */
export const VERDICT_RESPONSE_FORMAT = {
  type: 'json_schema',
  json_schema: {
    name: 'convergence_verdict',
    strict: true,
    schema: {
      type: 'object',
      properties: { converged: { type: 'boolean' }, reason: { type: 'string' } },
      required: ['converged', 'reason'],
      additionalProperties: false,
    },
  },
} as const;




/** Builds the judge activity for a client factory (the worker binds the endpoint options). */
export function makeJudgeConvergence(clientFor: (input: JudgeInput) => OpenAI) {
  return async function judgeConvergence(input: JudgeInput): Promise<JudgeResult> {
    const scope = openCallScope('judge', input.agent, input.workflowId, input.timeoutMs, input.model);
    const client = clientFor(input);
    let response: ChatResponse;
    try {
      response = await chatCompletion(client, judgeBody(input, true), scope);
    } catch (err) {
      if (!rejectsResponseFormat(err)) throw err;
      response = await chatCompletion(client, judgeBody(input, false), scope);
    }
    const verdict = parseVerdict(response.completion.choices[0]?.message.content ?? '');
    if (verdict === undefined) {
      const message = ACTIVITY_TEXTS.judge.unparsable(input.agent, response.requestId);
      const details: LlmFailureDetails = {
        kind: 'judge',
        message,
        ...(response.requestId ? { requestId: response.requestId } : {}),
      };
      throw ApplicationFailure.create({ type: FAILURE_TYPES.retryable, message, details: [details] });
    }
    return { ...verdict, usage: response.usage, ...(response.requestId ? { requestId: response.requestId } : {}) };
  };
}

function judgeBody(input: JudgeInput, structured: boolean): ChatCompletionCreateParamsNonStreaming {
  return {
    model: input.model.name,
    temperature: 0,
    ...(input.model.maxTokens !== undefined ? { max_tokens: input.model.maxTokens } : {}),
    messages: [
      { role: 'system', content: ACTIVITY_TEXTS.judge.system },
      { role: 'user', content: ACTIVITY_TEXTS.judge.user(input.criteria, input.task, input.agent, input.result) },
    ],
    ...(structured ? { response_format: VERDICT_RESPONSE_FORMAT } : {}),
  };
}


/**
 * Reads a verdict from the whole reply, else from its first balanced JSON object; undefined if none.
 * @internal exported for tests
 */
export function parseVerdict(text: string): { converged: boolean; reason: string } | undefined {
  for (const candidate of [wholeJson(text), firstBalancedJson(text, '{')]) {
    if (!candidate.ok || typeof candidate.value !== 'object' || candidate.value === null) continue;
    const { converged, reason } = candidate.value as { converged?: unknown; reason?: unknown };
    if (typeof converged !== 'boolean') continue;
    return { converged, reason: typeof reason === 'string' ? reason : '' };
  }
  return undefined;
}

function wholeJson(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text.trim()) as unknown };
  } catch {
    return { ok: false };
  }
}
