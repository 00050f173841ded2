/**
 * A worker or client that traces gets Temporal's OpenTelemetry plugin (and the worker troupe's: the
 * price header, the flush when it stops), and a dispatch goes through the hooks that troupe's
 * tracing workflow interceptor installs in the sandbox (docs/observability.md, "Traces").
 */
import { Redactor } from '../../../src/secrets/redactor';
import { clientTracingPlugins, shutdownTracing, workerTracingPlugins } from '../../../src/telemetry/tracing';
import { installWorkflowSpanHooks, openDispatchSpan, within, withinDispatchOf, type WorkflowSpanHooks } from '../../../src/workflows/spans';
import type { Run } from '../../../src/workflows/execution';

describe('tracing on', () => {
  afterAll(() => shutdownTracing());

  test("the worker gets Temporal's OpenTelemetry plugin and troupe's; the client Temporal's", () => {
    const env = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9' };
    expect(workerTracingPlugins(new Redactor(), env).map((p) => p.name)).toEqual(['OpenTelemetryPlugin', 'troupe-tracing']);
    expect(clientTracingPlugins(env).map((p) => p.name)).toEqual(['OpenTelemetryPlugin']);
  });

  test('a dispatch goes through the hooks the tracing workflow interceptor installs', async () => {
    const seen: string[] = [];
    const hooks: WorkflowSpanHooks = {
      dispatch: (start) => {
        seen.push(`open ${start.agent}/${start.model}/${start.round}`);
        return {
          within: (fn) => {
            seen.push('within');
            return fn();
          },
          end: (how) => void seen.push(how.ok ? 'ok' : how.error),
        };
      },
      runEnded: () => undefined,
      within: (agent, fn) => {
        seen.push(`within ${agent}`);
        return fn();
      },
    };
    installWorkflowSpanHooks(hooks);
    try {
      const run = { graph: { agents: { a: { model: { name: 'm1' } } } }, state: { round: { round: 2 } } } as unknown as Run;
      const span = openDispatchSpan(run, { agent: 'a', triggers: [] } as never);
      const p = Promise.resolve(7);
      expect(within(span, () => p)).toBe(p);
      // a call the dispatch makes after an await, put back in its span by the agent's name
      expect(withinDispatchOf('a', () => p)).toBe(p);
      span?.end({ ok: false, error: 'call_failed' });
      expect(seen).toEqual(['open a/m1/2', 'within', 'within a', 'call_failed']);
    } finally {
      delete (globalThis as Record<symbol, unknown>)[Symbol.for('troupe.workflowSpanHooks')];
    }
  });
});
