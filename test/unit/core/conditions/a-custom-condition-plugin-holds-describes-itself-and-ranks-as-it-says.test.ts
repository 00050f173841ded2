import { clearRegisteredConditions, registerCondition } from '../../../../src/core/conditions/registry';
import { describeCondition, describeTermination } from '../../../../src/core/conditions/describe';
import { conditionHolds, evaluateTermination } from '../../../../src/core/conditions/evaluate';
import { priorityOf, statusForReason } from '../../../../src/core/ending/reasons';
import type { Condition } from '../../../../src/core/conditions/types';
import type { TerminationView } from '../../../../src/core/conditions/view';
import { recordAll, term, view } from '../../fixtures/termination-view';

interface Approvals {
  n: number;
}

function registerApprovals(over: { priority?: number; status?: 'completed' | 'exhausted' } = {}): void {
  registerCondition<Approvals>('approvals', {
    parse: (value) => (typeof value === 'number' ? { ok: true, params: { n: value } } : { ok: false, message: 'must be a number' }),
    holds: (p, v: TerminationView) => Object.values(v.latest).filter((r) => r.text.includes('APPROVED')).length >= p.n,
    reason: 'approved_by_all',
    priority: over.priority ?? 1,
    status: over.status,
    describe: (p) => `${p.n} approvals`,
  });
}

const approvals = (n: number): Condition => ({ kind: 'custom', key: 'approvals', params: { n } });

afterEach(() => clearRegisteredConditions());

describe('custom conditions through registerCondition', () => {
  it('are evaluated by the plugin and report its reason, priority, status and description', () => {
    registerApprovals();
    const t = term([approvals(2)]);
    const one = recordAll(t, [['a', 'APPROVED'], ['b', 'no']]);
    expect(evaluateTermination(t, one)).toBeNull();
    const two = recordAll(t, [['a', 'APPROVED'], ['b', 'APPROVED']]);
    expect(evaluateTermination(t, two)).toEqual({
      reason: 'approved_by_all',
      reasonText: 'approved_by_all: 2 approvals',
      priority: 1,
      status: 'completed',
    });
  });

  it('use the plugin status and its priority against built-ins', () => {
    registerApprovals({ priority: 4, status: 'exhausted' });
    const v = recordAll(term(), [['a', 'APPROVED']], view({ loopCounters: { g: 3 } }));
    const t = term([approvals(1), { kind: 'max_iterations', n: 3 }]);
    expect(evaluateTermination(t, v)?.reason).toBe('max_iterations');
    expect(evaluateTermination(term([approvals(1)]), v)?.status).toBe('exhausted');
    expect(statusForReason('approved_by_all')).toBe('exhausted');
    expect(priorityOf('approved_by_all')).toBe(4);
  });

  it('tie with a built-in of equal priority by list order', () => {
    registerApprovals({ priority: 1 });
    const match: Condition = { kind: 'result_matches', agent: 'a', contains: 'APPROVED' };
    const v = recordAll(term(), [['a', 'APPROVED']]);
    expect(evaluateTermination(term([approvals(1), match]), v)?.reason).toBe('approved_by_all');
    expect(evaluateTermination(term([match, approvals(1)]), v)?.reason).toBe('result_match');
  });

  it('are described for prompts by the plugin', () => {
    registerApprovals();
    expect(describeCondition(approvals(2))).toBe('2 approvals');
    expect(describeTermination(term([approvals(2), { kind: 'max_iterations', n: 5 }]))).toEqual([
      'This graph stops when ANY of: 2 approvals; 5 iterations',
    ]);
  });

  it('never hold when the key is not registered (e.g. a worker without the plugin module)', () => {
    expect(conditionHolds(approvals(0), view())).toBe(false);
    expect(evaluateTermination(term([approvals(0)]), view())).toBeNull();
  });

  it('count as not holding when the plugin throws, instead of failing the workflow task', () => {
    registerCondition('boom', {
      parse: () => ({ ok: true, params: null }),
      holds: () => {
        throw new Error('plugin bug');
      },
      reason: 'boom',
      priority: 1,
    });
    expect(conditionHolds({ kind: 'custom', key: 'boom', params: null }, view())).toBe(false);
  });

  it('default to status completed when the plugin sets none', () => {
    registerApprovals();
    expect(statusForReason('approved_by_all')).toBe('completed');
  });
});
