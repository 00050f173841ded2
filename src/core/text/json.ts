/**
 * JSON extraction from an agent's final text: the whole text, then a fenced json block (then any
 * fenced block), then the first balanced JSON value. Pure, deterministic, bounded work.
 */

/** Where the JSON was found. */
type JsonSource = 'whole' | 'fence' | 'balanced';

/** An extracted JSON value, or nothing found. */
type JsonExtraction = { ok: true; value: unknown; source: JsonSource } | { ok: false };

/** Upper bound on characters scanned while looking for a balanced value (keeps workflow tasks short). */
const MAX_BALANCED_SCAN = 4_000_000;

const FENCE = /```([^\n`]*)\n([\s\S]*?)```/g;

function tryParse(text: string): { ok: true; value: unknown } | { ok: false } {
  const t = text.trim();
  if (t === '') return { ok: false };
  try {
    return { ok: true, value: JSON.parse(t) as unknown };
  } catch {
    return { ok: false };
  }
}

function fencedBlocks(text: string): string[] {
  const json: string[] = [];
  const other: string[] = [];
  for (const m of text.matchAll(FENCE)) {
    const lang = m[1].trim().split(/\s+/)[0].toLowerCase();
    (lang === 'json' ? json : other).push(m[2]);
  }
  return [...json, ...other];
}

/**
 * The end index (exclusive) of the balanced value starting at `start` (`{` or `[`), string- and
 * escape-aware, or -1 when it does not close or brackets mismatch. `budget.left` counts scanned chars.
 */
function balancedEnd(text: string, start: number, budget: { left: number }): number {
  const stack: string[] = [];
  let inString = false;
  for (let i = start; i < text.length; i++) {
    if (--budget.left < 0) return -1;
    const ch = text[i];
    if (inString) {
      if (ch === '\\') i++;
      else if (ch === '"') inString = false;
      continue;
    }
    if (ch === '"') inString = true;
    else if (ch === '{' || ch === '[') stack.push(ch === '{' ? '}' : ']');
    else if (ch === '}' || ch === ']') {
      if (stack.pop() !== ch) return -1;
      if (stack.length === 0) return i + 1;
    }
  }
  return -1;
}

/**
 * Every balanced JSON value in `text` that opens with one of `opens` (`{`, `[`) and parses, in order;
 * a candidate that fails is retried from the next opening bracket, and the scan goes on after a value
 * that parsed (its inner values are not listed apart). Bounded by MAX_BALANCED_SCAN.
 */
export function* balancedJsonValues(text: string, opens = '{['): Generator<unknown> {
  for (const span of balancedJsonSpans(text, opens)) yield span.value;
}

/**
 * {@link balancedJsonValues}, each value with the text it was parsed from. `budget` may be shared by
 * several scans, so that their work together stays within it; it is left at 0 or below when the scan
 * stopped for it.
 */
export function* balancedJsonSpans(
  text: string,
  opens = '{[',
  budget: { left: number } = { left: MAX_BALANCED_SCAN },
): Generator<{ value: unknown; text: string }> {
  for (let i = 0; i < text.length && budget.left > 0; i++) {
    const ch = text[i];
    if (!opens.includes(ch)) continue;
    const end = balancedEnd(text, i, budget);
    if (end < 0) continue;
    const slice = text.slice(i, end);
    const parsed = tryParse(slice);
    if (!parsed.ok) continue;
    yield { value: parsed.value, text: slice };
    i = end - 1;
  }
}

/**
 * The JSON values `text` consists of, when it is nothing else: one or more objects or arrays (opening
 * with one of `opens`) one after another, separated by whitespace or commas; undefined when anything
 * else stands between or around them, or a value does not parse. Bounded by MAX_BALANCED_SCAN.
 */
export function jsonSequence(text: string, opens = '{['): Array<{ value: unknown; text: string }> | undefined {
  const values: Array<{ value: unknown; text: string }> = [];
  const budget = { left: MAX_BALANCED_SCAN };
  for (let i = 0; ; ) {
    while (i < text.length && (text[i] === ',' || /\s/.test(text[i]))) i++;
    if (i >= text.length) break;
    if (!opens.includes(text[i])) return undefined;
    const end = balancedEnd(text, i, budget);
    if (end < 0) return undefined;
    const slice = text.slice(i, end);
    const parsed = tryParse(slice);
    if (!parsed.ok) return undefined;
    values.push({ value: parsed.value, text: slice });
    i = end;
  }
  return values.length > 0 ? values : undefined;
}

/**
 * The first balanced JSON value in `text` that opens with one of `opens` (`{`, `[`) and parses; a
 * candidate that fails is retried from the next opening bracket. Bounded by MAX_BALANCED_SCAN.
 */
export function firstBalancedJson(text: string, opens = '{['): { ok: true; value: unknown } | { ok: false } {
  for (const value of balancedJsonValues(text, opens)) return { ok: true, value };
  return { ok: false };
}

/**
 * Extract a JSON value from `text`: the whole trimmed text (scalars count), else the first fenced
 * block labelled json that parses, else any other fenced block that parses, else the first balanced
 * `{…}` or `[…]` that parses (a candidate that fails is retried from the next bracket).
 */
export function extractJson(text: string): JsonExtraction {
  const whole = tryParse(text);
  if (whole.ok) return { ok: true, value: whole.value, source: 'whole' };
  for (const block of fencedBlocks(text)) {
    const parsed = tryParse(block);
    if (parsed.ok) return { ok: true, value: parsed.value, source: 'fence' };
  }
  const balanced = firstBalancedJson(text);
  return balanced.ok ? { ok: true, value: balanced.value, source: 'balanced' } : { ok: false };
}
