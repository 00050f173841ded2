/** Small formatting helpers shared by every user-visible text catalog. */

/** `1 agent call`, `2 agent calls`. */
export function plural(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

/** `s` when `n` is not 1 (for texts that put the number elsewhere). */
export function pluralS(n: number): string {
  return n === 1 ? '' : 's';
}
