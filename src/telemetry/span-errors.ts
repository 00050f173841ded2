/**
 * What a span says of an error (docs/observability.md, "Traces"). A failure's message can carry what
 * an endpoint or a tool sent back (`HTTP 400 bad key … <the provider's body>`), and content is kept
 * out of spans unless content capture is on. So, with capture off, a span's status message and each
 * of its `exception` events carry only the error's class, its failure type and HTTP status, with a
 * fixed line saying the message was withheld; the rest of the exception event (its message and its
 * stack, whose first line repeats the message) is dropped. With capture on they keep the message,
 * which passes the worker's redaction with the rest of the span (./tracing-sdk.ts).
 *
 * Every span of a tracing worker passes {@link withheldErrorText} on its way out — troupe's own, the
 * Temporal interceptors' activity spans and the workflow's — so the rule holds whoever made the span.
 * Loaded only by a process that traces.
 */
import { trace } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import type { ActivityInboundCallsInterceptor } from '@temporalio/worker';
import { ATTR } from './genai';

/** Texts of errors in spans, kept together so tests pin them. */
export const SPAN_ERROR_TEXTS = {
  /** The status message with content capture off: what failed, and why the message is not there. */
  withheld: (summary: string) =>
    `${summary} (message withheld: content capture is off; OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true keeps it, redacted)`,
  /** An error the span says nothing more of. */
  unknown: 'error',
} as const;

const EXCEPTION_TYPE = 'exception.type';
const EXCEPTION_MESSAGE = 'exception.message';
const EXCEPTION_STACK = 'exception.stacktrace';

/** The HTTP status an LLM activity's failure carries in its details (core/llm/contract.ts, `LlmFailureDetails`). */
function httpStatus(err: ApplicationFailure): number | undefined {
  const status = (err.details?.[0] as { status?: unknown } | undefined)?.status;
  return typeof status === 'number' && Number.isInteger(status) ? status : undefined;
}

/**
 * What failed, without its message: the error's class, an ApplicationFailure's type and the HTTP
 * status it carries (`ApplicationFailure TroupeFatalLlmError, HTTP 400`), `CancelledFailure`, or an
 * error's name (`TypeError`). Names come from troupe and the SDKs, never from the endpoint.
 */
export function errorSummary(err: unknown): string {
  if (err instanceof CancelledFailure) return 'CancelledFailure';
  if (err instanceof ApplicationFailure) {
    const status = httpStatus(err);
    return `ApplicationFailure${err.type ? ` ${err.type}` : ''}${status !== undefined ? `, HTTP ${status}` : ''}`;
  }
  if (err instanceof Error) return err.name || 'Error';
  return SPAN_ERROR_TEXTS.unknown;
}

/** What failed, as `error.type`: an HTTP status, a failure's type, `cancelled`, or an error's name. */
export function errorType(err: unknown): string {
  if (err instanceof CancelledFailure) return 'cancelled';
  if (err instanceof ApplicationFailure) {
    const status = httpStatus(err);
    return status !== undefined ? String(status) : (err.type ?? 'ApplicationFailure');
  }
  return err instanceof Error ? err.name : '_OTHER';
}

/**
 * The activity interceptor that marks the activity's own span (`RunActivity:<type>`, Temporal's,
 * active while the activity runs) with what failed, `error.type` and {@link ATTR.errorSummary}, so
 * that span says it too once its message is withheld. Inside Temporal's interceptor; the error goes
 * on unchanged.
 */
export class FailureSummaryInterceptor implements ActivityInboundCallsInterceptor {
  execute: NonNullable<ActivityInboundCallsInterceptor['execute']> = async (input, next) => {
    try {
      return await next(input);
    } catch (err) {
      trace.getActiveSpan()?.setAttributes({ [ATTR.errorType]: errorType(err), [ATTR.errorSummary]: errorSummary(err) });
      throw err;
    }
  };
}

/** Whether a span holds error text: a status message or an `exception` event. */
function holdsErrorText(span: ReadableSpan): boolean {
  return span.status.message !== undefined || span.events.some((e) => e.name === 'exception');
}

/** What a span's error was, from what troupe put on it ({@link ATTR.errorSummary}), else its exception's type, else `error.type`. */
function summaryOf(span: ReadableSpan): string {
  const own = span.attributes[ATTR.errorSummary];
  if (typeof own === 'string' && own) return own;
  const type = span.events.find((e) => e.name === 'exception')?.attributes?.[EXCEPTION_TYPE];
  if (typeof type === 'string' && type) return type;
  const errorType = span.attributes[ATTR.errorType];
  return typeof errorType === 'string' && errorType ? errorType : SPAN_ERROR_TEXTS.unknown;
}

/**
 * `span` with its error text withheld (content capture off): its status message, and the message and
 * stack of its `exception` events, replaced by what failed. The same span when it holds no error text.
 */
export function withheldErrorText(span: ReadableSpan): ReadableSpan {
  if (!holdsErrorText(span)) return span;
  const text = SPAN_ERROR_TEXTS.withheld(summaryOf(span));
  const events = span.events.map((e) => {
    if (e.name !== 'exception') return e;
    const { [EXCEPTION_MESSAGE]: _message, [EXCEPTION_STACK]: _stack, ...kept } = e.attributes ?? {};
    return { ...e, attributes: { ...kept, [EXCEPTION_MESSAGE]: text } };
  });
  const status = span.status.message !== undefined ? { ...span.status, message: text } : span.status;
  return Object.create(span, { events: { value: events }, status: { value: status } }) as ReadableSpan;
}
