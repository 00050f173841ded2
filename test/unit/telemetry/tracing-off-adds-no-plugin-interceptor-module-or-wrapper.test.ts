/**
 * A worker or client that does not trace is what it was before tracing existed (docs/observability.md,
 * "Traces"): no plugin, no interceptor, no workflow interceptor module in its bundle, no span
 * wrapper around a model or tool call (the very promise of the call comes back), and no OpenTelemetry
 * module loaded at all. (A process decides once: tracing on is `tracing-on-adds-...test.ts`.)
 */
import { execFileSync } from 'node:child_process';
import * as path from 'node:path';
import { Redactor } from '../../../src/secrets/redactor';
import { clientTracingPlugins, tracedModelCall, tracedToolCall, openRunSpan, tracingWorkflowModules, workerTracingPlugins } from '../../../src/telemetry/tracing';
import { workflowBundleOptions } from '../../../src/worker';
import { openDispatchSpan, within, workflowSpanHooks } from '../../../src/workflows/spans';
import type { Run } from '../../../src/workflows/execution';

const ROOT = path.resolve(__dirname, '..', '..', '..');

describe('tracing off', () => {
  test('no plugin for the worker or the client', () => {
    expect(workerTracingPlugins(new Redactor(), {})).toEqual([]);
    expect(clientTracingPlugins({ OTEL_TRACES_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' })).toEqual([]);
  });

  test('no tracing interceptor module in the bundle; troupe\'s tracing one after the progress record\'s and the metrics\' when tracing; no metrics module for a worker that exports none', () => {
    const entry = require.resolve('../../../src/workflows');
    const record = require.resolve('../../../src/workflows/record-interceptors');
    const metrics = require.resolve('../../../src/workflows/metrics-interceptors');
    const off = workflowBundleOptions(entry, undefined, false);
    expect(off.workflowInterceptorModules).toEqual([record, metrics]);
    expect(Object.keys(off).sort()).toEqual(['logger', 'payloadConverterPath', 'preloadModules', 'webpackConfigHook', 'workflowInterceptorModules', 'workflowsPath']);
    const on = workflowBundleOptions(entry, undefined, true);
    expect(on.workflowInterceptorModules).toEqual([record, metrics, ...tracingWorkflowModules()]);
    expect(on.workflowInterceptorModules).toEqual([record, metrics, require.resolve('../../../src/telemetry/workflow-interceptors')]);
    expect(workflowBundleOptions(entry, undefined, false, false).workflowInterceptorModules).toEqual([record]);
    expect(workflowBundleOptions(entry, undefined, true, false).workflowInterceptorModules).toEqual([record, ...tracingWorkflowModules()]);
  });

  test('model and tool calls, the run root and a dispatch call straight through: the same promise comes back', () => {
    const p = Promise.resolve({ completion: { id: 'c', model: 'm', choices: [] }, usage: { promptTokens: 1, completionTokens: 1, totalTokens: 2 } });
    expect(tracedModelCall({ kind: 'agent', agent: 'a' }, 'http://x/v1', { model: 'm' }, true, () => p)).toBe(p);
    const t = Promise.resolve({ kind: 'ok' as const, text: 'done' });
    expect(tracedToolCall({ workflowId: 'w', agent: 'a', tool: 't', argumentsJson: '{}', toolCallId: 'c', timeoutMs: 1 }, () => t)).toBe(t);
    const root = openRunSpan('g');
    expect(root.within(() => p)).toBe(p);
    expect(root.untraced(() => p)).toBe(p);
    expect(workflowSpanHooks()).toBeUndefined();
    const span = openDispatchSpan({} as Run, { agent: 'a', triggers: [] } as never);
    expect(span).toBeUndefined();
    const d = Promise.resolve();
    expect(within(span, () => d)).toBe(d);
  });

  test('loading the worker, the client and the CLI loads no OpenTelemetry module', () => {
    const script = `
      require('tsx/cjs');
      require('./src/worker.ts'); require('./src/client/index.ts'); require('./src/cli/main.ts'); require('./src/activities/index.ts');
      const all = Object.keys(require.cache);
      process.stdout.write(JSON.stringify({ otel: all.filter((f) => /opentelemetry|tracing-sdk/.test(f)), temporal: all.some((f) => f.includes('@temporalio/worker')) }));`;
    const env = { ...process.env };
    for (const k of Object.keys(env)) if (k.startsWith('OTEL_')) delete env[k];
    const out = execFileSync(process.execPath, ['-e', script], { cwd: ROOT, env, encoding: 'utf8' });
    expect(JSON.parse(out)).toEqual({ otel: [], temporal: true });
  });
});
