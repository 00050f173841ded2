/** The `result_matches` condition plugin (core/conditions/builtin/result-matches.ts). */
import { resultMatches } from '../../../../src/core/conditions/builtin/result-matches';
import { describeCondition } from '../../../../src/core/conditions/describe';
import { conditionHolds, evaluateTermination } from '../../../../src/core/conditions/evaluate';
import { parseCondition } from '../../../../src/core/conditions/parse';
import { getConditionPlugin } from '../../../../src/core/conditions/registry';
import type { Condition } from '../../../../src/core/conditions/types';
import { hashWindow, readsLines, scoreReaders } from '../../../../src/core/conditions/walk';
import { describeGuard } from '../../../../src/core/graph/render-labels';
import { lineText } from '../../../../src/core/waves/capture';
import { record, recordAll, term, view } from '../../fixtures/termination-view';

const stopOf = (c: Condition, v = view()) => evaluateTermination(term([c]), v);

describe('result_matches', () => {
  const rm = (m: Partial<Extract<Condition, { kind: 'result_matches' }>>): Condition => ({
    kind: 'result_matches',
    agent: 'critic',
    ...m,
  });
  const after = (c: Condition, ...texts: string[]) =>
    recordAll(
      term([c]),
      texts.map((x) => ['critic', x] as [string, string]),
    );

  it('contains: case-sensitive substring of the normalized text (rolebox case 45)', () => {
    const c = rm({ contains: 'done' });
    expect(conditionHolds(c, after(c, 'the task is done successfully'))).toBe(true);
    expect(conditionHolds(c, after(c, 'the task is DONE'))).toBe(false);
    expect(stopOf(c, after(c, 'the task is done'))?.reasonText).toBe('result_match: critic contains "done"');
  });

  it('contains: matches across line breaks because both sides are normalized', () => {
    const c = rm({ contains: 'all\n  good' });
    expect(conditionHolds(c, after(c, 'it is all\n\n   good now'))).toBe(true);
  });

  it('regex: a JS RegExp with flags; an invalid pattern never holds', () => {
    const c = rm({ regex: 'passed in \\d+' });
    expect(conditionHolds(c, after(c, 'build passed in 12.3s'))).toBe(true);
    const ci = rm({ regex: '^lgtm', flags: 'i' });
    expect(conditionHolds(ci, after(ci, 'LGTM, ship it'))).toBe(true);
    expect(stopOf(ci, after(ci, 'LGTM'))?.reasonText).toBe('result_match: critic matches /^lgtm/i');
    const bad = rm({ regex: '[invalid' });
    expect(conditionHolds(bad, after(bad, '[invalid'))).toBe(false);
  });

  it.each([
    ['Code review score: 85', 80, true],
    ['Code review score: 65', 80, false],
    ['**Score:** 85', 85, true],
    ['subscore: 90', 85, false],
    ['Score: 8.5', 8.5, true],
    ['Score: 8.5', 9, false],
    ['score = 9', 9, true],
    ['score: -5', -10, true],
    ['score: -5', 0, false],
    ['score: high', 0, false],
    ['no score at all', 0, false],
  ])('score_gte: %j against %p holds=%p', (text, min, holds) => {
    const c = rm({ scoreGte: min });
    expect(conditionHolds(c, after(c, text))).toBe(holds);
  });

  it('score_gte: the reason text carries the score read and the threshold', () => {
    const c = rm({ scoreGte: 85 });
    expect(stopOf(c, after(c, 'Great essay. score: 85'))).toEqual({
      reason: 'result_match',
      reasonText: 'result_match: critic score 85 >= 85',
      priority: 1,
      status: 'completed',
    });
  });

  it('no_changes: holds only when the latest hash equals the previous one (rolebox was always true)', () => {
    const c = rm({ noChanges: true });
    expect(conditionHolds(c, after(c, 'draft'))).toBe(false);
    expect(conditionHolds(c, after(c, 'draft one', 'draft two'))).toBe(false);
    expect(conditionHolds(c, after(c, 'same  text', 'same\ntext'))).toBe(true);
    expect(conditionHolds(c, after(c, 'same', 'same', 'changed'))).toBe(false);
    expect(stopOf(c, after(c, 'same', 'same'))?.reasonText).toBe('result_match: critic repeated its previous result');
  });

  it('no_changes: false holds only when the latest result differs from the previous one', () => {
    const c = rm({ noChanges: false });
    expect(conditionHolds(c, after(c, 'one'))).toBe(false);
    expect(conditionHolds(c, after(c, 'one', 'two'))).toBe(true);
    expect(conditionHolds(c, after(c, 'one', 'one'))).toBe(false);
  });

  it('every given matcher must hold (rolebox checked only one, by precedence)', () => {
    const c = rm({ contains: 'APPROVED', scoreGte: 80 });
    expect(conditionHolds(c, after(c, 'APPROVED score: 70'))).toBe(false);
    expect(conditionHolds(c, after(c, 'score: 90'))).toBe(false);
    expect(stopOf(c, after(c, 'APPROVED score: 90'))?.reasonText).toBe(
      'result_match: critic contains "APPROVED" and score 90 >= 80',
    );
  });

  it('reads the latest result only (state conditions reflect the latest results)', () => {
    const c = rm({ contains: 'APPROVED' });
    expect(conditionHolds(c, after(c, 'APPROVED', 'needs work'))).toBe(false);
  });

  it('does not hold when the agent has no result this round (rolebox case 46)', () => {
    const c = rm({ contains: 'x' });
    expect(conditionHolds(c, recordAll(term([c]), [['writer', 'x']]))).toBe(false);
  });
});

describe('regex matchers read the reply trimmed at both ends', () => {
  it('a reply that opens with blank lines or spaces still matches ^APPROVED', () => {
    const reply = '\n\n   APPROVED — ship it\n';
    expect(lineText(reply)).toBe('APPROVED — ship it');
    const approved: Condition = { kind: 'result_matches', agent: 'a', regex: '^APPROVED' };
    expect(conditionHolds(approved, record(view(), term([approved]), 'a', reply))).toBe(true);
  });
});

describe('the result_matches plugin', () => {
  it('is the registered result_matches condition', () => {
    expect(getConditionPlugin('result_matches')).toBe(resultMatches);
  });

  it('compiles every matcher given, in the recorded order, with the agent trimmed', () => {
    const c = parseCondition({ result_matches: { no_changes: true, score_gte: 80, flags: 'i', regex: 'ok', contains: 'OK', agent: ' critic ' } }).condition;
    expect(JSON.stringify(c)).toBe('{"kind":"result_matches","agent":"critic","contains":"OK","regex":"ok","flags":"i","scoreGte":80,"noChanges":true}');
    expect(parseCondition({ result_matches: { agent: 'critic' } }).condition).toBeUndefined();
  });

  it('is described in prompts by its agent, and labelled in pictures with each matcher', () => {
    const c: Condition = { kind: 'result_matches', agent: 'critic', contains: 'OK', regex: '^ok', flags: 'i', scoreGte: 80, noChanges: true };
    expect(describeCondition(c)).toBe('Critic result matches criteria');
    expect(describeGuard(c)).toBe('critic contains "OK" and matches /^ok/i and score ≥ 80 and unchanged');
    expect(describeGuard({ kind: 'result_matches', agent: 'critic', scoreGte: 85 })).toBe('critic score ≥ 85');
  });

  it('asks the run for a score from its agent, line-kept text for a regex, and two hashes for no_changes, each only when used', () => {
    const contains = term([{ kind: 'result_matches', agent: 'critic', contains: 'OK' }]);
    expect([scoreReaders(contains), readsLines(contains)]).toEqual([[], false]);
    expect(scoreReaders(term([{ kind: 'result_matches', agent: 'critic', scoreGte: 1 }]))).toEqual(['critic']);
    expect(readsLines(term([{ kind: 'result_matches', agent: 'critic', regex: 'x' }]))).toBe(true);
    expect(hashWindow(term([{ kind: 'result_matches', agent: 'critic', noChanges: true }]))).toBe(2);
  });
});
