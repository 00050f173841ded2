/**
 * What troupe reads of an HTTP MCP server's replies. The SDK reads the reply to a POST whole (its JSON
 * body, or each SSE event gathered in memory) before troupe cuts a result to 64 KiB, so a 480 MB tool
 * result once cost 2.3 GB of memory and a stalled event loop. The transport is therefore given a
 * `fetch` that counts the body of every POST reply as it is read: past {@link MCP_READ_CAP_BYTES} the
 * body is cancelled (its socket is closed, nothing more is read) and the requests the POST carried are
 * answered at once with an error the model gets as the tool's answer. It is never retried: the next
 * attempt would read the same flood.
 *
 * An SSE reply may be resumed: when its stream ends before the answer, after an event with an id, the
 * SDK asks again with a GET carrying `Last-Event-ID`, and again whenever that replay ends, without a
 * limit of its own. Such a replay is counted with the reply it resumes (the ids each stream sets tell
 * which, `sse-scan.ts`), so a reply is read up to the cap however many times it is resumed; past it the
 * requests are answered with the same error, and a later resumption of it is refused before anything
 * is sent. The GET stream of server notifications lasts as long as the session and carries no
 * results: only each of its events is held to the cap (the SDK gathers an event whole).
 */
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, isJSONRPCRequest, McpError, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { SseScanner } from './sse-scan';

/**
 * The most troupe reads of one reply to a POST (a call's result, a page of tools), in bytes.
 * @internal exported for tests
 */
export const MCP_READ_CAP_BYTES = 1024 * 1024;

/**
 * Texts of a reply cut off by the cap, so tests can pin them.
 * @internal exported for tests
 */
export const READ_CAP_TEXTS = {
  tooLarge: (capBytes: number) => `the server's reply is larger than ${bytesText(capBytes)}; troupe stopped reading it`,
} as const;

function bytesText(bytes: number): string {
  const mib = 1024 * 1024;
  if (bytes % mib === 0) return `${bytes / mib} MiB`;
  if (bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} bytes`;
}

/**
 * The error of a reply body read past its cap.
 * @internal exported for tests
 */
export class McpReplyTooLargeError extends Error {
  override readonly name = 'McpReplyTooLargeError';
  constructor(readonly capBytes: number) {
    super(READ_CAP_TEXTS.tooLarge(capBytes));
  }
}

/**
 * `source` as it is, while `over` (told each chunk before it is given out) says the cap is not passed;
 * the chunk that passes it is not given out: the stream errors with {@link McpReplyTooLargeError}
 * (after `onOverflow` was told) and `source` is cancelled. Nothing is read ahead of the reader.
 */
function meteredStream(
  source: ReadableStream<Uint8Array>,
  capBytes: number,
  over: (chunk: Uint8Array) => boolean,
  onOverflow: (error: McpReplyTooLargeError) => void,
): ReadableStream<Uint8Array> {
  const reader = source.getReader();
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        const next = await reader.read();
        if (next.done) return controller.close();
        if (!over(next.value)) return controller.enqueue(next.value);
        const error = new McpReplyTooLargeError(capBytes);
        try {
          onOverflow(error);
        } finally {
          reader.cancel(error).catch(() => undefined);
          controller.error(error);
        }
      },
      cancel: (reason) => reader.cancel(reason),
    },
    { highWaterMark: 0 },
  );
}

/**
 * `source` as it is, while at most `capBytes` have passed; the chunk that would pass them is not
 * given out: the stream errors with {@link McpReplyTooLargeError} (after `onOverflow` was told) and
 * `source` is cancelled. Nothing is read ahead of the reader.
 * @internal exported for tests
 */
export function capStream(
  source: ReadableStream<Uint8Array>,
  capBytes: number,
  onOverflow: (error: McpReplyTooLargeError) => void = () => undefined,
): ReadableStream<Uint8Array> {
  let passed = 0;
  return meteredStream(source, capBytes, (chunk) => (passed += chunk.byteLength) > capBytes, onOverflow);
}

/**
 * One reply as troupe counts it, over the POST that asked and every GET that resumed it: what the POST
 * carried (to answer its requests), the bytes read, and whether they passed the cap. The notification
 * stream is one too, counted per event only.
 */
interface Reply {
  requestBody: unknown;
  bytes: number;
  overflowed: boolean;
  /** The notification stream: each event is held to the cap, not the whole. */
  perEvent: boolean;
}

/**
 * How many event ids a transport remembers (each names the reply it resumes); the oldest go first. A
 * resumption from an id no longer known is counted as a reply of its own, under the same cap.
 * @internal exported for tests
 */
export const MAX_TRACKED_EVENT_IDS = 1024;

/** The replies of one transport by the event ids their streams set. */
class ReplyIds {
  private readonly byId = new Map<string, Reply>();

  /** The reply `id` resumes; a new one (no requests to answer) when the id is not known. */
  resumed(id: string): Reply {
    const known = this.byId.get(id);
    if (known) return known;
    const reply: Reply = { requestBody: undefined, bytes: 0, overflowed: false, perEvent: false };
    this.set(id, reply);
    return reply;
  }

  set(id: string, reply: Reply): void {
    this.byId.delete(id);
    this.byId.set(id, reply);
    if (this.byId.size > MAX_TRACKED_EVENT_IDS) this.byId.delete(this.byId.keys().next().value as string);
  }
}

/** What a GET asked to resume (`Last-Event-ID`), if it is a resumption. */
function lastEventId(init: RequestInit | undefined): string | undefined {
  return new Headers(init?.headers).get('last-event-id') ?? undefined;
}

/** A response whose body is `body`, with the status, headers and URL of `response`. */
function withBody(response: Response, body: ReadableStream<Uint8Array>): Response {
  const replaced = new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
  // the SDK names the target of a redirect it did not follow relative to the reply's URL
  Object.defineProperty(replaced, 'url', { value: response.url });
  return replaced;
}

/**
 * A fetch whose replies are read under `capBytes` (see the module doc): a POST reply, with the GETs
 * that resume it, in all; each event of the notification stream on its own. `onOverflow` is told the
 * request body of a successful reply that passed the cap; a failed POST reply (an HTTP error status)
 * is only cut, so the SDK still reports its status (a 404 must still mean a lost session). A
 * resumption of a reply that passed the cap is refused with {@link McpReplyTooLargeError} before
 * anything is sent, so the SDK's attempts to resume it run out.
 * @internal exported for tests
 */
export function cappedFetch(
  capBytes: number,
  onOverflow: (requestBody: unknown) => void,
  base: FetchLike = (url, init) => fetch(url, init),
): FetchLike {
  const ids = new ReplyIds();
  /** `body` counted as part of `reply`, the ids its stream sets remembered as naming it. */
  const metered = (body: ReadableStream<Uint8Array>, reply: Reply, ok: boolean, events: boolean): ReadableStream<Uint8Array> => {
    const scanner = events ? new SseScanner() : undefined;
    const remember = (id: string) => ids.set(id, reply);
    return meteredStream(
      body,
      capBytes,
      (chunk) => {
        const event = scanner?.push(chunk, remember) ?? 0;
        return reply.perEvent ? event > capBytes : (reply.bytes += chunk.byteLength) > capBytes;
      },
      () => {
        if (reply.perEvent || !ok) return;
        reply.overflowed = true;
        onOverflow(reply.requestBody);
      },
    );
  };
  return async (url, init) => {
    const method = (init?.method ?? 'GET').toUpperCase();
    const resumes = method === 'GET' ? lastEventId(init) : undefined;
    const reply: Reply =
      resumes !== undefined ? ids.resumed(resumes) : { requestBody: init?.body, bytes: 0, overflowed: false, perEvent: method === 'GET' };
    if (reply.overflowed) throw new McpReplyTooLargeError(capBytes);
    const response = await base(url, init);
    if ((method !== 'POST' && method !== 'GET') || response.body === null || response.type === 'opaqueredirect') return response;
    // a failed GET is not read (the SDK cancels it); a failed POST is read for its text, under the cap
    if (method === 'GET' && !response.ok) return response;
    // the SDK reads a GET as events whatever its content type says
    const events = method === 'GET' || (response.headers.get('content-type') ?? '').toLowerCase().includes('text/event-stream');
    return withBody(response, metered(response.body, reply, response.ok, events));
  };
}

/** Marks the error replies troupe makes, so they are told apart from a server's own. */
const TOO_LARGE_DATA = 'troupe/replyTooLarge';

/**
 * The replies that end the requests of a POST whose reply passed the cap: one JSON-RPC error for each
 * request in `requestBody` (the JSON text the SDK posted). The SDK waits for a reply to each request
 * and would otherwise wait until the request timed out (an SSE reply's failure reaches only its
 * `onerror`).
 * @internal exported for tests
 */
export function tooLargeReplies(requestBody: unknown, capBytes: number): JSONRPCMessage[] {
  if (typeof requestBody !== 'string') return [];
  let posted: unknown;
  try {
    posted = JSON.parse(requestBody);
  } catch {
    return [];
  }
  const messages = Array.isArray(posted) ? posted : [posted];
  return messages.filter(isJSONRPCRequest).map((request) => ({
    jsonrpc: '2.0',
    id: request.id,
    error: { code: ErrorCode.InternalError, message: READ_CAP_TEXTS.tooLarge(capBytes), data: { [TOO_LARGE_DATA]: capBytes } },
  }));
}

/** The text for the model when `err` is a reply cut off by the cap (either form), else undefined. */
export function replyTooLargeText(err: unknown): string | undefined {
  if (err instanceof McpReplyTooLargeError) return err.message;
  if (!(err instanceof McpError) || typeof err.data !== 'object' || err.data === null) return undefined;
  const capBytes = (err.data as Record<string, unknown>)[TOO_LARGE_DATA];
  return typeof capBytes === 'number' ? READ_CAP_TEXTS.tooLarge(capBytes) : undefined;
}

/**
 * A Streamable HTTP transport whose replies are read under `capBytes` ({@link cappedFetch}); a reply
 * that passes it, resumed or not, ends the requests it answers with an error ({@link tooLargeReplies}),
 * delivered as if the server had sent it, so the client rejects them at once.
 */
export function cappedHttpTransport(url: URL, requestInit: RequestInit, capBytes = MCP_READ_CAP_BYTES): StreamableHTTPClientTransport {
  const transport: StreamableHTTPClientTransport = new StreamableHTTPClientTransport(url, {
    requestInit,
    fetch: cappedFetch(capBytes, (requestBody) => {
      for (const reply of tooLargeReplies(requestBody, capBytes)) transport.onmessage?.(reply);
    }),
  });
  return transport;
}
