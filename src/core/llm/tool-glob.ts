/**
 * Tool-name globs: the `*` patterns of an agent's `tools` (`files.*`, `files.read_*`) and of
 * `approval.tools` (`deploy_*`). A role file comes from whoever starts a run, so a pattern is bounded
 * (at most {@link TOOL_GLOB_LIMITS}) and matched without backtracking: the literal pieces between the
 * stars are found left to right, each at its first place after the one before, which is exact for a
 * glob whose only wildcard is `*` and costs at most one scan of the name per piece
 * (docs/semantics.md, "Bounds on hostile input"). No regular expression is ever built from a pattern. Pure.
 */

/**
 * The largest glob a role may use: this many `*` and this many characters.
 * @internal exported for tests
 */
export const TOOL_GLOB_LIMITS = { maxStars: 4, maxChars: 200 } as const;

/**
 * Why a pattern is out of bounds, so validation and the worker say the same.
 * @internal exported for tests
 */
export const TOOL_GLOB_TEXTS = {
  tooLong: (chars: number) => `is ${chars} characters long; a tool name or pattern has at most ${TOOL_GLOB_LIMITS.maxChars}`,
  tooManyStars: (stars: number) => `has ${stars} "*"; a tool pattern has at most ${TOOL_GLOB_LIMITS.maxStars}`,
} as const;

function countStars(pattern: string): number {
  let n = 0;
  for (let i = pattern.indexOf('*'); i >= 0; i = pattern.indexOf('*', i + 1)) n += 1;
  return n;
}

/** Why `pattern` is out of bounds, or undefined when it is within them. */
export function toolGlobIssue(pattern: string): string | undefined {
  if (pattern.length > TOOL_GLOB_LIMITS.maxChars) return TOOL_GLOB_TEXTS.tooLong(pattern.length);
  const stars = countStars(pattern);
  return stars > TOOL_GLOB_LIMITS.maxStars ? TOOL_GLOB_TEXTS.tooManyStars(stars) : undefined;
}

/**
 * Whether `name` matches `pattern`, where `*` stands for any characters (none included) and every
 * other character for itself. A pattern out of bounds matches nothing, so a graph that skipped
 * validation cannot make a match expensive.
 */
export function globMatches(pattern: string, name: string): boolean {
  if (toolGlobIssue(pattern) !== undefined) return false;
  const pieces = pattern.split('*');
  if (pieces.length === 1) return pattern === name;
  const first = pieces[0];
  const last = pieces[pieces.length - 1];
  if (name.length < first.length + last.length || !name.startsWith(first) || !name.endsWith(last)) return false;
  const end = name.length - last.length;
  let at = first.length;
  for (let i = 1; i < pieces.length - 1; i += 1) {
    const piece = pieces[i];
    if (piece === '') continue;
    const found = name.indexOf(piece, at);
    if (found < 0 || found + piece.length > end) return false;
    at = found + piece.length;
  }
  return true;
}
