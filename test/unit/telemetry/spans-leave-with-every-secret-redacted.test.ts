/**
 * No secret reaches a span (docs/observability.md, "Traces"; docs/security.md): every span passes the
 * worker's redaction on its way to the exporter — its attributes (captured prompts and results
 * included), its events and its status message — and a span with nothing to redact goes on as it is.
 */
import type { Context } from '@opentelemetry/api';
import type { ReadableSpan, SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { Redactor } from '../../../src/secrets/redactor';
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

  test('the quick check passes over only what the redaction would leave as it is (cut starts and ends, Bearer, random fragments)', () => {
    const other = 'tok-ABCDEFGH-other-secret';
    const redactor = new Redactor([KEY, other]);
    const texts = [
      '', 'plain', 'gen_ai.request.model', 'x'.repeat(200), KEY, `a ${KEY} b`, `cut ${KEY.slice(0, 12)}`, `cut ${KEY.slice(0, 10)}… more`,
      KEY.slice(-9), `${KEY.slice(-12)} rest`, KEY.slice(3, 11), 'Bearer abcdefghijk', 'a Bearer xyz', other.slice(5), `${other.slice(0, 8)}`,
    ];
    // random windows of the secrets and of text around them
    let seed = 7;
    const rand = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2147483648), seed % n);
    const pool = `zz ${KEY} yy ${other} Bearer qqqqqqqqqq ww`;
    for (let i = 0; i < 5000; i++) {
      const a = rand(pool.length);
      texts.push(pool.slice(a, a + rand(40)) + (rand(3) === 0 ? '…' : ''));
    }
    for (const t of texts) {
      if (!redactor.mayChange(t)) expect(redactor.text(t)).toBe(t);
      if (redactor.text(t) !== t) expect(redactor.mayChange(t)).toBe(true);
    }
    expect(redactor.mayChange('gen_ai.request.model')).toBe(false);
    expect(redactor.mayChange(`${KEY.slice(-9)}`)).toBe(true);
  });
});
