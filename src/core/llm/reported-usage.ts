/**
 * The usage an endpoint reports for one call, read as the untrusted input it is (docs/semantics.md,
 * "Bounds on hostile input"): `prompt_tokens` and `completion_tokens` are taken only as whole numbers
 * from 0, together at most {@link MAX_CALL_TOKENS}, and a `total_tokens` given with them only as such
 * a number no less than their sum (a provider may count tokens of its own, reasoning for one, in the
 * total alone). Anything else — a negative count, a string, an object, `null`, `1e308`, a total below
 * its parts — is no usage: the activity estimates the call's tokens from its characters instead, as
 * it does for a stream without usage, and says why in a warning. Pure.
 */
import type { TokenCounts } from '../conditions/view';
import { clip } from '../config/limits';

/**
 * The most tokens one call may report, prompt and completion together: five times the largest
 * context window offered today (2M), and far below where a sum of counts loses precision.
 */
export const MAX_CALL_TOKENS = 10_000_000;

/** What an endpoint's `usage` says: counts to take, nothing, or something that is not usage (and why). */
export type ReportedUsage = { kind: 'reported'; usage: TokenCounts } | { kind: 'absent' } | { kind: 'nonsense'; why: string };

/** Why a reported usage is not taken, kept together so tests pin them. */
export const REPORTED_USAGE_TEXTS = {
  notObject: (shown: string) => `usage is ${shown}, not an object of token counts`,
  notCount: (field: string, shown: string) => `${field} is ${shown}, not a whole number of tokens from 0`,
  overBound: (field: string, shown: string, max: number) => `${field} ${shown} is over ${max}, the most one call may use`,
  totalBelow: (total: number, sum: number) => `total_tokens ${total} is less than prompt_tokens + completion_tokens (${sum})`,
} as const;

/** A value as the message shows it: JSON, at most 40 characters (the endpoint chose it). */
function shown(value: unknown): string {
  if (value === undefined) return 'missing';
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return clip(text, 40);
}

/** Whether `n` is a token count one call may report. */
function isCount(n: unknown): n is number {
  return typeof n === 'number' && Number.isInteger(n) && n >= 0;
}

/** Reads the `usage` of one completion (see the file comment). */
export function readReportedUsage(usage: unknown): ReportedUsage {
  if (usage === undefined || usage === null) return { kind: 'absent' };
  if (typeof usage !== 'object' || Array.isArray(usage)) return { kind: 'nonsense', why: REPORTED_USAGE_TEXTS.notObject(shown(usage)) };
  const { prompt_tokens: prompt, completion_tokens: completion, total_tokens: total } = usage as Record<string, unknown>;
  if (!isCount(prompt)) return { kind: 'nonsense', why: REPORTED_USAGE_TEXTS.notCount('prompt_tokens', shown(prompt)) };
  if (!isCount(completion)) return { kind: 'nonsense', why: REPORTED_USAGE_TEXTS.notCount('completion_tokens', shown(completion)) };
  const sum = prompt + completion;
  const bounded: Array<[string, number]> = [['prompt_tokens', prompt], ['completion_tokens', completion], ['prompt_tokens + completion_tokens', sum]];
  for (const [field, n] of bounded) {
    if (n > MAX_CALL_TOKENS) return { kind: 'nonsense', why: REPORTED_USAGE_TEXTS.overBound(field, shown(n), MAX_CALL_TOKENS) };
  }
  if (total === undefined || total === null) return { kind: 'reported', usage: { promptTokens: prompt, completionTokens: completion, totalTokens: sum } };
  if (!isCount(total)) return { kind: 'nonsense', why: REPORTED_USAGE_TEXTS.notCount('total_tokens', shown(total)) };
  if (total < sum) return { kind: 'nonsense', why: REPORTED_USAGE_TEXTS.totalBelow(total, sum) };
  if (total > MAX_CALL_TOKENS) return { kind: 'nonsense', why: REPORTED_USAGE_TEXTS.overBound('total_tokens', shown(total), MAX_CALL_TOKENS) };
  return { kind: 'reported', usage: { promptTokens: prompt, completionTokens: completion, totalTokens: total } };
}
