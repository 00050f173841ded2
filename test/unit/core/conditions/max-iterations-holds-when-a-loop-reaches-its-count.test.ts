/** The `max_iterations` condition plugin (core/conditions/builtin/max-iterations.ts). */
import { maxIterations } from '../../../../src/core/conditions/builtin/max-iterations';
import { describeCondition } from '../../../../src/core/conditions/describe';
import { conditionHolds, evaluateTermination } from '../../../../src/core/conditions/evaluate';
import { parseCondition } from '../../../../src/core/conditions/parse';
import { getConditionPlugin } from '../../../../src/core/conditions/registry';
import type { Condition } from '../../../../src/core/conditions/types';
import { loopBounds } from '../../../../src/core/conditions/walk';
import { describeGuard } from '../../../../src/core/graph/render-labels';
import { term, view } from '../../fixtures/termination-view';

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

describe('the max_iterations plugin', () => {
  it('is the registered max_iterations condition', () => {
    expect(getConditionPlugin('max_iterations')).toBe(maxIterations);
  });

  it('compiles a whole count of at least 1, and names a count that is not one', () => {
    expect(parseCondition({ max_iterations: 4 })).toEqual({ condition: { kind: 'max_iterations', n: 4 }, issues: [], agents: [] });
    expect(parseCondition({ max_iterations: 1 }).condition).toEqual({ kind: 'max_iterations', n: 1 });
    expect(parseCondition({ max_iterations: 0 }).issues).toEqual([{ path: ['max_iterations'], message: 'must be an integer >= 1' }]);
  });

  it('is described in prompts and labelled in pictures by its count', () => {
    const c: Condition = { kind: 'max_iterations', n: 4 };
    expect(describeCondition(c)).toBe('4 iterations');
    expect(describeGuard(c)).toBe('4 iterations');
  });

  it('bounds the loops at its count, ending the run alone only outside a many-item all_of', () => {
    const c: Condition = { kind: 'max_iterations', n: 4 };
    expect(loopBounds(term([c]))).toEqual([{ bound: { kind: 'iterations', n: 4 }, endsAlone: true }]);
    expect(loopBounds(term([], [c, { kind: 'timeout_ms', ms: 10 }]))).toEqual([{ bound: { kind: 'iterations', n: 4 }, endsAlone: false }]);
  });
});
