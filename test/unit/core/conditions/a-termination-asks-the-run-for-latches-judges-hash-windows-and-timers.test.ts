import { describeCondition, describeTermination } from '../../../../src/core/conditions/describe';
import { priorityOf, statusForReason } from '../../../../src/core/ending/reasons';
import { verdictKey } from '../../../../src/core/conditions/view';
import { latchKey } from '../../../../src/core/conditions/builtin/text-mention';
import {
  judgeTargets,
  scoreReaders,
  hashWindow as stuckWindow,
  timeoutMs,
  updateLatches,
} from '../../../../src/core/conditions/walk';
import type { Condition } from '../../../../src/core/conditions/types';
import { term } from '../../fixtures/termination-view';

const mention = (text: string, sources?: string[]): Extract<Condition, { kind: 'text_mention' }> =>
  sources ? { kind: 'text_mention', text, sources } : { kind: 'text_mention', text };

describe('verdictKey', () => {
  it('keys a verdict by agent, and by criteria when given', () => {
    expect(verdictKey('critic')).toBe('critic');
    expect(verdictKey('critic', 'cites sources')).toBe('critic:cites sources');
    expect(verdictKey('critic', 'x')).not.toBe(verdictKey('critic'));
  });
});

describe('updateLatches', () => {
  it('latches a mention from any agent when no sources are given, and leaves the input untouched', () => {
    const t = term([mention('APPROVE')]);
    const before = {};
    const after = updateLatches(t, 'critic', 'I APPROVE', before);
    expect(after).toEqual({ [latchKey(mention('APPROVE'))]: true });
    expect(before).toEqual({});
  });

  it('returns the same object when nothing new latched', () => {
    const t = term([mention('APPROVE')]);
    const latches = {};
    expect(updateLatches(t, 'critic', 'no', latches)).toBe(latches);
  });

  it('latches only for listed sources', () => {
    const t = term([mention('APPROVE', ['critic'])]);
    expect(updateLatches(t, 'writer', 'APPROVE', {})).toEqual({});
    expect(Object.keys(updateLatches(t, 'critic', 'APPROVE', {}))).toHaveLength(1);
  });

  it('finds mentions nested in composites, in all_of and in edge guards', () => {
    const nested = mention('N');
    const inAll = mention('A');
    const inGuard = mention('G');
    const t = term([{ kind: 'any_of', items: [{ kind: 'all_of', items: [nested] }] }], [inAll]);
    const latches = updateLatches(t, 'x', 'N A G', {}, [{}, { when: inGuard }]);
    expect(latches).toEqual({ [latchKey(nested)]: true, [latchKey(inAll)]: true, [latchKey(inGuard)]: true });
  });

  it('matches a needle with line breaks against the normalized text', () => {
    const c = mention('ALL\nDONE');
    expect(updateLatches(term([c]), 'a', 'ALL DONE', {})).toEqual({ [latchKey(c)]: true });
  });
});

describe('judgeTargets', () => {
  it('lists converged agents once per criteria, from conditions and guards, in order', () => {
    const t = term(
      [{ kind: 'converged', agent: 'critic' }, { kind: 'any_of', items: [{ kind: 'converged', agent: 'editor', criteria: 'c1' }] }],
      [{ kind: 'converged', agent: 'critic' }],
    );
    const edges = [{ when: { kind: 'converged', agent: 'critic', criteria: 'c2' } as Condition }, {}];
    expect(judgeTargets(t, edges)).toEqual([
      { agent: 'critic' },
      { agent: 'editor', criteria: 'c1' },
      { agent: 'critic', criteria: 'c2' },
    ]);
  });

  it('is empty without converged conditions', () => {
    expect(judgeTargets(term([{ kind: 'max_iterations', n: 2 }]))).toEqual([]);
  });
});

describe('stuckWindow, timeoutMs, scoreReaders', () => {
  it('stuckWindow is the largest repeats anywhere, at least 2', () => {
    expect(stuckWindow(term())).toBe(2);
    expect(stuckWindow(term([{ kind: 'stuck', repeats: 3 }], [{ kind: 'any_of', items: [{ kind: 'stuck', repeats: 5 }] }]))).toBe(5);
    expect(stuckWindow(term(), [{ when: { kind: 'stuck', repeats: 4 } }])).toBe(4);
  });

  it('timeoutMs is the smallest timeout anywhere in the expression, undefined when none', () => {
    expect(timeoutMs(term([{ kind: 'max_iterations', n: 2 }]))).toBeUndefined();
    const t = term([{ kind: 'timeout_ms', ms: 90_000 }], [{ kind: 'all_of', items: [{ kind: 'timeout_ms', ms: 30_000 }] }]);
    expect(timeoutMs(t)).toBe(30_000);
  });

  it('scoreReaders lists the agents a score_gte reads, once', () => {
    const t = term(
      [
        { kind: 'result_matches', agent: 'critic', scoreGte: 80 },
        { kind: 'result_matches', agent: 'writer', contains: 'x' },
      ],
      [{ kind: 'result_matches', agent: 'critic', scoreGte: 90 }],
    );
    expect(scoreReaders(t)).toEqual(['critic']);
  });
});

describe('describeCondition and describeTermination (rolebox §1.15, case 51)', () => {
  it.each<[Condition, string]>([
    [{ kind: 'max_iterations', n: 5 }, '5 iterations'],
    [{ kind: 'timeout_ms', ms: 60_000 }, '1min elapsed'],
    [{ kind: 'timeout_ms', ms: 90_000 }, '2min elapsed'],
    [{ kind: 'timeout_ms', ms: 30_000 }, '30s elapsed'],
    [{ kind: 'timeout_ms', ms: 500 }, '500ms elapsed'],
    [{ kind: 'converged', agent: 'critic' }, 'Critic approves'],
    [{ kind: 'result_matches', agent: 'critic', scoreGte: 85 }, 'Critic result matches criteria'],
    [{ kind: 'stuck', repeats: 3 }, '3 repeated identical results'],
    [{ kind: 'signal_observed', type: 'x' }, 'signal "x" observed'],
    [{ kind: 'max_messages', n: 6 }, '6 messages'],
    [mention('APPROVE'), '"APPROVE" mentioned'],
    [{ kind: 'token_usage', maxTotalTokens: 10 }, 'token usage limit'],
    [{ kind: 'handoff', target: 'billing' }, 'a handoff to Billing'],
    [{ kind: 'handoff', target: 'user' }, 'a handoff to the user'],
    [{ kind: 'source_match', sources: ['critic', 'editor'] }, 'Critic or Editor answers'],
    [{ kind: 'tool_called', names: ['publish'] }, 'tool "publish" called'],
    [{ kind: 'any_of', items: [{ kind: 'max_iterations', n: 2 }, { kind: 'stuck', repeats: 2 }] }, '(2 iterations OR 2 repeated identical results)'],
    [{ kind: 'all_of', items: [{ kind: 'max_messages', n: 2 }, mention('stop')] }, '(2 messages AND "stop" mentioned)'],
    [{ kind: 'custom', key: 'not_registered', params: {} }, 'not_registered'],
  ])('%j → %s', (c, text) => {
    expect(describeCondition(c)).toBe(text);
  });

  it('renders the ANY and ALL lines exactly as rolebox does', () => {
    const t = term([
      { kind: 'max_iterations', n: 5 },
      { kind: 'timeout_ms', ms: 60_000 },
      { kind: 'converged', agent: 'reviewer' },
    ]);
    expect(describeTermination(t)).toEqual(['This graph stops when ANY of: 5 iterations; 1min elapsed; Reviewer approves']);
    const all = term([], [{ kind: 'max_iterations', n: 8 }, { kind: 'converged', agent: 'publisher' }]);
    expect(describeTermination(all)).toEqual(['This graph stops when ALL of: 8 iterations AND Publisher approves']);
  });

  it('gives both lines when both lists are set and none when neither is', () => {
    expect(describeTermination(term([{ kind: 'max_messages', n: 6 }], [{ kind: 'stuck', repeats: 2 }]))).toHaveLength(2);
    expect(describeTermination(term())).toEqual([]);
  });
});

describe('statusForReason and priorityOf', () => {
  it.each([
    ['converged', 'completed'],
    ['result_match', 'completed'],
    ['text_mention', 'completed'],
    ['signal', 'completed'],
    ['exit', 'completed'],
    ['goal_completed', 'completed'],
    ['handoff', 'completed'],
    ['source_match', 'completed'],
    ['tool_called', 'completed'],
    ['stuck', 'exhausted'],
    ['max_iterations', 'exhausted'],
    ['max_messages', 'exhausted'],
    ['token_usage', 'exhausted'],
    ['timeout', 'exhausted'],
    ['dead_end', 'exhausted'],
    ['money_budget_exceeded', 'budget_exceeded'],
    ['duration_budget_exceeded', 'budget_exceeded'],
    ['user_stop', 'cancelled'],
    ['user_abort', 'cancelled'],
    ['goal_blocked', 'blocked'],
    ['goal_turn_limit', 'limit_reached'],
    ['goal_duration_limit', 'limit_reached'],
    ['fatal_error', 'failed'],
    ['activity_failed', 'failed'],
    ['token_window_exceeded', 'failed'],
    ['compaction_circuit_breaker', 'failed'],
  ])('%s → %s', (reason, status) => {
    expect(statusForReason(reason)).toBe(status);
  });

  it('ranks reasons by the priority table in docs/semantics.md', () => {
    expect(
      ['converged', 'result_match', 'text_mention', 'signal', 'exit', 'handoff', 'source_match', 'tool_called', 'stuck', 'max_iterations', 'max_messages', 'token_usage', 'dead_end', 'timeout', 'error'].map(
        priorityOf,
      ),
    ).toEqual([0, 1, 1, 1, 1, 1, 1, 1, 2, 3, 3, 3, 3, 4, 5]);
  });
});
