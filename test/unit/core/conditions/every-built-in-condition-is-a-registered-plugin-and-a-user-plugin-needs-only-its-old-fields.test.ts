import { describeCondition, describeTermination } from '../../../../src/core/conditions/describe';
import { conditionHolds, evaluateTermination } from '../../../../src/core/conditions/evaluate';
import { parseCondition } from '../../../../src/core/conditions/parse';
import {
  builtinConditionKeys,
  clearRegisteredConditions,
  getConditionPlugin,
  registerCondition,
  type ConditionPlugin,
} from '../../../../src/core/conditions/registry';
import { hashWindow, judgeTargets, loopBounds, readsLines, scoreReaders, timersMs, updateLatches } from '../../../../src/core/conditions/walk';
import { hintFor, priorityOf, RUN_REASONS, statusForReason } from '../../../../src/core/ending/reasons';
import { describeGuard } from '../../../../src/core/graph/render-labels';
import { term, view } from '../../fixtures/termination-view';

afterEach(() => clearRegisteredConditions());

const builtinKeys = builtinConditionKeys().filter((key) => !['any_of', 'all_of'].includes(key));

describe('every built-in condition is a registered plugin', () => {
  it('registers every documented built-in, in their documented order', () => {
    const documented = ['max_iterations', 'timeout_ms', 'converged', 'result_matches', 'stuck', 'signal_observed', 'max_messages', 'text_mention', 'token_usage', 'handoff', 'source_match', 'tool_called'];
    expect(builtinKeys.filter((key) => documented.includes(key))).toEqual(documented);
  });

  it.each(builtinKeys)('%s has a description, a label, a reason and a priority, and its reason reports them', (key) => {
    const plugin = getConditionPlugin(key) as ConditionPlugin<unknown>;
    expect(typeof plugin.parse).toBe('function');
    expect(typeof plugin.holds).toBe('function');
    expect(typeof plugin.describe).toBe('function');
    expect(typeof plugin.label).toBe('function');
    expect(plugin.reason).toMatch(/^[a-z][a-z0-9_]*$/);
    expect(Number.isInteger(plugin.priority)).toBe(true);
    expect(priorityOf(plugin.reason)).toBe(plugin.priority);
    expect(statusForReason(plugin.reason)).toBe(plugin.status ?? 'completed');
    if (plugin.status === 'exhausted') expect(hintFor(plugin.reason)).toEqual(expect.any(String));
  });

  it.each(builtinKeys)('%s cannot be replaced by a user plugin', (key) => {
    expect(() => registerCondition(key, { parse: () => ({ ok: true, params: 1 }), holds: () => true, reason: 'x', priority: 0 })).toThrow(
      `registerCondition: "${key}" is a built-in condition and cannot be replaced`,
    );
  });

  it('keeps the composites and every built-in key out of users’ reach, and the built-ins registered after a clear', () => {
    expect(builtinConditionKeys()).toEqual(expect.arrayContaining([...builtinKeys, 'any_of', 'all_of']));
    expect(() => registerCondition('any_of', { parse: () => ({ ok: true, params: 1 }), holds: () => true, reason: 'x', priority: 0 })).toThrow();
    clearRegisteredConditions();
    for (const key of builtinKeys) expect(getConditionPlugin(key)).toBeDefined();
  });

  it('shares the hard cap’s status and priority where a reason is both (max_iterations)', () => {
    for (const key of builtinKeys) {
      const plugin = getConditionPlugin(key) as ConditionPlugin<unknown>;
      const row = (RUN_REASONS as Record<string, { status: string; priority: number }>)[plugin.reason];
      if (row) expect([row.status, row.priority]).toEqual([plugin.status ?? 'completed', plugin.priority]);
    }
  });
});

describe('a user plugin with only the fields it always had', () => {
  // exactly the shape users write today: no hooks
  const approvals: ConditionPlugin<number> = {
    parse: (value) => (typeof value === 'number' && value > 0 ? { ok: true, params: value } : { ok: false, message: 'must be a positive number' }),
    holds: (n, v) => Object.values(v.latest).filter((r) => r.text.includes('APPROVED')).length >= n,
    reason: 'approved',
    priority: 2,
    status: 'exhausted',
    describe: (n) => `${n} approvals`,
  };

  it('parses from YAML into the compiled custom shape, and reports its parse message at the key', () => {
    registerCondition('approvals', approvals);
    expect(parseCondition({ approvals: 2 })).toEqual({ condition: { kind: 'custom', key: 'approvals', params: 2 }, issues: [], agents: [] });
    expect(parseCondition({ approvals: 0 }).issues).toEqual([{ path: ['approvals'], message: 'must be a positive number' }]);
    expect(parseCondition('approvals(2)').issues[0].message).toMatch(/is not a condition/);
  });

  it('holds, describes itself in prompts and pictures, and stops with its reason, status and priority', () => {
    registerCondition('approvals', approvals);
    const c = { kind: 'custom' as const, key: 'approvals', params: 1 };
    const latest = { a: { text: 'APPROVED', hash: 'h' } };
    expect(conditionHolds(c, view())).toBe(false);
    expect(conditionHolds(c, view({ latest }))).toBe(true);
    expect(describeCondition(c)).toBe('1 approvals');
    expect(describeTermination(term([c]))).toEqual(['This graph stops when ANY of: 1 approvals']);
    expect(describeGuard(c)).toBe('1 approvals');
    expect(evaluateTermination(term([c]), view({ latest }))).toEqual({
      reason: 'approved',
      reasonText: 'approved: 1 approvals',
      priority: 2,
      status: 'exhausted',
    });
    expect([statusForReason('approved'), priorityOf('approved'), hintFor('approved')]).toEqual(['exhausted', 2, undefined]);
  });

  it('asks nothing of the run: no judge, timer, latch, score contract, line text or loop bound, and the minimal hash window', () => {
    registerCondition('approvals', approvals);
    const t = term([{ kind: 'custom', key: 'approvals', params: 1 }]);
    expect(judgeTargets(t)).toEqual([]);
    expect(timersMs(t)).toEqual([]);
    expect(scoreReaders(t)).toEqual([]);
    expect(readsLines(t)).toBe(false);
    expect(loopBounds(t)).toEqual([]);
    expect(hashWindow(t)).toBe(2);
    expect(updateLatches(t, 'a', 'APPROVED', {})).toEqual({});
  });

  it('describes itself by its key when it has no describe', () => {
    const { describe: _describe, ...bare } = approvals;
    registerCondition('bare', bare);
    const c = { kind: 'custom' as const, key: 'bare', params: 1 };
    expect([describeCondition(c), describeGuard(c)]).toEqual(['bare', 'bare']);
    expect(evaluateTermination(term([c]), view({ latest: { a: { text: 'APPROVED', hash: 'h' } } }))?.reasonText).toBe('approved: bare');
  });
});
