/**
 * `result_matches: { agent, contains?, regex?, flags?, score_gte?, no_changes? }`: holds when every
 * matcher given holds on the agent's latest result this round. `contains` reads the normalized
 * text; `regex` the text with its line structure kept (so `^`/`$` with `m` anchor to lines);
 * `score_gte` the first `score: N` (the agent's prompt asks for it); `no_changes` compares the
 * latest result's hash with the one before.
 */
import { z } from 'zod';
import { clip, regexText } from '../../config/limits';
import { extractScore, needleOf } from '../../waves/capture';
import { agentField, type ConditionPlugin, type ParseResult } from '../plugin';
import { registerBuiltinCondition } from '../store';
import { capitalize } from '../texts';
import type { TerminationView } from '../view';

/** Compiled form. */
export interface ResultMatches {
  kind: 'result_matches';
  agent: string;
  contains?: string;
  regex?: string;
  flags?: string;
  scoreGte?: number;
  noChanges?: boolean;
}

/** Messages of this condition's checks. */
export const RESULT_MATCHES_MESSAGES = {
  /** Without a matcher it could never hold. */
  needsMatcher: 'needs at least one of contains, regex, score_gte, no_changes (without one it could never hold)',
  flags: 'may use only the flags i, m, s, u',
  invalidRegex: (source: string, why: string) => `invalid regex "${clip(source)}": ${why}`,
  repeatedFlag: (flags: string) => `flags "${flags}" repeat a letter`,
  flagsWithoutRegex: 'flags apply only to regex; add a regex or remove flags',
} as const;

const M = RESULT_MATCHES_MESSAGES;

const schema = z
  .strictObject({
    agent: z.string().min(1),
    contains: z.string().min(1).optional(),
    regex: z.string().min(1).optional(),
    flags: z
      .string()
      .regex(/^[imsu]*$/, M.flags)
      .optional(),
    score_gte: z.number().optional(),
    no_changes: z.boolean().optional(),
  })
  .refine((m) => m.contains !== undefined || m.regex !== undefined || m.score_gte !== undefined || m.no_changes !== undefined, {
    message: M.needsMatcher,
  });

/** The issue (its path under the key) that keeps the regex from compiling with its flags, if any. */
function regexIssue(m: { regex?: string; flags?: string }): Extract<ParseResult<never>, { ok: false }> | undefined {
  if (m.regex === undefined) return m.flags ? { ok: false, path: ['flags'], message: M.flagsWithoutRegex } : undefined;
  const flags = m.flags ?? '';
  if (new Set(flags).size !== flags.length) return { ok: false, path: ['flags'], message: M.repeatedFlag(flags) };
  try {
    new RegExp(m.regex, flags);
    return undefined;
  } catch (e) {
    const why = (e as Error).message.replace(/^.*: /, '');
    return { ok: false, path: ['regex'], message: M.invalidRegex(m.regex, why) };
  }
}

function parse(data: unknown): ParseResult<ResultMatches> {
  const d = data as z.output<typeof schema>;
  const issue = regexIssue(d);
  if (issue) return issue;
  const params: ResultMatches = {
    kind: 'result_matches',
    agent: d.agent.trim(),
    ...(d.contains !== undefined && { contains: d.contains }),
    ...(d.regex !== undefined && { regex: d.regex }),
    ...(d.flags !== undefined && { flags: d.flags }),
    ...(d.score_gte !== undefined && { scoreGte: d.score_gte }),
    ...(d.no_changes !== undefined && { noChanges: d.no_changes }),
  };
  return { ok: true, params };
}

/** The reason-text parts of the matchers when every one given holds, else null. */
function matchParts(c: ResultMatches, v: TerminationView): string[] | null {
  const latest = v.latest[c.agent];
  if (!latest) return null;
  const parts: string[] = [];
  if (c.contains !== undefined) {
    if (!latest.text.includes(needleOf(c.contains))) return null;
    parts.push(`contains ${JSON.stringify(c.contains)}`);
  }
  if (c.regex !== undefined) {
    let re: RegExp;
    try {
      re = new RegExp(c.regex, c.flags ?? '');
    } catch {
      return null;
    }
    // the line-kept text (troupe 0.2 runs) is bounded; a 0.1 run replays as it ran, on its own text
    if (!re.test(latest.lines !== undefined ? regexText(latest.lines) : latest.text)) return null;
    parts.push(`matches /${c.regex}/${c.flags ?? ''}`);
  }
  if (c.scoreGte !== undefined) {
    const score = extractScore(latest.text);
    if (score === null || score < c.scoreGte) return null;
    parts.push(`score ${score} >= ${c.scoreGte}`);
  }
  if (c.noChanges !== undefined) {
    const hashes = v.hashes[c.agent] ?? [];
    if (hashes.length < 2) return null;
    const same = hashes[hashes.length - 1] === hashes[hashes.length - 2];
    if (same !== c.noChanges) return null;
    parts.push(c.noChanges ? 'repeated its previous result' : 'changed its previous result');
  }
  return parts.length > 0 ? parts : null;
}

/** The `result_matches` condition. */
export const resultMatches: ConditionPlugin<ResultMatches> = {
  schema,
  parse,
  agents: agentField,
  holds: (c, v) => matchParts(c, v) !== null,
  reason: 'result_match', priority: 1,
  reasonText: (c, v) => `result_match: ${c.agent} ${(matchParts(c, v) ?? []).join(' and ')}`,
  describe: (c) => `${capitalize(c.agent)} result matches criteria`,
  label: (c) => {
    const parts = [
      c.contains !== undefined ? `contains "${c.contains}"` : '',
      c.regex !== undefined ? `matches /${c.regex}/${c.flags ?? ''}` : '',
      c.scoreGte !== undefined ? `score ≥ ${c.scoreGte}` : '',
      c.noChanges ? 'unchanged' : '',
    ].filter(Boolean);
    return `${c.agent} ${parts.join(' and ')}`;
  },
  scoreReaders: (c) => (c.scoreGte !== undefined ? [c.agent] : []),
  readsLines: (c) => c.regex !== undefined,
  patterns: (c) => (c.regex === undefined ? [] : [{ path: ['regex'], source: c.regex, flags: c.flags ?? '' }]),
  hashWindow: (c) => (c.noChanges !== undefined ? 2 : undefined),
};

registerBuiltinCondition('result_matches', resultMatches);
