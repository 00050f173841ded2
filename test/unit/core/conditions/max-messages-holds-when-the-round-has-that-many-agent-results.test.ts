/** The `max_messages` condition plugin (core/conditions/builtin/max-messages.ts). */
import { maxMessages } from '../../../../src/core/conditions/builtin/max-messages';
import { describeCondition } from '../../../../src/core/conditions/describe';
import { evaluateTermination } from '../../../../src/core/conditions/evaluate';
import { parseCondition } from '../../../../src/core/conditions/parse';
import { getConditionPlugin } from '../../../../src/core/conditions/registry';
import type { Condition } from '../../../../src/core/conditions/types';
import { loopBounds } from '../../../../src/core/conditions/walk';
import { hintFor } from '../../../../src/core/ending/reasons';
import { describeGuard } from '../../../../src/core/graph/render-labels';
import { record, recordAll, term, view } from '../../fixtures/termination-view';

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

describe('the max_messages plugin', () => {
  const six: Condition = { kind: 'max_messages', n: 6 };

  it('is the registered max_messages condition', () => {
    expect(getConditionPlugin('max_messages')).toBe(maxMessages);
  });

  it('compiles a positive whole count, and names one that is not', () => {
    expect(parseCondition({ max_messages: 6 }).condition).toEqual(six);
    expect(parseCondition({ max_messages: 0 }).issues).toEqual([{ path: ['max_messages'], message: 'must be > 0' }]);
    expect(parseCondition({ max_messages: '6' }).issues).toEqual([{ path: ['max_messages'], message: 'expected number, got string' }]);
  });

  it('is described in prompts and labelled in pictures by its count', () => {
    expect(describeCondition(six)).toBe('6 messages');
    expect(describeGuard(six)).toBe('6 messages');
  });

  it('bounds the loops by messages, and names what to raise when it ends a run', () => {
    expect(loopBounds(term([six]))).toEqual([{ bound: { kind: 'messages', n: 6 }, endsAlone: true }]);
    expect(hintFor('max_messages')).toBe('raise the max_messages condition to allow more agent results');
  });
});
