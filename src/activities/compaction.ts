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

/** The compaction prompts and failure texts, kept together so tests pin them. */
export const COMPACTION_TEXTS = {
  system: (agent: string, maxTokens: number) =>
    `You maintain the rolling summary of a multi-agent collaboration, as seen by agent "${agent}". Merge the ` +
    `previous summary and the new entries into one summary of at most ${maxTokens} tokens. Keep every decision ` +
    'made, every open issue or requested change, and the latest scores and verdicts (with who gave them). Drop ' +
    'repetition and pleasantries. Reply with the summary text only.',
  user: (summary: string | undefined, entries: string[]) =>
    `<previous_summary>\n${summary?.trim() || '(none)'}\n</previous_summary>\n\n<entries>\n` +
    entries.map((e, i) => `<entry n="${i + 1}">\n${e}\n</entry>`).join('\n') +
    '\n</entries>',
  empty: (agent: string, requestId?: string) =>
    `compaction ${agent}: the summary came back empty${requestId ? ` (request id ${requestId})` : ''}`,
} as const;

/** Builds the compaction activity for a client factory (the worker binds the endpoint options). */
export function makeCompactTranscript(clientFor: (input: CompactionInput) => OpenAI) {
  return async function compactTranscript(input: CompactionInput): Promise<CompactionResult> {
    const scope = openCallScope('compaction', input.agent, input.workflowId, input.timeoutMs);
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
      const message = COMPACTION_TEXTS.empty(input.agent, response.requestId);
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
 */
export function compactionMessages(
  input: Pick<CompactionInput, 'agent' | 'model' | 'summary' | 'entries' | 'maxSummaryTokens'>,
): ChatMessage[] {
  const build = (entries: string[]): ChatMessage[] => [
    { role: 'system', content: COMPACTION_TEXTS.system(input.agent, input.maxSummaryTokens) },
    { role: 'user', content: COMPACTION_TEXTS.user(input.summary, entries) },
  ];
  const window = input.model.contextWindow;
  if (window === undefined) return build(input.entries);
  const fits = (entries: string[]) => estimateMessagesTokens(build(entries)) + input.maxSummaryTokens <= window;
  return build(fitTexts(input.entries, fits) ?? input.entries);
}
