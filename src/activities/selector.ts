/**
 * The `selectSpeaker` activity of a `selector` team (docs/teams.md, "Selector teams"): sends the
 * rendered selector prompt, reads the reply with the pure `readSelection`, and asks again with its
 * feedback (the reply and the feedback appended, as AutoGen does) up to `maxAttempts` calls. A reply
 * that never names a valid candidate is no failure: the result has no speaker and the workflow falls
 * back to list order.
 */
import type OpenAI from 'openai';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { addUsage, NO_USAGE } from '../core/budgets/ledger';
import type { ResolvedModel } from '../core/graph/types';
import type { SelectSpeakerInput, SelectSpeakerResult } from '../core/llm/contract';
import { readSelection, SELECTOR_TEXTS } from '../core/teams/selector';
import { chatCompletion, openCallScope } from './llm';

/**
 * Limits of the selector activity.
 * @internal exported for tests
 */
export const SELECTOR_LIMITS = {
  /** `max_tokens` of a selector call when its model sets none: a name, not an essay. */
  maxTokens: 64,
  /** Characters of each rejected reply kept in the result. */
  rejectedChars: 200,
  /** The caller named in the `x-troupe-agent` header and in failure messages (`selector team: HTTP 500 …`). */
  caller: 'team',
} as const;

/** A reply for the result: at most `rejectedChars` characters, a cut one ending in `…` (never inside a surrogate pair). */
function shortReply(text: string): string {
  if (text.length <= SELECTOR_LIMITS.rejectedChars) return text;
  let end = SELECTOR_LIMITS.rejectedChars - 1;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end -= 1;
  return `${text.slice(0, end)}…`;
}

/** Builds the selector activity for a client factory (the worker binds the endpoint options). */
export function makeSelectSpeaker(clientFor: (input: { agent: string; model: ResolvedModel }) => OpenAI) {
  return async function selectSpeaker(input: SelectSpeakerInput): Promise<SelectSpeakerResult> {
    const rejected: string[] = [];
    // one candidate needs no model call (the workflow does not ask, but a direct caller may)
    if (input.candidates.length <= 1) {
      return { ...(input.candidates[0] !== undefined ? { speaker: input.candidates[0] } : {}), attempts: 0, usage: NO_USAGE, rejected };
    }
    const scope = openCallScope('selector', SELECTOR_LIMITS.caller, input.workflowId, input.timeoutMs, input.model);
    const client = clientFor({ agent: SELECTOR_LIMITS.caller, model: input.model });
    const messages: ChatCompletionMessageParam[] = [
      { role: 'system', content: input.prompt },
      { role: 'user', content: SELECTOR_TEXTS.ask(input.previous, input.candidates) },
    ];
    const { model } = input;
    let usage = NO_USAGE;
    let attempts = 0;
    while (attempts < Math.max(1, input.maxAttempts)) {
      const response = await chatCompletion(
        client,
        {
          model: model.name,
          ...(model.temperature !== undefined ? { temperature: model.temperature } : {}),
          max_tokens: model.maxTokens ?? SELECTOR_LIMITS.maxTokens,
          messages,
        },
        scope,
      );
      attempts += 1;
      usage = addUsage(usage, response.usage);
      const reply = response.completion.choices[0]?.message.content ?? '';
      const selection = readSelection(reply, input);
      if (selection.ok) return { speaker: selection.speaker, attempts, usage, rejected };
      rejected.push(shortReply(reply));
      messages.push({ role: 'assistant', content: reply }, { role: 'user', content: selection.feedback });
    }
    return { attempts, usage, rejected };
  };
}
