/** The `token_usage` condition plugin (core/conditions/builtin/token-usage.ts). */
import { tokenUsage } from '../../../../src/core/conditions/builtin/token-usage';
import { describeCondition } from '../../../../src/core/conditions/describe';
import { conditionHolds, evaluateTermination } from '../../../../src/core/conditions/evaluate';
import { parseCondition } from '../../../../src/core/conditions/parse';
import { getConditionPlugin } from '../../../../src/core/conditions/registry';
import type { Condition } from '../../../../src/core/conditions/types';
import { hashWindow, judgeTargets, loopBounds, readsLines, scoreReaders, timersMs } from '../../../../src/core/conditions/walk';
import { hintFor, priorityOf, statusForReason } from '../../../../src/core/ending/reasons';
import { describeGuard } from '../../../../src/core/graph/render-labels';
import { term, view } from '../../fixtures/termination-view';

const usage = (p: number, c: number) => ({ promptTokens: p, completionTokens: c, totalTokens: p + c });
const stopOf = (c: Condition, v = view()) => evaluateTermination(term([c]), v);

describe('the token_usage plugin', () => {
  it('is the registered token_usage condition', () => {
    expect(getConditionPlugin('token_usage')).toBe(tokenUsage);
  });

  it('compiles to the shape recorded histories hold, keys in the same order', () => {
    const c = parseCondition({ token_usage: { max_completion_tokens: 5, max_total_tokens: 100, max_prompt_tokens: 50 } }).condition;
    expect(JSON.stringify(c)).toBe('{"kind":"token_usage","maxTotalTokens":100,"maxPromptTokens":50,"maxCompletionTokens":5}');
    expect(JSON.stringify(parseCondition({ token_usage: { max_prompt_tokens: 7 } }).condition)).toBe('{"kind":"token_usage","maxPromptTokens":7}');
  });

  it('needs at least one positive whole limit, and names unknown keys', () => {
    expect(parseCondition({ token_usage: {} }).issues).toEqual([
      { path: ['token_usage'], message: 'needs at least one of max_total_tokens, max_prompt_tokens, max_completion_tokens' },
    ]);
    expect(parseCondition({ token_usage: { max_total_tokens: 0 } }).issues).toEqual([{ path: ['token_usage', 'max_total_tokens'], message: 'must be > 0' }]);
    expect(parseCondition({ token_usage: { max_total_tokens: 1.5 } }).issues).toEqual([
      { path: ['token_usage', 'max_total_tokens'], message: 'expected integer, got 1.5' },
    ]);
    expect(parseCondition({ token_usage: { max_totl_tokens: 10 } }).issues).toContainEqual({
      path: ['token_usage', 'max_totl_tokens'],
      message: 'unknown key "max_totl_tokens" (did you mean "max_total_tokens"?)',
      at: 'key',
    });
  });

  it('holds at any limit, checking total, then prompt, then completion', () => {
    const all: Condition = { kind: 'token_usage', maxTotalTokens: 100, maxPromptTokens: 60, maxCompletionTokens: 30 };
    expect(conditionHolds(all, view({ usage: usage(59, 29) }))).toBe(false);
    expect(evaluateTermination(term([all]), view({ usage: usage(70, 40) }))?.reasonText).toBe('token_usage: round used 110 total tokens >= 100');
    expect(evaluateTermination(term([all]), view({ usage: usage(60, 0) }))?.reasonText).toBe('token_usage: round used 60 prompt tokens >= 60');
    expect(evaluateTermination(term([all]), view({ usage: usage(0, 30) }))?.reasonText).toBe('token_usage: round used 30 completion tokens >= 30');
  });

  it('ends the run as exhausted, priority 3, with a hint to raise the limits', () => {
    expect(evaluateTermination(term([{ kind: 'token_usage', maxTotalTokens: 1 }]), view({ usage: usage(1, 0) }))).toMatchObject({
      reason: 'token_usage',
      priority: 3,
      status: 'exhausted',
    });
    expect([statusForReason('token_usage'), priorityOf('token_usage'), hintFor('token_usage')]).toEqual([
      'exhausted',
      3,
      'raise the token_usage condition limits',
    ]);
  });

  it('is described in prompts and labelled in pictures', () => {
    const c: Condition = { kind: 'token_usage', maxPromptTokens: 10, maxCompletionTokens: 20 };
    expect(describeCondition(c)).toBe('token usage limit');
    expect(describeGuard(c)).toBe('tokens prompt 10, completion 20');
  });

  it('asks nothing else of the run', () => {
    const t = term([{ kind: 'token_usage', maxTotalTokens: 1 }]);
    expect([judgeTargets(t), timersMs(t), scoreReaders(t), readsLines(t), loopBounds(t), hashWindow(t)]).toEqual([[], [], [], false, [], 2]);
  });
});

describe('token_usage (AutoGen TokenUsageTermination, case 11)', () => {
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
