/**
 * Result capture: what counts as an agent's result, its normalized form (which
 * every matcher reads) and its hash, plus the `score: N` reader used by `score_gte`.
 */
import { hashResult } from '../text/hash';

const RESULT_OPEN = '```result';
const FENCE_CLOSE = '```';

/** The `score_gte` reader: first `score: N` / `score = N`, case-insensitive, word boundary, decimals, markdown bold. */
const SCORE_RE = /\bscore\b\**\s*[:=]\s*\**\s*(-?\d+(?:\.\d+)?)/i;

/**
 * The agent's result: the content of the last closed fenced block whose opening line is exactly
 * ```` ```result ```` (trimmed), else the whole text. An unclosed fence is not a result block.
 */
export function captureResult(text: string): string {
  const lines = text.split(/\r?\n/);
  let open: string[] | null = null;
  let last: string | null = null;
  for (const line of lines) {
    const trimmed = line.trim();
    if (open === null) {
      if (trimmed === RESULT_OPEN) open = [];
    } else if (trimmed === FENCE_CLOSE) {
      last = open.join('\n');
      open = null;
    } else {
      open.push(line);
    }
  }
  return last ?? text;
}

/**
 * The result with its line structure kept, as `regex` matchers read it: CRLF and CR become LF,
 * trailing spaces and tabs of every line are removed, and so are trailing line breaks, so `^` and `$`
 * with the `m` flag anchor to lines and `$` alone to the last line; leading whitespace goes too, so
 * a reply that opens with blank lines or spaces still matches `^APPROVED` (docs/semantics.md,
 * "Termination conditions").
 */
export function lineText(text: string): string {
  return text
    .replace(/\r\n?/g, '\n')
    .split('\n')
    .map((line) => line.replace(/[ \t]+$/, ''))
    .join('\n')
    .trim();
}

/** Whitespace runs collapsed to one space, trimmed: the text every other matcher and the hash read. */
export function normalizeResult(text: string): string {
  return text.replace(NOT_ONE_SPACE, ' ').trim();
}

/**
 * A whitespace run that is not already a single space: one that starts with another whitespace
 * character, or a space followed by more. Replacing only these gives what replacing every `\s+` run
 * gives, without rewriting the single spaces between words (4–5× faster on prose).
 */
const NOT_ONE_SPACE = /[^\S ]\s*| \s+/g;

/** The needle a text matcher looks for: normalized like the result, unless that would empty it. */
export function needleOf(text: string): string {
  return normalizeResult(text) || text;
}

/** The first `score: N` in the text (see `SCORE_RE`), or null when there is none. */
export function extractScore(text: string): number | null {
  const m = SCORE_RE.exec(text);
  return m ? Number(m[1]) : null;
}

/** A captured result as the run state stores it. */
interface CapturedResult {
  /** Normalized result text. */
  text: string;
  /** `hashResult(text)`. */
  hash: string;
}

/**
 * Capture, normalize and hash an agent's final assistant text in one step.
 * @internal exported for tests
 */
export function resultOf(rawText: string): CapturedResult {
  const text = normalizeResult(captureResult(rawText));
  return { text, hash: hashResult(text) };
}
