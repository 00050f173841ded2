/**
 * Whether a regular expression from a role file can backtrack catastrophically (docs/semantics.md,
 * "Bounds on hostile input"). Such patterns run on model output inside the workflow (`regex` matchers of
 * conditions and `when` guards, `pattern` keywords of `output.schema`), where one long hostile
 * result would block the workflow task until Temporal's deadlock detector fails it, again on every
 * retry. They are rejected when the role is validated.
 *
 * The checker is recheck's automaton-based analysis, which tells from the structure of the
 * pattern's backtracking automaton whether matching can take exponential or polynomial
 * (super-linear) time, rather than searching for attack strings (a search can miss one); what it
 * cannot analyse (back-references, look-arounds, a pattern too complex to finish within
 * {@link PATTERN_CHECK_TIMEOUT_MS}) is rejected too. recheck's browser build is used: the same
 * checker as its Node entry, pure JavaScript run in this thread, where the Node entry would hand the
 * work to a worker thread that may start a native binary or a JVM. Not imported by the workflow.
 */
import type { Diagnostics, Parameters } from 'recheck';
import { clip, MAX_PATTERN_LENGTH, PATTERN_CHECK_TIMEOUT_MS } from './limits';

type CheckSync = (source: string, flags: string, params?: Parameters) => Diagnostics;

let recheck: CheckSync | undefined;

function checker(): CheckSync {
  recheck ??= (require('recheck/lib/browser.js') as { checkSync: CheckSync }).checkSync;
  return recheck;
}

/** What the check found about one pattern; every kind but `safe` is an error. */
type PatternVerdict =
  | { kind: 'safe' }
  | { kind: 'too_long'; length: number }
  | { kind: 'exponential'; at?: string }
  | { kind: 'polynomial'; degree: number; at?: string }
  | { kind: 'unsupported'; feature: string }
  | { kind: 'unchecked' };

/**
 * Messages of the check, in one place so tests pin them. `noun` is `regex` or `pattern`.
 * @internal exported for tests
 */
export const REGEX_SAFETY_TEXTS = {
  tooLong: (noun: string, length: number) =>
    `${noun} is ${length} characters long; at most ${MAX_PATTERN_LENGTH} are accepted`,
  exponential: (noun: string, source: string, at?: string) =>
    `${noun} "${clip(source)}" can backtrack catastrophically: matching it can take exponential time${near(at)}, ` +
    'so one hostile agent result could stall the run; rewrite it so that each part of a text can be matched only one way',
  polynomial: (noun: string, source: string, degree: number, at?: string) =>
    `${noun} "${clip(source)}" can backtrack catastrophically: matching it can take ${degreeName(degree)} time in the length of the text${near(at)}, ` +
    'so one long agent result could stall the run; rewrite it so that each part of a text can be matched only one way',
  unsupported: (noun: string, source: string, feature: string) =>
    `${noun} "${clip(source)}" cannot be checked for catastrophic backtracking because it uses a ${feature}; rewrite it without one`,
  unchecked: (noun: string, source: string) =>
    `${noun} "${clip(source)}" could not be shown safe from catastrophic backtracking within ${PATTERN_CHECK_TIMEOUT_MS / 1000} s; simplify it`,
} as const;

function near(at: string | undefined): string {
  return at ? ` (around "${clip(at)}")` : '';
}

function degreeName(degree: number): string {
  if (degree === 2) return 'quadratic';
  if (degree === 3) return 'cubic';
  return `degree-${degree} polynomial`;
}

/** The message for a verdict other than `safe`. */
export function verdictMessage(noun: 'regex' | 'pattern', source: string, v: Exclude<PatternVerdict, { kind: 'safe' }>): string {
  switch (v.kind) {
    case 'too_long':
      return REGEX_SAFETY_TEXTS.tooLong(noun, v.length);
    case 'exponential':
      return REGEX_SAFETY_TEXTS.exponential(noun, source, v.at);
    case 'polynomial':
      return REGEX_SAFETY_TEXTS.polynomial(noun, source, v.degree, v.at);
    case 'unsupported':
      return REGEX_SAFETY_TEXTS.unsupported(noun, source, v.feature);
    case 'unchecked':
      return REGEX_SAFETY_TEXTS.unchecked(noun, source);
    default: {
      const never: never = v;
      return never;
    }
  }
}

/** The part of the pattern recheck blames first (its hottest hotspot). */
function hotspot(source: string, d: Extract<Diagnostics, { status: 'vulnerable' }>): string | undefined {
  const spot = d.hotspot.find((h) => h.temperature === 'heat') ?? d.hotspot[0];
  return spot ? source.slice(spot.start, spot.end) || undefined : undefined;
}

function verdictOf(source: string, d: Diagnostics): PatternVerdict {
  switch (d.status) {
    case 'safe':
      return { kind: 'safe' };
    case 'vulnerable':
      return d.complexity.type === 'exponential'
        ? { kind: 'exponential', at: hotspot(source, d) }
        : { kind: 'polynomial', degree: d.complexity.degree, at: hotspot(source, d) };
    case 'unknown':
      return d.error.kind === 'unsupported' ? { kind: 'unsupported', feature: d.error.message } : { kind: 'unchecked' };
    default: {
      const never: never = d;
      return never;
    }
  }
}

/** Verdicts already reached in this process, by flags and source (timeouts are not kept: they may pass later). */
const cache = new Map<string, PatternVerdict>();
const CACHE_SIZE = 1000;

/**
 * Check one pattern that compiles with `flags` (a pattern that does not compile is reported by its
 * owner). Never throws: a failure of the checker itself counts as `unchecked`.
 */
export function checkPattern(source: string, flags: string): PatternVerdict {
  if (source.length > MAX_PATTERN_LENGTH) return { kind: 'too_long', length: source.length };
  const key = `${flags}/${source}`;
  const hit = cache.get(key);
  if (hit) return hit;
  let verdict: PatternVerdict;
  try {
    verdict = verdictOf(source, checker()(source, flags, { checker: 'automaton', timeout: PATTERN_CHECK_TIMEOUT_MS }));
  } catch {
    verdict = { kind: 'unchecked' };
  }
  if (verdict.kind !== 'unchecked') {
    if (cache.size >= CACHE_SIZE) cache.clear();
    cache.set(key, verdict);
  }
  return verdict;
}
