/**
 * The numbers the ledger adds, held to what they can mean (docs/semantics.md, "Bounds on hostile
 * input"): a token count is a whole number from 0 to 2^53 − 1, an amount of money a finite number
 * from 0. The activities already take an endpoint's usage only as such counts
 * (`core/llm/reported-usage.ts`); this is the ledger's own guard, so a value that reaches it another
 * way (an older worker, a child run's ledger) can never make a total NaN, negative or infinite, a
 * budget compare against NaN, or a metric refuse its value. Pure.
 */
import type { TokenCounts } from '../conditions/view';

/** `n` as a token count: a finite number from 0, whole, at most `Number.MAX_SAFE_INTEGER`; anything else counts as 0. */
export function tokenCount(n: unknown): number {
  if (typeof n !== 'number' || !(n >= 0)) return 0;
  return n >= Number.MAX_SAFE_INTEGER ? Number.MAX_SAFE_INTEGER : Math.floor(n);
}

/** `n` as an amount of money: a finite number from 0; anything else counts as 0. */
export function usdAmount(n: unknown): number {
  return typeof n === 'number' && Number.isFinite(n) && n >= 0 ? n : 0;
}

/** `usage` with each count held to {@link tokenCount}: the same object when every count already is one. */
export function saneTokenCounts(usage: TokenCounts): TokenCounts {
  const promptTokens = tokenCount(usage?.promptTokens);
  const completionTokens = tokenCount(usage?.completionTokens);
  const totalTokens = tokenCount(usage?.totalTokens);
  if (usage && promptTokens === usage.promptTokens && completionTokens === usage.completionTokens && totalTokens === usage.totalTokens) return usage;
  return { promptTokens, completionTokens, totalTokens };
}
