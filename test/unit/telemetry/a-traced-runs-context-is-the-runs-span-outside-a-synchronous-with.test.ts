/**
 * The context manager of a traced run's sandbox (src/telemetry/workflow-context.ts): `with` makes a
 * context active while its function runs synchronously and puts back the one before, even when the
 * function throws; outside any `with` the run's own context is active; nothing outlives `with` into
 * the function's promise (that is what lets a traced run do without `AsyncLocalStorage`).
 */
import { createContextKey, ROOT_CONTEXT } from '@opentelemetry/api';
import { RunContextManager } from '../../../src/telemetry/workflow-context';

const KEY = createContextKey('test.span');
const RUN = ROOT_CONTEXT.setValue(KEY, 'run');
const DISPATCH = ROOT_CONTEXT.setValue(KEY, 'dispatch');
const SIGNAL = ROOT_CONTEXT.setValue(KEY, 'signal');

describe("a traced run's context", () => {
  test('is the root before the run starts, then the run\'s outside any with', () => {
    const cm = new RunContextManager();
    expect(cm.active()).toBe(ROOT_CONTEXT);
    expect(cm.explicit()).toBeUndefined();
    cm.setBase(RUN);
    expect(cm.active()).toBe(RUN);
    expect(cm.explicit()).toBeUndefined();
  });

  test('with: active while its function runs, nested, restored after a return and a throw', () => {
    const cm = new RunContextManager();
    cm.setBase(RUN);
    const seen: unknown[] = [];
    const out = cm.with(DISPATCH, (a: number, b: number) => {
      seen.push(cm.active().getValue(KEY), cm.explicit()?.getValue(KEY));
      cm.with(SIGNAL, () => seen.push(cm.active().getValue(KEY)));
      seen.push(cm.active().getValue(KEY));
      return a + b;
    }, undefined, 2, 3);
    expect(out).toBe(5);
    expect(seen).toEqual(['dispatch', 'dispatch', 'signal', 'dispatch']);
    expect(() =>
      cm.with(DISPATCH, () => {
        throw new Error('boom');
      }),
    ).toThrow('boom');
    expect(cm.active()).toBe(RUN);
    expect(cm.explicit()).toBeUndefined();
  });

  test("a with's context does not outlive its synchronous call; bind carries it", async () => {
    const cm = new RunContextManager();
    cm.setBase(RUN);
    const after = await cm.with(DISPATCH, async () => {
      await Promise.resolve();
      return cm.active().getValue(KEY);
    });
    expect(after).toBe('run');
    const bound = cm.bind(SIGNAL, () => cm.active().getValue(KEY));
    expect(bound()).toBe('signal');
    expect(cm.bind(SIGNAL, 7)).toBe(7);
  });

  test('disable forgets the run', () => {
    const cm = new RunContextManager();
    cm.setBase(RUN);
    cm.disable();
    expect(cm.active()).toBe(ROOT_CONTEXT);
  });
});
