/**
 * The compaction activity: folds an agent's older turns into its rolling summary so the
 * agent's prompt stays inside `context_window`. The summary keeps decisions, open issues and the latest
 * scores and verdicts, and is bounded by `maxSummaryTokens`; the request itself is fitted to the same window.
 */
import { ApplicationFailure } from '@temporalio/activity';
import type OpenAI from 'openai';
import { cutToTokens, estimateMessagesTokens, fitTexts } from '../core/prompts/bounds';
import { FAILURE_TYPES, type ChatMessage, type CompactionInput, type CompactionResult } from '../core/llm/contract';
import { chatCompletion, openCallScope } from './llm';
import { ACTIVITY_TEXTS } from './texts';



/** Builds the compaction activity for a client factory (the worker binds the endpoint options). */
export function makeCompactTranscript(clientFor: (input: CompactionInput) => OpenAI) {
  return async function compactTranscript(input: CompactionInput): Promise<CompactionResult> {
    const scope = openCallScope('compaction', input.agent, input.workflowId, input.timeoutMs, input.model);
    const response = await chatCompletion(
      clientFor(input),
      {
        model: input.model.name,
        temperature: 0,
        max_tokens: input.maxSummaryTokens,
        messages: compactionMessages(input),
      },
      scope,
    );
    const summary = (response.completion.choices[0]?.message.content ?? '').trim();
    if (summary === '') {
      const message = ACTIVITY_TEXTS.compaction.empty(input.agent, response.requestId);
      throw ApplicationFailure.create({
        type: FAILURE_TYPES.retryable,
        message,
        details: [{ kind: 'compaction', message, ...(response.requestId ? { requestId: response.requestId } : {}) }],
      });
    }
    return { summary: cutToTokens(summary, input.maxSummaryTokens), usage: response.usage };
  };
}

/**
 * The compaction request's messages. With a `context_window`, the entries are cut (longest first) so
 * that the request plus the summary it asks for fits the same window as the agent's own prompts.
 * @internal exported for tests
 */
export function compactionMessages(
  input: Pick<CompactionInput, 'agent' | 'model' | 'summary' | 'entries' | 'maxSummaryTokens'>,
): ChatMessage[] {
  const build = (entries: string[]): ChatMessage[] => [
    { role: 'system', content: ACTIVITY_TEXTS.compaction.system(input.agent, input.maxSummaryTokens) },
    { role: 'user', content: ACTIVITY_TEXTS.compaction.user(input.summary, entries) },
  ];
  const window = input.model.contextWindow;
  if (window === undefined) return build(input.entries);
  const fits = (entries: string[]) => estimateMessagesTokens(build(entries)) + input.maxSummaryTokens <= window;
  return build(fitTexts(input.entries, fits) ?? input.entries);
}
