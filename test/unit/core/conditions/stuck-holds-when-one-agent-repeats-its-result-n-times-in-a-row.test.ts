/** The `stuck` condition plugin (core/conditions/builtin/stuck.ts). */
import { stuck } from '../../../../src/core/conditions/builtin/stuck';
import { describeCondition } from '../../../../src/core/conditions/describe';
import { evaluateTermination } from '../../../../src/core/conditions/evaluate';
import { parseCondition } from '../../../../src/core/conditions/parse';
import { getConditionPlugin } from '../../../../src/core/conditions/registry';
import type { Condition } from '../../../../src/core/conditions/types';
import { hashWindow } from '../../../../src/core/conditions/walk';
import { hintFor } from '../../../../src/core/ending/reasons';
import { describeGuard } from '../../../../src/core/graph/render-labels';
import { record, recordAll, term } from '../../fixtures/termination-view';

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

describe('the stuck plugin', () => {
  it('is the registered stuck condition', () => {
    expect(getConditionPlugin('stuck')).toBe(stuck);
  });

  it('compiles repeats and the agent it watches (trimmed), and needs at least 2 repeats', () => {
    expect(parseCondition({ stuck: { repeats: 3, agent: ' writer ' } }).condition).toEqual({ kind: 'stuck', repeats: 3, agent: 'writer' });
    expect(parseCondition({ stuck: { repeats: 2 } }).condition).toEqual({ kind: 'stuck', repeats: 2 });
    expect(parseCondition({ stuck: { repeats: 1 } }).issues).toEqual([{ path: ['stuck', 'repeats'], message: 'must be an integer >= 2' }]);
  });

  it('is described in prompts by its count, and labelled in pictures with the agent it watches', () => {
    const any: Condition = { kind: 'stuck', repeats: 3 };
    const writer: Condition = { kind: 'stuck', repeats: 3, agent: 'writer' };
    expect(describeCondition(any)).toBe('3 repeated identical results');
    expect(describeGuard(any)).toBe('3 identical results');
    expect(describeGuard(writer)).toBe('3 identical results from writer');
  });

  it('makes the run keep as many hashes per agent as it compares, and names what to do when it ends a run', () => {
    expect(hashWindow(term([{ kind: 'stuck', repeats: 5 }]))).toBe(5);
    expect(hintFor('stuck')).toBe('an agent kept returning the same result; revise its instructions or raise stuck.repeats');
  });
});
