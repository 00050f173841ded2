import { hashResult } from '../../src/core/text/hash';
import { conditionHolds, evaluateTermination } from '../../src/core/conditions/evaluate';
import { verdictKey } from '../../src/core/conditions/view';
import type { Condition } from '../../src/core/conditions/types';
import { record, recordAll, term, view } from './fixtures/termination-view';
import { lineText } from '../../src/core/waves/capture';

const stopOf = (c: Condition, v = view()) => evaluateTermination(term([c]), v);

describe('max_iterations', () => {
  const c: Condition = { kind: 'max_iterations', n: 3 };

  it('holds when some loop group counter reaches N (rolebox case 39)', () => {
    expect(stopOf(c, view({ loopCounters: { a: 3, b: 1 } }))).toEqual({
      reason: 'max_iterations',
      reasonText: 'max_iterations: loop a reached 3',
      priority: 3,
      status: 'exhausted',
    });
  });

  it('names the group that reached the cap', () => {
    expect(stopOf({ kind: 'max_iterations', n: 5 }, view({ loopCounters: { 'writer,critic': 5 } }))?.reasonText).toBe(
      'max_iterations: loop writer,critic reached 5',
    );
    expect(stopOf(c, view({ loopCounters: { a: 1, 'b,c': 4 } }))?.reasonText).toBe('max_iterations: loop b,c reached 4');
  });

  it('does not hold below N or without loop counters', () => {
    expect(conditionHolds(c, view({ loopCounters: { a: 1, b: 2 } }))).toBe(false);
    expect(conditionHolds(c, view())).toBe(false);
  });
});

describe('timeout_ms', () => {
  it('holds once the round active time reaches the limit (rolebox case 40)', () => {
    expect(stopOf({ kind: 'timeout_ms', ms: 500 }, view({ roundActiveMs: 1000 }))).toEqual({
      reason: 'timeout',
      reasonText: 'timeout: 0.5s of active time elapsed',
      priority: 4,
      status: 'exhausted',
    });
    expect(conditionHolds({ kind: 'timeout_ms', ms: 120_000 }, view({ roundActiveMs: 120_000 }))).toBe(true);
    expect(stopOf({ kind: 'timeout_ms', ms: 120_000 }, view({ roundActiveMs: 120_000 }))?.reasonText).toBe(
      'timeout: 120s of active time elapsed',
    );
  });

  it('does not hold before the limit', () => {
    expect(conditionHolds({ kind: 'timeout_ms', ms: 5000 }, view({ roundActiveMs: 1000 }))).toBe(false);
    expect(conditionHolds({ kind: 'timeout_ms', ms: 1000 }, view({ roundActiveMs: 999 }))).toBe(false);
  });
});

describe('converged', () => {
  const t = term([{ kind: 'converged', agent: 'critic' }]);
  const judged = (converged: boolean, hashOf: string, reason?: string) => {
    const v = recordAll(t, [['critic', 'looks good']]);
    return { ...v, verdicts: { [verdictKey('critic')]: { hash: hashResult(hashOf), converged, reason } } };
  };

  it('holds when the judge accepted the latest result (rolebox case 44)', () => {
    expect(evaluateTermination(t, judged(true, 'looks good', 'meets the brief'))).toEqual({
      reason: 'converged',
      reasonText: 'converged: judge accepted critic (meets the brief)',
      priority: 0,
      status: 'completed',
    });
  });

  it('omits the parenthesis when the judge gave no reason', () => {
    expect(evaluateTermination(t, judged(true, 'looks good'))?.reasonText).toBe('converged: judge accepted critic');
  });

  it('does not hold when the judge said no or failed (verdict false)', () => {
    expect(evaluateTermination(t, judged(false, 'looks good'))).toBeNull();
  });

  it('does not hold when the verdict judged an older result', () => {
    expect(evaluateTermination(t, judged(true, 'an older draft'))).toBeNull();
  });

  it('does not hold with no verdict or no result', () => {
    expect(evaluateTermination(t, recordAll(t, [['critic', 'x']]))).toBeNull();
    const orphan = view({ verdicts: { critic: { hash: hashResult('x'), converged: true } } });
    expect(evaluateTermination(t, orphan)).toBeNull();
  });

  it('reads the verdict for its own criteria only', () => {
    const withCriteria = term([{ kind: 'converged', agent: 'critic', criteria: 'cites sources' }]);
    const v = judged(true, 'looks good');
    expect(evaluateTermination(withCriteria, v)).toBeNull();
    const v2 = { ...v, verdicts: { [verdictKey('critic', 'cites sources')]: v.verdicts.critic } };
    expect(evaluateTermination(withCriteria, v2)?.reason).toBe('converged');
  });
});

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

describe('stuck', () => {
  const t3 = term([{ kind: 'stuck', repeats: 3 }]);

  it('holds when one agent repeats the same result N times in a row', () => {
    const v = recordAll(t3, [
      ['writer', 'same draft'],
      ['critic', 'no'],
      ['writer', 'same  draft'],
      ['critic', 'no!'],
      ['writer', 'same draft'],
    ]);
    expect(evaluateTermination(t3, v)).toEqual({
      reason: 'stuck',
      reasonText: 'stuck: writer repeated the same result 3 times',
      priority: 2,
      status: 'exhausted',
    });
  });

  it('does not hold when different agents share a hash (rolebox case 41 stopped here; troupe does not)', () => {
    const v = recordAll(t3, [
      ['alice', 'same'],
      ['bob', 'same'],
      ['carol', 'same'],
    ]);
    expect(evaluateTermination(t3, v)).toBeNull();
  });

  it('counts consecutive repeats only', () => {
    const v = recordAll(t3, [
      ['writer', 'a'],
      ['writer', 'a'],
      ['writer', 'b'],
      ['writer', 'a'],
    ]);
    expect(evaluateTermination(t3, v)).toBeNull();
  });

  it('does not hold with two distinct hashes and repeats 2 (rolebox case 41)', () => {
    const t2 = term([{ kind: 'stuck', repeats: 2 }]);
    expect(evaluateTermination(t2, recordAll(t2, [['a', 'x'], ['a', 'y']]))).toBeNull();
    expect(evaluateTermination(t2, recordAll(t2, [['a', 'x'], ['a', 'x']]))?.reason).toBe('stuck');
  });

  it('with `agent`, watches only that agent', () => {
    const t = term([{ kind: 'stuck', repeats: 2, agent: 'critic' }]);
    const writerStuck = recordAll(t, [['writer', 'x'], ['writer', 'x'], ['critic', 'a']]);
    expect(evaluateTermination(t, writerStuck)).toBeNull();
    expect(evaluateTermination(t, record(writerStuck, t, 'critic', 'a'))?.reasonText).toBe(
      'stuck: critic repeated the same result 2 times',
    );
  });
});

describe('signal_observed', () => {
  it('holds when a signal of that type was received this round', () => {
    const c: Condition = { kind: 'signal_observed', type: 'approved' };
    expect(stopOf(c, view({ signals: ['progress', 'approved'] }))).toEqual({
      reason: 'signal',
      reasonText: 'signal: received "approved"',
      priority: 1,
      status: 'completed',
    });
    expect(conditionHolds(c, view({ signals: ['progress'] }))).toBe(false);
  });
});

describe('max_messages (AutoGen MaxMessageTermination, case 7)', () => {
  const t = term([{ kind: 'max_messages', n: 2 }]);

  it('counts agent results of the round only: 0 and 1 do not stop, 2 do', () => {
    expect(evaluateTermination(t, view())).toBeNull();
    const one = recordAll(t, [['a', 'Hello']]);
    expect(evaluateTermination(t, one)).toBeNull();
    expect(evaluateTermination(t, record(one, t, 'b', 'World'))).toEqual({
      reason: 'max_messages',
      reasonText: 'max_messages: 2 agent results >= 2',
      priority: 3,
      status: 'exhausted',
    });
  });

  it('reports the actual count when it passed the limit', () => {
    expect(evaluateTermination(term([{ kind: 'max_messages', n: 6 }]), view({ messages: 7 }))?.reasonText).toBe(
      'max_messages: 7 agent results >= 6',
    );
  });
});

describe('text_mention (AutoGen TextMentionTermination, cases 9, 10, 33)', () => {
  const stop: Condition = { kind: 'text_mention', text: 'stop' };
  const t = term([stop]);

  it('latches when an agent result contains the text', () => {
    const hello = recordAll(t, [['agent', 'Hello']]);
    expect(evaluateTermination(t, hello)).toBeNull();
    expect(evaluateTermination(t, record(hello, t, 'agent', 'please stop now'))).toEqual({
      reason: 'text_mention',
      reasonText: 'text_mention: "stop" in agent',
      priority: 1,
      status: 'completed',
    });
  });

  it('is case-sensitive', () => {
    expect(evaluateTermination(t, recordAll(t, [['agent', 'STOP']]))).toBeNull();
  });

  it('only agent results latch it, so a task quoting the text does not stop the round (AutoGen #6826)', () => {
    const mention = term([{ kind: 'text_mention', text: 'TERMINATE' }]);
    expect(evaluateTermination(mention, view())).toBeNull();
    const afterFirst = recordAll(mention, [['poet', 'Here is the poem about roses']]);
    expect(evaluateTermination(mention, afterFirst)).toBeNull();
    expect(evaluateTermination(mention, record(afterFirst, mention, 'poet', 'TERMINATE'))?.reason).toBe('text_mention');
  });

  it('with sources, only results of those agents latch it', () => {
    const fromCritic = term([{ kind: 'text_mention', text: 'APPROVE', sources: ['critic'] }]);
    const writerSaid = recordAll(fromCritic, [['writer', 'I APPROVE of myself']]);
    expect(evaluateTermination(fromCritic, writerSaid)).toBeNull();
    expect(evaluateTermination(fromCritic, record(writerSaid, fromCritic, 'critic', 'APPROVE'))?.reasonText).toBe(
      'text_mention: "APPROVE" in critic',
    );
  });

  it('stays latched for the round after the agent moves on, naming no agent then', () => {
    const v = recordAll(t, [['agent', 'stop'], ['agent', 'carry on']]);
    expect(evaluateTermination(t, v)?.reasonText).toBe('text_mention: "stop" mentioned this round');
  });
});

describe('token_usage (AutoGen TokenUsageTermination, case 11)', () => {
  const usage = (p: number, c: number) => ({ promptTokens: p, completionTokens: c, totalTokens: p + c });

  it('holds when round usage reaches any configured limit', () => {
    const total10: Condition = { kind: 'token_usage', maxTotalTokens: 10 };
    expect(conditionHolds(total10, view())).toBe(false);
    expect(conditionHolds(total10, view({ usage: usage(10, 10) }))).toBe(true);
    expect(conditionHolds(total10, view({ usage: usage(2, 2) }))).toBe(false);
    expect(stopOf(total10, view({ usage: usage(5, 5) }))).toEqual({
      reason: 'token_usage',
      reasonText: 'token_usage: round used 10 total tokens >= 10',
      priority: 3,
      status: 'exhausted',
    });
  });

  it('reports the prompt or completion limit that was reached', () => {
    const both: Condition = { kind: 'token_usage', maxPromptTokens: 100, maxCompletionTokens: 50 };
    expect(stopOf(both, view({ usage: usage(20, 60) }))?.reasonText).toBe('token_usage: round used 60 completion tokens >= 50');
    expect(stopOf(both, view({ usage: usage(120, 10) }))?.reasonText).toBe('token_usage: round used 120 prompt tokens >= 100');
    expect(conditionHolds(both, view({ usage: usage(99, 49) }))).toBe(false);
  });
});

describe('regex matchers read the reply trimmed at both ends (troupe 0.3)', () => {
  it('a reply that opens with blank lines or spaces still matches ^APPROVED', () => {
    const reply = '\n\n   APPROVED — ship it\n';
    expect(lineText(reply, true)).toBe('APPROVED — ship it');
    expect(/^APPROVED/.test(lineText(reply, true))).toBe(true);
    // troupe 0.2 runs keep the leading lines (their histories replay as they ran)
    expect(/^APPROVED/.test(lineText(reply))).toBe(false);
  });
});
