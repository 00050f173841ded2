/**
 * The OpenTelemetry context manager of a traced run's sandbox. **Runs in the workflow sandbox.**
 *
 * `@temporalio/interceptors-opentelemetry`'s own keeps the active context in an `AsyncLocalStorage`,
 * entered for the run's whole life. Once one is entered, Node runs its async hooks on every promise
 * of the worker thread (BENCHMARKS.md, B13); an untraced troupe step enters none. This one keeps no
 * context across an `await`: `with(ctx, fn)` makes `ctx` active while `fn` runs synchronously and
 * puts back the one before; outside any `with`, the run's own context (its `RunWorkflow` span) is
 * active. What a traced run needs of more is a dispatch's context after an await (its tool loop, its
 * compaction, a team's child started again): the tracing interceptor finds the open dispatch by the
 * agent the call names (src/telemetry/workflow-interceptors.ts).
 */
import { ROOT_CONTEXT, type Context, type ContextManager } from '@opentelemetry/api';

/** The context manager of one run's sandbox (see the module doc). */
export class RunContextManager implements ContextManager {
  /** What is active outside any `with`: the run's context once it started. */
  private base: Context = ROOT_CONTEXT;
  /** The innermost `with`'s context while its function runs. */
  private current: Context | undefined;

  /** Makes `ctx` (the run's `RunWorkflow` span) what is active outside any {@link with}. */
  setBase(ctx: Context): void {
    this.base = ctx;
  }

  /** The innermost `with`'s context, undefined outside any. */
  explicit(): Context | undefined {
    return this.current;
  }

  active(): Context {
    return this.current ?? this.base;
  }

  with<A extends unknown[], F extends (...args: A) => ReturnType<F>>(ctx: Context, fn: F, thisArg?: ThisParameterType<F>, ...args: A): ReturnType<F> {
    const before = this.current;
    this.current = ctx;
    try {
      return fn.call(thisArg, ...args);
    } finally {
      this.current = before;
    }
  }

  bind<T>(ctx: Context, target: T): T {
    if (typeof target !== 'function') return target;
    const fn = target as unknown as (...args: unknown[]) => unknown;
    return ((...args: unknown[]) => this.with(ctx, () => fn(...args))) as unknown as T;
  }

  enable(): this {
    return this;
  }

  disable(): this {
    this.current = undefined;
    this.base = ROOT_CONTEXT;
    return this;
  }
}
