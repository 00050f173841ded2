/** The `converged` condition plugin (core/conditions/builtin/converged.ts). */
import { converged } from '../../../../src/core/conditions/builtin/converged';
import { describeCondition } from '../../../../src/core/conditions/describe';
import { evaluateTermination } from '../../../../src/core/conditions/evaluate';
import { parseCondition } from '../../../../src/core/conditions/parse';
import { getConditionPlugin } from '../../../../src/core/conditions/registry';
import type { Condition } from '../../../../src/core/conditions/types';
import { verdictKey } from '../../../../src/core/conditions/view';
import { judgeTargets } from '../../../../src/core/conditions/walk';
import { describeGuard } from '../../../../src/core/graph/render-labels';
import { hashResult } from '../../../../src/core/text/hash';
import { recordAll, term, view } from '../../fixtures/termination-view';

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

describe('the converged plugin', () => {
  it('is the registered converged condition', () => {
    expect(getConditionPlugin('converged')).toBe(converged);
  });

  it('compiles the agent name (trimmed) or the object form with criteria, and names the agent it reads', () => {
    expect(parseCondition({ converged: ' critic ' })).toEqual({
      condition: { kind: 'converged', agent: 'critic' },
      issues: [],
      agents: [{ kind: 'converged', agent: 'critic', path: ['converged', 'agent'], item: [] }],
    });
    expect(parseCondition({ converged: { agent: 'critic', criteria: 'cites sources' } }).condition).toEqual({
      kind: 'converged',
      agent: 'critic',
      criteria: 'cites sources',
    });
    expect(parseCondition({ converged: '' }).condition).toBeUndefined();
  });

  it('is described in prompts as the agent approving, and labelled in pictures as converged', () => {
    const c: Condition = { kind: 'converged', agent: 'critic' };
    expect(describeCondition(c)).toBe('Critic approves');
    expect(describeGuard(c)).toBe('critic converged');
  });

  it('asks the run for a judge of its agent, with its criteria when given', () => {
    expect(judgeTargets(term([{ kind: 'converged', agent: 'critic' }]))).toEqual([{ agent: 'critic' }]);
    expect(judgeTargets(term([{ kind: 'converged', agent: 'critic', criteria: 'cites sources' }]))).toEqual([
      { agent: 'critic', criteria: 'cites sources' },
    ]);
  });
});
