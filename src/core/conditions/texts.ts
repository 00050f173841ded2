/**
 * Every user-visible termination string (SPEC §4.6 reasonText, §11.12 prompt lines) in one place, so
 * tests pin them and the evaluator, prompts and CLI agree.
 */



/** `critic` → `Critic`, for prompt descriptions. */
export function capitalize(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/** `reasonText` of each stop, by reason. */
export const REASON_TEXTS = {
  tokenUsage: (used: number, kind: 'total' | 'prompt' | 'completion', limit: number) =>
    `token_usage: round used ${used} ${kind} tokens >= ${limit}`,
  custom: (reason: string, description: string) => `${reason}: ${description}`,
} as const;

/** Prompt descriptions of conditions (rolebox §1.15 plus troupe's own conditions). */
export const DESCRIBE_TEXTS = {
  tokenUsage: () => 'token usage limit',
  anyOf: (parts: string[]) => `(${parts.join(' OR ')})`,
  allOf: (parts: string[]) => `(${parts.join(' AND ')})`,
  anyLine: (parts: string[]) => `This graph stops when ANY of: ${parts.join('; ')}`,
  allLine: (parts: string[]) => `This graph stops when ALL of: ${parts.join(' AND ')}`,
} as const;
