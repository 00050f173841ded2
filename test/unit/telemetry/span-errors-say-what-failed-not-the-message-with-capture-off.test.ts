/**
 * Errors in spans (docs/observability.md, "Traces"): with content capture off a span's status message
 * and exception events say what failed — the error's class, failure type and HTTP status — and never
 * the message, which may hold a provider's body; with capture on the message stays, redacted.
 */
import type { Context } from '@opentelemetry/api';
import type { ReadableSpan, SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import { Redactor } from '../../../src/secrets/redactor';
import { FAILURE_TYPES } from '../../../src/core/llm/contract';
import { errorSummary, errorType, SPAN_ERROR_TEXTS, withheldErrorText } from '../../../src/telemetry/span-errors';
import { RedactingSpanProcessor } from '../../../src/telemetry/tracing-sdk';

const KEY = 'sk-unit-0123456789abcdef';
const BODY = `HTTP 400 bad key ${KEY} REPLY-SECRET-TEXT`;

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

function span(fields: Partial<ReadableSpan>): ReadableSpan {
  const proto = { spanContext: () => ({ traceId: 't'.repeat(32), spanId: 's'.repeat(16), traceFlags: 1 }) };
  return Object.assign(Object.create(proto), { name: 'RunActivity:callAgent', attributes: {}, events: [], status: { code: 0 }, ...fields }) as ReadableSpan;
}

const fatal400 = ApplicationFailure.create({ type: FAILURE_TYPES.fatal, nonRetryable: true, message: `agent writer: ${BODY}`, details: [{ kind: 'agent', message: BODY, status: 400 }] });

describe('errorSummary and errorType', () => {
  it('name the class, the failure type and the HTTP status, never the message', () => {
    expect(errorSummary(fatal400)).toBe('ApplicationFailure TroupeFatalLlmError, HTTP 400');
    expect(errorType(fatal400)).toBe('400');
    const retryable = ApplicationFailure.create({ type: FAILURE_TYPES.retryable, message: BODY });
    expect([errorSummary(retryable), errorType(retryable)]).toEqual(['ApplicationFailure TroupeRetryableLlmError', 'TroupeRetryableLlmError']);
    expect([errorSummary(new CancelledFailure('x')), errorType(new CancelledFailure('x'))]).toEqual(['CancelledFailure', 'cancelled']);
    expect([errorSummary(new TypeError(BODY)), errorType(new TypeError(BODY))]).toEqual(['TypeError', 'TypeError']);
    expect(errorSummary(BODY)).toBe(SPAN_ERROR_TEXTS.unknown);
  });
});

describe('withheldErrorText', () => {
  it('replaces the status message and the exception message and stack with what failed', () => {
    const original = span({
      attributes: { 'troupe.error': 'ApplicationFailure TroupeFatalLlmError, HTTP 400', 'error.type': '400' },
      events: [
        { name: 'exception', time: [0, 0], attributes: { 'exception.type': 'ApplicationFailure', 'exception.message': BODY, 'exception.stacktrace': `ApplicationFailure: ${BODY}\n    at x` } },
        { name: 'retry', time: [0, 0], attributes: { attempt: 2 } },
      ],
      status: { code: 2, message: BODY },
    });
    const out = withheldErrorText(original);
    const text = SPAN_ERROR_TEXTS.withheld('ApplicationFailure TroupeFatalLlmError, HTTP 400');
    expect(out.status).toEqual({ code: 2, message: text });
    expect(out.events).toEqual([
      { name: 'exception', time: [0, 0], attributes: { 'exception.type': 'ApplicationFailure', 'exception.message': text } },
      { name: 'retry', time: [0, 0], attributes: { attempt: 2 } },
    ]);
    expect(out.attributes).toBe(original.attributes);
    expect(out.spanContext().spanId).toBe('s'.repeat(16));
    expect(original.status.message).toBe(BODY); // the span itself is not changed
  });

  it("says the exception's type, else error.type, else error, when troupe put no summary on the span", () => {
    expect(withheldErrorText(span({ events: [{ name: 'exception', time: [0, 0], attributes: { 'exception.type': 'ActivityFailure', 'exception.message': BODY } }], status: { code: 2, message: BODY } })).status.message).toBe(
      SPAN_ERROR_TEXTS.withheld('ActivityFailure'),
    );
    expect(withheldErrorText(span({ attributes: { 'error.type': '503' }, status: { code: 2, message: BODY } })).status.message).toBe(SPAN_ERROR_TEXTS.withheld('503'));
    expect(withheldErrorText(span({ status: { code: 2, message: 'Activity task failed' } })).status.message).toBe(SPAN_ERROR_TEXTS.withheld('error'));
  });

  it('leaves a span without error text as it is', () => {
    const clean = span({ status: { code: 1 }, events: [{ name: 'retry', time: [0, 0] }] });
    expect(withheldErrorText(clean)).toBe(clean);
  });
});

describe('RedactingSpanProcessor with error text withheld', () => {
  const failed = () =>
    span({
      attributes: { 'troupe.error': 'ApplicationFailure TroupeFatalLlmError, HTTP 400' },
      events: [{ name: 'exception', time: [0, 0], attributes: { 'exception.type': 'ApplicationFailure', 'exception.message': BODY, 'exception.stacktrace': BODY } }],
      status: { code: 2, message: BODY },
    });

  it('capture off: no span carries the message', () => {
    const next = sink();
    new RedactingSpanProcessor(next, [new Redactor([KEY])], { withholdErrorText: true }).onEnd(failed());
    const text = JSON.stringify({ events: next.ended[0].events, status: next.ended[0].status });
    expect(text).not.toContain('REPLY-SECRET-TEXT');
    expect(text).not.toContain(KEY);
    expect(next.ended[0].status.message).toBe(SPAN_ERROR_TEXTS.withheld('ApplicationFailure TroupeFatalLlmError, HTTP 400'));
  });

  it('capture on: the message stays, redacted', () => {
    const next = sink();
    new RedactingSpanProcessor(next, [new Redactor([KEY])]).onEnd(failed());
    expect(next.ended[0].status.message).toBe('HTTP 400 bad key [redacted] REPLY-SECRET-TEXT');
    expect(next.ended[0].events[0].attributes?.['exception.stacktrace']).toBe('HTTP 400 bad key [redacted] REPLY-SECRET-TEXT');
  });
});
