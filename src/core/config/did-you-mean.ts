/**
 * "Did you mean X?" hints for unknown keys, topologies, conditions and commands. Pure.
 */

/**
 * Edit distance (Levenshtein with adjacent transpositions, "optimal string alignment"): insert,
 * delete, substitute and swap two neighbours each cost 1, so `modle` is 1 away from `model`.
 * @internal exported for tests
 */
export function levenshtein(a: string, b: string): number {
  if (a === b) return 0;
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i]);
  for (let j = 1; j <= b.length; j++) d[0][j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.length][b.length];
}

/**
 * Words longer than this get no hint: a typo of a long value is not what went wrong, and the edit
 * distance costs the product of the lengths (a hostile file could make it take minutes).
 */
const MAX_HINT_LENGTH = 64;

/**
 * The candidate closest to `word`, if close enough to be a likely typo: at most a third of the
 * longer word's length in edits (at least 1), case-insensitive. Ties go to the earlier candidate.
 */
export function closest(word: string, candidates: Iterable<string>): string | undefined {
  if (word.length > MAX_HINT_LENGTH) return undefined;
  const w = word.toLowerCase();
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const c of candidates) {
    if (c.length > MAX_HINT_LENGTH) continue;
    const limit = Math.max(1, Math.floor(Math.max(w.length, c.length) / 3));
    if (Math.abs(w.length - c.length) > limit) continue;
    const d = levenshtein(w, c.toLowerCase());
    if (d <= limit && d < bestDistance) {
      best = c;
      bestDistance = d;
    }
  }
  return best;
}

/** ` (did you mean "x"?)` when a candidate is close, else the empty string. */
export function didYouMean(word: string, candidates: Iterable<string>): string {
  const c = closest(word, candidates);
  return c === undefined ? '' : ` (did you mean "${c}"?)`;
}
