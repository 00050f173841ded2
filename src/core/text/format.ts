/** Small formatting helpers shared by every user-visible text catalog. */

/** `1 agent call`, `2 agent calls`. */
export function plural(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}
