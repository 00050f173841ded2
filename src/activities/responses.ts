/**
 * Reads the body of a successful chat-completions response, in one piece (JSON) or streamed
 * (server-sent events, assembled by ./stream-assembly.ts), into the completion and the failures
 * Temporal should see: a body cut off is a connection error, a body or event that is not JSON and a
 * completion without a choice are retried; an `error` object (some gateways answer 200 with one, and
 * streams may end with one) fails at once when its code is a status that cannot succeed (400, 401,
 * 403, 404, 422), else is retried. Every failure carries the response's status and request id.
 *
 * A body is read in pieces and counted: past the call's `max_reply_bytes` (a whole body's bytes; a
 * stream's reply as the model wrote it, its text and calls), or one server-sent event past its
 * `max_event_bytes` (core/llm/reply-caps.ts), the read stops and the call fails without a retry,
 * naming the endpoint, the cap and the setting that raises it. Nothing is held beyond a cap.
 */
import { ApplicationFailure } from '@temporalio/activity';
import type { ChatCompletion, ChatCompletionChunk } from 'openai/resources/chat/completions';
import { FAILURE_TYPES, type LlmFailureDetails } from '../core/llm/contract';
import { bytesText, REPLY_CAPS, replyCaps, type ReplyCaps } from '../core/llm/reply-caps';
import { looksLikeSse, SseDecoder, SseEventTooLargeError, type SseEvent } from './sse';
import { CompletionAssembler } from './stream-assembly';
import { ACTIVITY_TEXTS } from './texts';

type LlmKind = LlmFailureDetails['kind'];

/** Statuses that cannot succeed on a retry. */
export const FATAL_STATUSES = new Set([400, 401, 403, 404, 422]);

/** Who made the request and to which endpoint (its shown URL), for messages, and the caps its reply is held to (default: the defaults). */
interface Caller {
  kind: LlmKind;
  agent: string;
  endpoint?: string;
  caps?: ReplyCaps;
}

/** A body read whole. */
export interface ReadCompletion {
  completion: ChatCompletion;
  /** Whether it came as server-sent events. */
  streamed: boolean;
  /** Whether the endpoint reported usage (a stream may end without its usage chunk). */
  usageReported: boolean;
}

/** The failure details of an LLM activity. */
export function details(kind: LlmKind, message: string, status?: number, requestId?: string): LlmFailureDetails {
  return {
    kind,
    message,
    ...(status !== undefined ? { status } : {}),
    ...(requestId ? { requestId } : {}),
  };
}

/** Whether `value` looks like an Error (errors of Node's own fetch may come from another realm: read by shape). */
export function errorLike(value: unknown): value is Error & { code?: unknown } {
  return typeof value === 'object' && value !== null && typeof (value as Error).message === 'string';
}

/** An error's message and its cause's. */
function errorText(err: unknown): string {
  if (!errorLike(err)) return String(err);
  const cause = errorLike(err.cause) && err.cause.message ? ` (${err.cause.message})` : '';
  return `${err.message}${cause}`;
}

/** The start of a body, for a diagnostic: at most 200 characters on one line. */
function snippet(text: string): string {
  const line = text.slice(0, 1000).replace(/\s+/g, ' ').trim();
  return line.length > 200 ? `${line.slice(0, 200)}…` : line;
}

/** An HTTP status carried in an `error` object (`code` or `status`, a number or a numeric string). */
function embeddedStatus(error: Record<string, unknown>): number | undefined {
  for (const v of [error.code, error.status]) {
    const n = typeof v === 'number' ? v : typeof v === 'string' && /^\d{3}$/.test(v) ? Number(v) : NaN;
    if (Number.isInteger(n) && n >= 400 && n <= 599) return n;
  }
  return undefined;
}

/** Builds the failures of one response: its status and request id go into each. */
function failuresOf(response: Response, { kind, agent, endpoint = ACTIVITY_TEXTS.llm.theEndpoint, caps = replyCaps(undefined) }: Caller) {
  const requestId = response.headers.get('x-request-id') ?? undefined;
  const status = response.status;
  const retryable = (message: string, detail: string, at = status) =>
    ApplicationFailure.create({ type: FAILURE_TYPES.retryable, message, details: [details(kind, detail, at, requestId)] });
  const fatal = (message: string, detail: string) =>
    ApplicationFailure.create({ type: FAILURE_TYPES.fatal, nonRetryable: true, message, details: [details(kind, detail, status, requestId)] });
  return {
    retryable,
    /** The reply passed `max_reply_bytes`. */
    replyTooLarge: () => {
      const words = [kind, agent, endpoint, bytesText(caps.replyBytes), bytesText(REPLY_CAPS.maxReplyBytes)] as const;
      return fatal(ACTIVITY_TEXTS.llm.replyTooLarge(...words), ACTIVITY_TEXTS.llm.replyTooLargeDetail(...words));
    },
    /** One server-sent event (or line) passed `max_event_bytes`. */
    eventTooLarge: () => {
      const words = [kind, agent, endpoint, bytesText(caps.eventBytes), bytesText(REPLY_CAPS.maxEventBytes)] as const;
      return fatal(ACTIVITY_TEXTS.llm.eventTooLarge(...words), ACTIVITY_TEXTS.llm.eventTooLargeDetail(...words));
    },
    cutOff: (why: string) => retryable(ACTIVITY_TEXTS.llm.connection(kind, agent, why), why),
    malformed: (why: string) => retryable(ACTIVITY_TEXTS.llm.malformedBody(kind, agent, why, requestId), why),
    noChoice: () => retryable(ACTIVITY_TEXTS.llm.malformed(kind, agent, requestId), ACTIVITY_TEXTS.llm.noChoice),
    /** An `error` object in a 200 body or in a stream. */
    embedded(error: Record<string, unknown>): ApplicationFailure {
      const message = typeof error.message === 'string' && error.message.trim() ? snippet(error.message) : ACTIVITY_TEXTS.llm.noMessage;
      const at = embeddedStatus(error) ?? status;
      const text = ACTIVITY_TEXTS.llm.http(kind, agent, at, message, requestId);
      if (FATAL_STATUSES.has(at)) {
        return ApplicationFailure.create({ type: FAILURE_TYPES.fatal, nonRetryable: true, message: text, details: [details(kind, message, at, requestId)] });
      }
      return retryable(text, message, at);
    },
  };
}

type Failures = ReturnType<typeof failuresOf>;

function isAbort(err: unknown): boolean {
  return errorLike(err) && err.name === 'AbortError';
}

/**
 * Reads a successful response: as a stream when it is `text/event-stream` (or a body that opens
 * like one), calling `onText` with each piece of content as it arrives; else as one JSON completion,
 * as an endpoint that ignores `stream: true` sends it. An abort (cancellation, the deadline) is
 * rethrown as it is for the caller to classify.
 */
export async function readResponse(response: Response, caller: Caller, onText: (delta: string) => void): Promise<ReadCompletion> {
  const fail = failuresOf(response, caller);
  const caps = caller.caps ?? replyCaps(undefined);
  const type = response.headers.get('content-type') ?? '';
  if (/text\/event-stream/i.test(type) && response.body) return readStream(response.body, caps, fail, onText);
  const text = await readWhole(response.body, caps.replyBytes, fail);
  if (looksLikeSse(text)) return readStream(new Blob([text]).stream(), caps, fail, onText);
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    throw fail.malformed(ACTIVITY_TEXTS.llm.notJson(response.status, type || 'no content type', snippet(text)));
  }
  const completion = data as ChatCompletion & { error?: unknown };
  if (!Array.isArray(completion?.choices) && completion?.error && typeof completion.error === 'object') {
    throw fail.embedded(completion.error as Record<string, unknown>);
  }
  if (!Array.isArray(completion?.choices) || completion.choices[0]?.message === undefined) throw fail.noChoice();
  return { completion, streamed: false, usageReported: Boolean(completion.usage) };
}

/**
 * Reads `body` piece by piece into `take` until it ends (true) or `take` returns false (false); a
 * read that fails is a body cut off, a connection error (an abort is rethrown as it is). A body left
 * early, or by a throw, is released.
 */
async function readPieces(body: ReadableStream<Uint8Array>, fail: Failures, take: (piece: Uint8Array) => boolean): Promise<boolean> {
  const reader = body.getReader();
  let ended = false;
  try {
    for (;;) {
      let read: Awaited<ReturnType<typeof reader.read>>;
      try {
        read = await reader.read();
      } catch (err) {
        if (isAbort(err)) throw err;
        throw fail.cutOff(ACTIVITY_TEXTS.llm.bodyCutOff(errorText(err)));
      }
      if (read.done) {
        ended = true;
        return true;
      }
      if (!take(read.value)) return false;
    }
  } finally {
    if (!ended) reader.cancel().catch(() => undefined);
  }
}

/**
 * A body read whole as text, in pieces counted against `maxBytes`: past it the read stops (the rest
 * is never fetched) and the reply-cap failure is thrown; a body cut off is a connection error.
 */
async function readWhole(body: ReadableStream<Uint8Array> | null, maxBytes: number, fail: Failures): Promise<string> {
  if (!body) return '';
  const pieces: Uint8Array[] = [];
  let total = 0;
  await readPieces(body, fail, (piece) => {
    total += piece.byteLength;
    if (total > maxBytes) throw fail.replyTooLarge();
    pieces.push(piece);
    return true;
  });
  const whole = new Uint8Array(total);
  let at = 0;
  for (const piece of pieces) {
    whole.set(piece, at);
    at += piece.byteLength;
  }
  return new TextDecoder().decode(whole);
}

/**
 * Reads server-sent chunks until `[DONE]` (or the end of a body whose every choice has finished),
 * assembling the completion. An event that is not JSON, an `error` event or object, and a stream
 * that ends, or breaks, before the reply is complete are failures; so is a stream past its caps.
 * A stream left early (`[DONE]`, an error event) is released.
 */
async function readStream(body: ReadableStream<Uint8Array>, caps: ReplyCaps, fail: Failures, onText: (delta: string) => void): Promise<ReadCompletion> {
  const sse = new SseDecoder(caps.eventBytes);
  const assembler = new CompletionAssembler();
  let done = false;
  const take = (events: SseEvent[]) => {
    for (const event of events) {
      if (done) return;
      if (event.data.trim() === '[DONE]') {
        done = true;
        return;
      }
      const text = assembler.add(chunkOf(event, fail));
      if (text !== '') onText(text);
    }
  };
  const ended = await readPieces(body, fail, (piece) => {
    try {
      take(sse.push(piece));
    } catch (err) {
      if (err instanceof SseEventTooLargeError) throw fail.eventTooLarge();
      throw err;
    }
    // the reply as written (not the events' framing: ~230 bytes a token as OpenAI streams) is what
    // is held, and what the cap counts; one event is held to its own cap while it arrives
    if (assembler.held > caps.replyBytes) throw fail.replyTooLarge();
    return !done;
  });
  if (ended) take(sse.end());
  if (!done && !assembler.finished) throw fail.cutOff(ACTIVITY_TEXTS.llm.streamCutOff);
  const completion = assembler.completion();
  if (completion.choices[0]?.message === undefined) throw fail.noChoice();
  return { completion, streamed: true, usageReported: assembler.hasUsage };
}

/** One event as a chunk; an error event, an `error` object or data that is not JSON throws its failure. */
function chunkOf(event: SseEvent, fail: Failures): ChatCompletionChunk {
  let data: unknown;
  try {
    data = JSON.parse(event.data);
  } catch {
    throw fail.malformed(ACTIVITY_TEXTS.llm.eventNotJson(snippet(event.data)));
  }
  const record = (typeof data === 'object' && data !== null ? data : {}) as Record<string, unknown>;
  const error = record.error;
  if (error && typeof error === 'object' && !Array.isArray(record.choices)) throw fail.embedded(error as Record<string, unknown>);
  if (event.event === 'error') throw fail.embedded(error && typeof error === 'object' ? (error as Record<string, unknown>) : record);
  return record as unknown as ChatCompletionChunk;
}
