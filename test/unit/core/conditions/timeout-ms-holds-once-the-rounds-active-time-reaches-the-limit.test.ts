/** The `timeout_ms` condition plugin (core/conditions/builtin/timeout-ms.ts). */
import { timeoutMs } from '../../../../src/core/conditions/builtin/timeout-ms';
import { describeCondition } from '../../../../src/core/conditions/describe';
import { conditionHolds, evaluateTermination } from '../../../../src/core/conditions/evaluate';
import { parseCondition } from '../../../../src/core/conditions/parse';
import { getConditionPlugin } from '../../../../src/core/conditions/registry';
import type { Condition } from '../../../../src/core/conditions/types';
import { timersMs } from '../../../../src/core/conditions/walk';
import { endsWhileWaiting, hintFor } from '../../../../src/core/ending/reasons';
import { describeGuard } from '../../../../src/core/graph/render-labels';
import { term, view } from '../../fixtures/termination-view';

const stopOf = (c: Condition, v = view()) => evaluateTermination(term([c]), v);

describe('timeout_ms', () => {
  it('holds once the round active time reaches the limit (rolebox case 40)', () => {
    expect(stopOf({ kind: 'timeout_ms', ms: 500 }, view({ roundActiveMs: 1000 }))).toEqual({
      reason: 'timeout',
      reasonText: 'timeout: 0.5s of active time elapsed',
      priority: 4,
      status: 'exhausted',
    });
    expect(conditionHolds({ kind: 'timeout_ms', ms: 120_000 }, view({ roundActiveMs: 120_000 }))).toBe(true);
    expect(stopOf({ kind: 'timeout_ms', ms: 120_000 }, view({ roundActiveMs: 120_000 }))?.reasonText).toBe(
      'timeout: 120s of active time elapsed',
    );
  });

  it('does not hold before the limit', () => {
    expect(conditionHolds({ kind: 'timeout_ms', ms: 5000 }, view({ roundActiveMs: 1000 }))).toBe(false);
    expect(conditionHolds({ kind: 'timeout_ms', ms: 1000 }, view({ roundActiveMs: 999 }))).toBe(false);
  });
});

describe('the timeout_ms plugin', () => {
  const after = (ms: number): Condition => ({ kind: 'timeout_ms', ms });

  it('is the registered timeout_ms condition', () => {
    expect(getConditionPlugin('timeout_ms')).toBe(timeoutMs);
  });

  it('compiles a positive whole number of milliseconds, and names one that is not', () => {
    expect(parseCondition({ timeout_ms: 1500 }).condition).toEqual({ kind: 'timeout_ms', ms: 1500 });
    expect(parseCondition({ timeout_ms: 0 }).issues).toEqual([{ path: ['timeout_ms'], message: 'must be > 0' }]);
    expect(parseCondition({ timeout_ms: 2.5 }).issues).toEqual([{ path: ['timeout_ms'], message: 'expected integer, got 2.5' }]);
  });

  it('is described in prompts rounded to a unit, and labelled in pictures to a tenth', () => {
    expect([90_000, 30_000, 1_500, 500].map((ms) => describeCondition(after(ms)))).toEqual(['2min elapsed', '30s elapsed', '2s elapsed', '500ms elapsed']);
    expect([90_000, 30_000, 2_500, 500].map((ms) => describeGuard(after(ms)))).toEqual(['1.5min elapsed', '30s elapsed', '2.5s elapsed', '500ms elapsed']);
  });

  it('asks the run for a durable timer at its limit, one per condition in list order', () => {
    expect(timersMs(term([after(90_000)]))).toEqual([90_000]);
    expect(timersMs(term([after(5_000)], [{ kind: 'any_of', items: [after(1_000)] }]))).toEqual([5_000, 1_000]);
    expect(timersMs(term([{ kind: 'max_iterations', n: 2 }]))).toEqual([]);
  });

  it('is a hard limit: it ends the run even while humans are awaited, with a hint to raise it', () => {
    expect(endsWhileWaiting('timeout')).toBe(true);
    expect(endsWhileWaiting('max_messages')).toBe(false);
    expect(hintFor('timeout')).toBe('raise the timeout_ms condition to allow more time');
  });
});
