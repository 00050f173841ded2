/**
 * B13's main-thread share, in isolation: the tracing work a traced step gives a worker's main thread
 * (Temporal's `RunActivity` span, the price header, troupe's `chat` span, the sandbox's two spans
 * arriving through the `exporter` sink, and their OTLP/JSON export over HTTP to a local server), in
 * a loop without Temporal. Prints CPU µs per step of each part (process.cpuUsage: every thread, GC
 * included) above the same loop without it. Run: `npx tsx bench/tools/b13-main-thread.ts`
 * (STEPS=n, default 20,000).
 */
import * as http from 'node:http';
import { context, propagation, trace, defaultTextMapSetter, ROOT_CONTEXT } from '@opentelemetry/api';
import { defaultPayloadConverter } from '@temporalio/common';
import { extractContextFromHeaders, TRACE_HEADER, instrument } from '@temporalio/interceptors-opentelemetry/lib/instrumentation';
import { makeWorkflowExporter } from '@temporalio/interceptors-opentelemetry/lib/worker';
import { SideTracing } from '../../src/telemetry/tracing-sdk';

const STEPS = Number(process.env.STEPS ?? 20000);

async function main() {
  let received = 0;
  const server = http.createServer((req, res) => { req.on('data', (d) => (received += d.length)); req.on('end', () => { res.writeHead(200, { 'content-type': 'application/json' }); res.end('{}'); }); });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.address() as { port: number }).port;
  process.env.OTEL_EXPORTER_OTLP_ENDPOINT = `http://127.0.0.1:${port}`;
  process.env.OTEL_BSP_SCHEDULE_DELAY = '200';
  const side = new SideTracing('worker', { serviceName: 'troupe-worker', captureContent: false } as never);
  // the processor and resource SideTracing gave Temporal's plugin (redaction, batch, OTLP exporter)
  const { spanProcessor, resource } = (side.plugin as unknown as { otelOptions: { spanProcessor: never; resource: never } }).otelOptions;
  const exporterSink = makeWorkflowExporter(spanProcessor, resource);
  const tpTracer = (side as unknown as { provider: { getTracer(n: string): ReturnType<typeof trace.getTracer> } }).provider.getTracer('@temporalio/interceptors-opentelemetry');

  // a workflow-side span pair as the sandbox serializes it (StartActivity, invoke_agent)
  const traceId = '0af7651916cd43dd8448eb211c80319c';
  const serialized = (name: string, spanId: string, attributes: Record<string, unknown>) => ({
    name, kind: 0, spanContext: { traceId, spanId, traceFlags: 1, traceState: undefined },
    parentSpanId: 'b7ad6b7169203331', startTime: [1733500000, 123000000], endTime: [1733500000, 133000000],
    status: { code: 1 }, attributes, links: [], events: [], duration: [0, 10000000], ended: true,
    droppedAttributesCount: 0, droppedEventsCount: 0, droppedLinksCount: 0,
    instrumentationLibrary: { name: '@temporalio/interceptor-workflow' },
  });
  const info = { workflowId: 'bench-b10-on-1', runId: '0193a6c8-1234-7abc-9def-0123456789ab', workflowType: 'troupeRun', taskQueue: 'bench-b10-on', namespace: 'default', attempt: 1 };
  const carrier: Record<string, string> = {};
  propagation.inject(trace.setSpan(ROOT_CONTEXT, trace.wrapSpanContext({ traceId, spanId: 'b7ad6b7169203331', traceFlags: 1 })), carrier, defaultTextMapSetter);
  const headers = { [TRACE_HEADER]: defaultPayloadConverter.toPayload(carrier), 'troupe-price': defaultPayloadConverter.toPayload({ model: 'm', input: 3, output: 15 }) };
  const response = { completion: { id: 'chatcmpl-1', model: 'stub-model', choices: [{ finish_reason: 'stop', message: { role: 'assistant', content: 'x' } }] }, usage: { promptTokens: 120, completionTokens: 30, totalTokens: 150 } };
  const body = { model: 'stub-model', max_tokens: 512, temperature: 0.2, messages: [] };

  const parts: Record<string, () => Promise<unknown> | unknown> = {
    'RunActivity span (Temporal activity interceptor: header, instrument)': () =>
      instrument({ tracer: tpTracer, spanName: 'RunActivity:callAgent', context: extractContextFromHeaders(headers as never), fn: async (span) => { span.setAttribute('activityId', '7'); span.setAttribute('workflowId', info.workflowId); span.setAttribute('runId', info.runId); } }),
    'price header (PriceInterceptor)': () => context.with(context.active().setValue(Symbol.for('x') as never, defaultPayloadConverter.fromPayload(headers['troupe-price'])), () => Promise.resolve()),
    'chat span (modelCall)': () => side.modelCall({ kind: 'agent', agent: 'writer' }, 'http://127.0.0.1:4000/v1', body as never, true, async () => response as never),
    'two workflow spans from the sink (deserialize, redact, batch)': () =>
      exporterSink.export.fn(info as never, [
        serialized('StartActivity:callAgent', 'c7ad6b7169203331', {}),
        serialized('invoke_agent writer', 'd7ad6b7169203331', { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.provider.name': 'openai', 'gen_ai.agent.name': 'writer', 'gen_ai.request.model': 'stub-model', 'troupe.round': 3, 'gen_ai.usage.input_tokens': 120, 'gen_ai.usage.output_tokens': 30, 'gen_ai.response.model': 'stub-model', 'troupe.llm_calls': 1, 'gen_ai.response.finish_reasons': ['stop'] }),
      ] as never),
  };
  const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };
  const run = async (fns: Array<() => unknown>) => {
    const t0 = cpu();
    for (let i = 0; i < STEPS; i++) { for (const f of fns) await f(); if (i % 50 === 0) await new Promise((r) => setImmediate(r)); }
    await side.flush();
    return ((cpu() - t0) * 1000) / STEPS; // µs per step
  };
  const all = Object.values(parts);
  await run(all); // warm up
  const base = await run([() => Promise.resolve()]);
  console.log(`empty loop: ${base.toFixed(1)} µs/step`);
  for (const [name, fn] of Object.entries(parts)) console.log(`${name}: ${((await run([fn])) - base).toFixed(1)} µs/step`);
  console.log(`all of it (4 spans exported as OTLP/JSON over HTTP): ${((await run(all)) - base).toFixed(1)} µs/step; received ${received} bytes`);
  await side.shutdown();
  server.close();
}
void main();
