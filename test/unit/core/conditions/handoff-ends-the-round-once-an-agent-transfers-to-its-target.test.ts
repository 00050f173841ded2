/** The `handoff` condition plugin (core/conditions/builtin/handoff.ts): docs/semantics.md "Termination conditions", AutoGen HandoffTermination. */
import { handoff } from '../../../../src/core/conditions/builtin/handoff';
import { describeCondition } from '../../../../src/core/conditions/describe';
import { conditionHolds, evaluateTermination } from '../../../../src/core/conditions/evaluate';
import { parseCondition } from '../../../../src/core/conditions/parse';
import { getConditionPlugin } from '../../../../src/core/conditions/registry';
import type { Condition } from '../../../../src/core/conditions/types';
import { formatIssue, loadRoleConfig } from '../../../../src/core/config/load';
import { hintFor, priorityOf, statusForReason } from '../../../../src/core/ending/reasons';
import { describeGuard } from '../../../../src/core/graph/render-labels';
import { term, view } from '../../fixtures/termination-view';

const to = (target: string): Condition => ({ kind: 'handoff', target });

describe('handoff holds once an agent transferred to its target this round', () => {
  it('stops the round completed with reason handoff, naming who handed off to whom', () => {
    const v = view({ handoffs: [{ from: 'triage', to: 'billing' }] });
    expect(evaluateTermination(term([to('billing')]), v)).toEqual({
      reason: 'handoff',
      reasonText: 'handoff: triage handed off to billing',
      priority: 1,
      status: 'completed',
    });
  });

  it('does not hold without a transfer, or on a transfer to another target', () => {
    expect(conditionHolds(to('billing'), view())).toBe(false);
    expect(conditionHolds(to('billing'), view({ handoffs: [] }))).toBe(false);
    expect(conditionHolds(to('billing'), view({ handoffs: [{ from: 'triage', to: 'tech' }] }))).toBe(false);
  });

  it('stays seen for the rest of the round, and the reason names the first transfer to the target', () => {
    const v = view({
      handoffs: [
        { from: 'triage', to: 'tech' },
        { from: 'tech', to: 'billing' },
        { from: 'billing', to: 'triage' },
        { from: 'triage', to: 'billing' },
      ],
    });
    expect(evaluateTermination(term([to('billing')]), v)?.reasonText).toBe('handoff: tech handed off to billing');
  });

  it('holds on a transfer to the user', () => {
    const v = view({ handoffs: [{ from: 'billing', to: 'user' }] });
    expect(evaluateTermination(term([to('user')]), v)?.reasonText).toBe('handoff: billing handed off to user');
    expect(conditionHolds(to('billing'), v)).toBe(false);
  });

  it('compares the target exactly (case-sensitive, as agent names are)', () => {
    expect(conditionHolds(to('billing'), view({ handoffs: [{ from: 'triage', to: 'Billing' }] }))).toBe(false);
  });
});

describe('the handoff plugin', () => {
  it('is the registered handoff condition, reporting handoff as completed at priority 1 (with result_match)', () => {
    expect(getConditionPlugin('handoff')).toBe(handoff);
    expect(statusForReason('handoff')).toBe('completed');
    expect(priorityOf('handoff')).toBe(1);
    expect(priorityOf('handoff')).toBe(priorityOf('result_match'));
    expect(hintFor('handoff')).toBeUndefined();
  });

  it('compiles a target name, trimmed, and names it as an agent, unless it is the user', () => {
    const r = parseCondition({ handoff: ' billing ' });
    expect(r).toEqual({
      condition: to('billing'),
      issues: [],
      agents: [{ kind: 'handoff', agent: 'billing', path: ['handoff'], item: [] }],
    });
    expect(parseCondition({ handoff: 'user' })).toEqual({ condition: to('user'), issues: [], agents: [] });
  });

  it('refuses a value that is not a non-empty string, at the key', () => {
    const issues = (value: unknown) => parseCondition({ handoff: value }).issues;
    expect(issues('')).toEqual([{ path: ['handoff'], message: 'must be a non-empty string' }]);
    expect(issues('   ')).toEqual([{ path: ['handoff'], message: 'must be a non-empty string' }]);
    expect(issues(3)).toEqual([{ path: ['handoff'], message: 'expected string, got number' }]);
    expect(issues(['billing', 'tech'])).toEqual([{ path: ['handoff'], message: 'expected string, got array' }]);
    expect(issues({ target: 'billing' })).toEqual([{ path: ['handoff'], message: 'expected string, got object' }]);
    expect(issues(null)).toEqual([{ path: ['handoff'], message: 'expected string, got null' }]);
    expect(parseCondition({ handoff: '' }).agents).toEqual([]);
  });

  it('is not a call-form string', () => {
    expect(parseCondition('handoff(user)').issues[0].message).toMatch(/is not a condition/);
  });

  it('is described in prompts by its target, and labelled in pictures', () => {
    expect(describeCondition(to('billing'))).toBe('a handoff to Billing');
    expect(describeCondition(to('user'))).toBe('a handoff to the user');
    expect(describeGuard(to('billing'))).toBe('handoff to billing');
    expect(describeGuard(to('user'))).toBe('handoff to user');
  });
});

describe('a role file whose handoff condition names an agent', () => {
  const roleWith = (target: string) => `name: support
agents:
  triage:
    instructions: Route the request.
  billing:
    instructions: Answer billing questions.
collaboration:
  flow:
    - parent -> triage
    - triage -> billing
    - billing -> parent
  termination:
    any_of:
      - handoff: ${target}
`;
  const located = (text: string) => loadRoleConfig(text, 'role.yaml').errors.map(formatIssue);

  it('reports an unknown agent at the name, with a did-you-mean', () => {
    expect(located(roleWith('biling'))).toEqual([
      'role.yaml:14:18 collaboration.termination.any_of[0].handoff: termination handoff references unknown agent "biling" (did you mean "billing"?)',
    ]);
  });

  it('accepts a declared agent and the user', () => {
    expect(located(roleWith('billing'))).toEqual([]);
    expect(located(roleWith('user'))).toEqual([]);
  });

  it('reports an invalid value at the value', () => {
    expect(located(roleWith('[billing]'))).toEqual(['role.yaml:14:18 collaboration.termination.any_of[0].handoff: expected string, got array']);
  });
});
