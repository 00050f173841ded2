/**
 * What troupe reads of an HTTP MCP server's replies. The SDK reads the reply to a POST whole (its JSON
 * body, or each SSE event gathered in memory) before troupe cuts a result to 64 KiB, so a 480 MB tool
 * result once cost 2.3 GB of memory and a stalled event loop. The transport is therefore given a
 * `fetch` that counts the body of every POST reply as it is read: past {@link MCP_READ_CAP_BYTES} the
 * body is cancelled (its socket is closed, nothing more is read) and the requests the POST carried are
 * answered at once with an error the model gets as the tool's answer. It is never retried: the next
 * attempt would read the same flood. The GET stream of server notifications is not counted: it lasts
 * as long as the session and carries no results.
 */
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, isJSONRPCRequest, McpError, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

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
  const reader = source.getReader();
  let passed = 0;
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        const next = await reader.read();
        if (next.done) return controller.close();
        passed += next.value.byteLength;
        if (passed <= capBytes) return controller.enqueue(next.value);
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
 * A fetch whose POST replies are read through {@link capStream}. `onOverflow` is told the request
 * body of a successful reply that passed the cap; a failed one (an HTTP error status) is only cut, so
 * the SDK still reports its status (a 404 must still mean a lost session).
 * @internal exported for tests
 */
export function cappedFetch(
  capBytes: number,
  onOverflow: (requestBody: unknown) => void,
  base: FetchLike = (url, init) => fetch(url, init),
): FetchLike {
  return async (url, init) => {
    const response = await base(url, init);
    if ((init?.method ?? 'GET').toUpperCase() !== 'POST' || response.body === null || response.type === 'opaqueredirect') return response;
    const body = capStream(response.body, capBytes, () => {
      if (response.ok) onOverflow(init?.body);
    });
    const capped = new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
    // the SDK names the target of a redirect it did not follow relative to the reply's URL
    Object.defineProperty(capped, 'url', { value: response.url });
    return capped;
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
 * A Streamable HTTP transport whose POST replies are read under `capBytes`; a reply that passes it
 * ends the requests it answers with an error ({@link tooLargeReplies}), delivered as if the server had
 * sent it, so the client rejects them at once.
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
