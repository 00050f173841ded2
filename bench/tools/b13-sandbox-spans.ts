/**
 * B13's workflow-thread share, in isolation: what a traced step's spans cost in the sandbox (an
 * `invoke_agent` span and its `StartActivity` child with their attributes, the `_tracer-data`
 * header injected and encoded, both spans serialized by Temporal's sandbox exporter and cloned as a
 * sink call's arguments are), with the SDK's tracer in plain Node (no sandbox, no promise hook).
 * Prints CPU µs per step. Run: `npx tsx bench/tools/b13-sandbox-spans.ts`.
 */
import { defaultTextMapSetter, propagation, trace, ROOT_CONTEXT } from '@opentelemetry/api';
import { BasicTracerProvider, type ReadableSpan, type SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { defaultPayloadConverter } from '@temporalio/common';
import { SpanExporter } from '@temporalio/interceptors-opentelemetry/lib/workflow/span-exporter';
const ended: ReadableSpan[] = [];
const proc: SpanProcessor = { onStart() {}, onEnd(s) { ended.push(s); }, forceFlush: async () => {}, shutdown: async () => {} };
const provider = new BasicTracerProvider({ spanProcessors: [proc] });
provider.register();
const t = provider.getTracer('troupe'), tt = provider.getTracer('@temporalio/interceptor-workflow');
const exp = new SpanExporter();
(exp as unknown as { exporter: unknown }).exporter = { export: (spans: unknown[]) => structuredClone(spans) };
const run = trace.setSpan(ROOT_CONTEXT, t.startSpan('RunWorkflow'));
const N = 50000;
const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };
for (let r = 0; r < 3; r++) {
  const t0 = cpu();
  for (let i = 0; i < N; i++) {
    const d = t.startSpan('invoke_agent writer', { attributes: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.provider.name': 'openai', 'gen_ai.agent.name': 'writer', 'gen_ai.request.model': 'm', 'troupe.round': 3 } }, run);
    const dctx = trace.setSpan(run, d);
    const s = tt.startSpan('StartActivity:callAgent', {}, dctx);
    const carrier: Record<string, string> = {};
    propagation.inject(trace.setSpan(dctx, s), carrier, defaultTextMapSetter);
    defaultPayloadConverter.toPayload(carrier);
    s.setStatus({ code: 1 }); s.end();
    d.setAttributes({ 'gen_ai.usage.input_tokens': 120, 'gen_ai.usage.output_tokens': 30, 'gen_ai.response.model': 'm', 'troupe.llm_calls': 1, 'gen_ai.response.finish_reasons': ['stop'] });
    d.end();
    exp.export(ended.splice(0), () => undefined);
  }
  console.log(`two sandbox spans, header, serialization and clone: ${(((cpu() - t0) * 1000) / N).toFixed(1)} µs/step`);
}
