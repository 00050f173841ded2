/**
 * `token_usage: { max_total_tokens?, max_prompt_tokens?, max_completion_tokens? }`: holds once the
 * round's token usage (agent, judge and compaction calls) reaches any limit given; at least one is
 * required.
 */
import { z } from 'zod';
import { fromSchema, type ConditionPlugin } from '../plugin';
import { registerBuiltinCondition } from '../store';
import type { TerminationView } from '../view';

/** Compiled form. */
export interface TokenUsage {
  kind: 'token_usage';
  maxTotalTokens?: number;
  maxPromptTokens?: number;
  maxCompletionTokens?: number;
}

/** Without a limit it could never hold. */
export const TOKEN_USAGE_NEEDS_LIMIT = 'needs at least one of max_total_tokens, max_prompt_tokens, max_completion_tokens';

const limit = z.number().int().positive().optional();
const schema = z
  .strictObject({ max_total_tokens: limit, max_prompt_tokens: limit, max_completion_tokens: limit })
  .refine((t) => t.max_total_tokens !== undefined || t.max_prompt_tokens !== undefined || t.max_completion_tokens !== undefined, {
    message: TOKEN_USAGE_NEEDS_LIMIT,
  });

/** The first limit reached, in the order total, prompt, completion. */
function limitReached(c: TokenUsage, v: TerminationView) {
  const checks = [
    ['total', v.usage.totalTokens, c.maxTotalTokens],
    ['prompt', v.usage.promptTokens, c.maxPromptTokens],
    ['completion', v.usage.completionTokens, c.maxCompletionTokens],
  ] as const;
  const hit = checks.find(([, used, max]) => max !== undefined && used >= max);
  return hit ? { kind: hit[0], used: hit[1], limit: hit[2] as number } : undefined;
}

/** The `token_usage` condition. */
export const tokenUsage: ConditionPlugin<TokenUsage> = {
  ...fromSchema(
    schema,
    (d): TokenUsage => ({
      kind: 'token_usage',
      ...(d.max_total_tokens !== undefined && { maxTotalTokens: d.max_total_tokens }),
      ...(d.max_prompt_tokens !== undefined && { maxPromptTokens: d.max_prompt_tokens }),
      ...(d.max_completion_tokens !== undefined && { maxCompletionTokens: d.max_completion_tokens }),
    }),
  ),
  holds: (c, v) => limitReached(c, v) !== undefined,
  reason: 'token_usage', priority: 3, status: 'exhausted',
  reasonText: (c, v) => {
    const hit = limitReached(c, v) as NonNullable<ReturnType<typeof limitReached>>;
    return `token_usage: round used ${hit.used} ${hit.kind} tokens >= ${hit.limit}`;
  },
  describe: () => 'token usage limit',
  label: (c) => {
    const parts = [
      c.maxTotalTokens !== undefined ? `total ${c.maxTotalTokens}` : '',
      c.maxPromptTokens !== undefined ? `prompt ${c.maxPromptTokens}` : '',
      c.maxCompletionTokens !== undefined ? `completion ${c.maxCompletionTokens}` : '',
    ].filter(Boolean);
    return `tokens ${parts.join(', ')}`;
  },
  hint: 'raise the token_usage condition limits',
};

registerBuiltinCondition('token_usage', tokenUsage);
