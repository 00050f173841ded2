/**
 * No secret reaches a span (docs/observability.md, "Traces"; docs/security.md): every span passes the
 * worker's redaction on its way to the exporter — its attributes (captured prompts and results
 * included), its events and its status message — and a span with nothing to redact goes on as it is.
 */
import type { Context } from '@opentelemetry/api';
import type { ReadableSpan, SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { Redactor } from '../../../src/activities/redact';
import { RedactingSpanProcessor } from '../../../src/telemetry/tracing-sdk';

const KEY = 'sk-unit-0123456789abcdef';

function sink(): SpanProcessor & { ended: ReadableSpan[] } {
  const ended: ReadableSpan[] = [];
  return {
    ended,
    onStart: (_span: unknown, _ctx: Context) => undefined,
    onEnd: (span: ReadableSpan) => void ended.push(span),
    forceFlush: async () => undefined,
    shutdown: async () => undefined,
  };
}

/** A span as the SDK's Span class holds one: fields, and `spanContext()` on its prototype. */
function span(fields: Partial<ReadableSpan>): ReadableSpan {
  const proto = { spanContext: () => ({ traceId: 't'.repeat(32), spanId: 's'.repeat(16), traceFlags: 1 }) };
  return Object.assign(Object.create(proto), { name: 'chat m', attributes: {}, events: [], status: { code: 0 }, ...fields }) as ReadableSpan;
}

describe('RedactingSpanProcessor', () => {
  test('attributes, events and the status message lose the secret; the rest of the span is the same', () => {
    const next = sink();
    const processor = new RedactingSpanProcessor(next, [new Redactor([KEY])]);
    const original = span({
      attributes: { 'gen_ai.output.messages': `[{"content":"the key is ${KEY}"}]`, 'gen_ai.usage.input_tokens': 3, tags: [`Bearer abc.defghijk`, 'plain'] },
      events: [{ name: 'exception', time: [0, 0], attributes: { 'exception.message': `401 for ${KEY}` } }],
      status: { code: 2, message: `failed with ${KEY}` },
    });
    processor.onEnd(original);
    const [out] = next.ended;
    expect(out).not.toBe(original);
    expect(out.attributes).toEqual({ 'gen_ai.output.messages': '[{"content":"the key is [redacted]"}]', 'gen_ai.usage.input_tokens': 3, tags: ['Bearer [redacted]', 'plain'] });
    expect(out.events[0].attributes).toEqual({ 'exception.message': '401 for [redacted]' });
    expect(out.status).toEqual({ code: 2, message: 'failed with [redacted]' });
    expect(out.name).toBe('chat m');
    expect(out.spanContext().spanId).toBe('s'.repeat(16));
    expect(JSON.stringify(original.attributes)).toContain(KEY); // the span itself is not changed
  });

  test('a span without a secret goes on as it is, and a redactor added later counts', () => {
    const next = sink();
    const redactors = [new Redactor()];
    const processor = new RedactingSpanProcessor(next, redactors);
    const clean = span({ attributes: { 'gen_ai.request.model': 'm' } });
    processor.onEnd(clean);
    expect(next.ended[0]).toBe(clean);
    redactors[0].add(KEY);
    processor.onEnd(span({ attributes: { note: KEY } }));
    expect(next.ended[1].attributes).toEqual({ note: '[redacted]' });
  });
});
