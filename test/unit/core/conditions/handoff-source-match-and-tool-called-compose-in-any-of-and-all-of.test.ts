/**
 * `handoff`, `source_match` and `tool_called` in termination expressions, compiled by the real
 * parser and decided by the real evaluator: they nest in `any_of`/`all_of` like every condition,
 * and when several ends hold at once their priority 1 ranks them with `result_match`.
 */
import { describeTermination } from '../../../../src/core/conditions/describe';
import { evaluateTermination } from '../../../../src/core/conditions/evaluate';
import { parseConditionList } from '../../../../src/core/conditions/parse';
import type { Termination } from '../../../../src/core/conditions/types';
import type { TerminationView } from '../../../../src/core/conditions/view';
import { view } from '../../fixtures/termination-view';

/** A termination expression from its YAML lists, through the parser (which must accept them). */
function parsed(yaml: { any_of?: unknown[]; all_of?: unknown[] }): Termination {
  const anyOf = parseConditionList(yaml.any_of ?? []);
  const allOf = parseConditionList(yaml.all_of ?? []);
  expect([...anyOf.issues, ...allOf.issues]).toEqual([]);
  return { anyOf: anyOf.conditions, allOf: allOf.conditions };
}

const result = (text: string) => ({ text, hash: `h-${text}` });
const answered = (...agents: string[]): Partial<TerminationView> => ({ latest: Object.fromEntries(agents.map((a) => [a, result(a)])) });

describe('in any_of, one of them is enough', () => {
  const t = parsed({ any_of: [{ handoff: 'user' }, { source_match: ['closer'] }, { tool_called: 'publish' }, { max_messages: 10 }] });

  it('each stops the round by itself, with its own reason', () => {
    expect(evaluateTermination(t, view())).toBeNull();
    expect(evaluateTermination(t, view({ handoffs: [{ from: 'triage', to: 'user' }] }))?.reason).toBe('handoff');
    expect(evaluateTermination(t, view(answered('closer')))?.reason).toBe('source_match');
    expect(evaluateTermination(t, view({ toolsCalled: ['publish'] }))?.reason).toBe('tool_called');
    expect(evaluateTermination(t, view({ messages: 10 }))?.reason).toBe('max_messages');
  });

  it('win over max_messages (priority 3) when both hold, and tie among themselves by list order', () => {
    const all = view({ messages: 10, handoffs: [{ from: 'triage', to: 'user' }], toolsCalled: ['publish'], ...answered('closer') });
    expect(evaluateTermination(t, all)).toEqual({
      reason: 'handoff',
      reasonText: 'handoff: triage handed off to user',
      priority: 1,
      status: 'completed',
    });
    expect(evaluateTermination(t, view({ messages: 12, toolsCalled: ['publish'], ...answered('closer') }))?.reasonText).toBe(
      "source_match: 'closer' answered",
    );
  });

  it('lose to converged (priority 0) when both hold', () => {
    const withJudge = parsed({ any_of: [{ tool_called: 'publish' }, { converged: 'critic' }] });
    const v = view({ toolsCalled: ['publish'], latest: { critic: result('ok') }, verdicts: { critic: { hash: 'h-ok', converged: true } } });
    expect(evaluateTermination(withJudge, v)?.reason).toBe('converged');
  });

  it('tie with result_matches (both priority 1): the one listed first wins', () => {
    const v = view({ toolsCalled: ['publish'], latest: { critic: result('APPROVED') } });
    const toolFirst = parsed({ any_of: [{ tool_called: 'publish' }, { result_matches: { agent: 'critic', contains: 'APPROVED' } }] });
    const matchFirst = parsed({ any_of: [{ result_matches: { agent: 'critic', contains: 'APPROVED' } }, { tool_called: 'publish' }] });
    expect(evaluateTermination(toolFirst, v)?.reason).toBe('tool_called');
    expect(evaluateTermination(matchFirst, v)?.reason).toBe('result_match');
  });
});

describe('in all_of, every item must hold at the same evaluation', () => {
  const t = parsed({ all_of: [{ source_match: 'critic' }, { tool_called: ['publish', 'archive'] }] });

  it('does not stop on one alone', () => {
    expect(evaluateTermination(t, view(answered('critic')))).toBeNull();
    expect(evaluateTermination(t, view({ toolsCalled: ['archive'] }))).toBeNull();
  });

  it('stops once both hold, reporting the first listed', () => {
    expect(evaluateTermination(t, view({ toolsCalled: ['archive'], ...answered('critic') }))).toEqual({
      reason: 'source_match',
      reasonText: "source_match: 'critic' answered",
      priority: 1,
      status: 'completed',
    });
  });

  it('a handoff beside max_messages waits for both (AutoGen: Max(5) & Handoff("human"))', () => {
    const both = parsed({ all_of: [{ max_messages: 5 }, { handoff: 'user' }] });
    const handedOff = { handoffs: [{ from: 'agent', to: 'user' }] };
    expect(evaluateTermination(both, view(handedOff))).toBeNull();
    expect(evaluateTermination(both, view({ messages: 5 }))).toBeNull();
    expect(evaluateTermination(both, view({ messages: 5, ...handedOff }))?.reason).toBe('handoff');
  });
});

describe('nested composites', () => {
  const t = parsed({
    any_of: [
      { all_of: [{ handoff: 'billing' }, { tool_called: 'refund' }] },
      { any_of: [{ source_match: ['closer'] }, { max_messages: 20 }] },
    ],
  });

  it('decide by the same OR/AND rule at every level', () => {
    expect(evaluateTermination(t, view({ handoffs: [{ from: 'triage', to: 'billing' }] }))).toBeNull();
    expect(evaluateTermination(t, view({ handoffs: [{ from: 'triage', to: 'billing' }], toolsCalled: ['refund'] }))?.reasonText).toBe(
      'handoff: triage handed off to billing',
    );
    expect(evaluateTermination(t, view({ toolsCalled: ['refund'], ...answered('closer') }))?.reasonText).toBe("source_match: 'closer' answered");
  });

  it('describe themselves in the agents’ stop line', () => {
    expect(describeTermination(t)).toEqual([
      'This graph stops when ANY of: (a handoff to Billing AND tool "refund" called); (Closer answers OR 20 messages)',
    ]);
  });

  it('name their agents with paths into the nested lists', () => {
    const r = parseConditionList([{ any_of: [{ handoff: 'billing' }, { all_of: [{ source_match: ['closer', 'user'] }] }] }]);
    expect(r.agents.map((a) => [a.agent, a.path.join('.')])).toEqual([
      ['billing', '0.any_of.0.handoff'],
      ['closer', '0.any_of.1.all_of.0.source_match.0'],
      ['user', '0.any_of.1.all_of.0.source_match.1'],
    ]);
  });
});
