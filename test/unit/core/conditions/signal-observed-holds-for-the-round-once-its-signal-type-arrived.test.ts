/** The `signal_observed` condition plugin (core/conditions/builtin/signal-observed.ts). */
import { signalObserved } from '../../../../src/core/conditions/builtin/signal-observed';
import { describeCondition } from '../../../../src/core/conditions/describe';
import { conditionHolds, evaluateTermination } from '../../../../src/core/conditions/evaluate';
import { parseCondition } from '../../../../src/core/conditions/parse';
import { getConditionPlugin } from '../../../../src/core/conditions/registry';
import type { Condition } from '../../../../src/core/conditions/types';
import { describeGuard } from '../../../../src/core/graph/render-labels';
import { term, view } from '../../fixtures/termination-view';

const stopOf = (c: Condition, v = view()) => evaluateTermination(term([c]), v);

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

describe('the signal_observed plugin', () => {
  const approved: Condition = { kind: 'signal_observed', type: 'approved' };

  it('is the registered signal_observed condition', () => {
    expect(getConditionPlugin('signal_observed')).toBe(signalObserved);
  });

  it('compiles a signal type, as a key or in the call form, and refuses a type that is no signal type', () => {
    expect(parseCondition({ signal_observed: 'approved' }).condition).toEqual(approved);
    expect(parseCondition('signal_observed(approved)').condition).toEqual(approved);
    expect(parseCondition({ signal_observed: 'Approved!' }).issues).toEqual([{ path: ['signal_observed'], message: 'must match [a-z][a-z0-9_]*' }]);
  });

  it('stays seen for the rest of the round, whatever signals come after it, and only its own type counts', () => {
    expect(conditionHolds(approved, view({ signals: ['approved', 'progress', 'progress'] }))).toBe(true);
    expect(conditionHolds(approved, view({ signals: ['approved_later', 'not_approved'] }))).toBe(false);
    expect(conditionHolds(approved, view())).toBe(false);
  });

  it('is described in prompts and labelled in pictures by its type', () => {
    expect(describeCondition(approved)).toBe('signal "approved" observed');
    expect(describeGuard(approved)).toBe('signal approved');
  });
});
