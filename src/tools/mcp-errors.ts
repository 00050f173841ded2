/**
 * What an error from an MCP call means for the caller. The SDK reports very different situations
 * through thrown errors: a server that died or forgot our session (reconnect and try again), a request
 * that ran out of time, a network failure (retry later), and a reply the client refused, such as a
 * result that does not match the tool's declared output schema (an answer for the model: retrying
 * would get the same reply), or a reply larger than troupe reads (`mcp-read-cap.ts`: the next attempt
 * would read the same flood). A tool's own failure is not among them: it arrives as a result with
 * `isError`. A cancelled call is recognised by the caller's signal before this classification.
 */
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { replyTooLargeText } from './mcp-read-cap';

/** How a failed MCP request should be handled. */
type McpFailure =
  /** The connection is gone: drop the client and connect afresh. `mayHaveRun`: the server may have acted. */
  | { kind: 'connection_lost'; mayHaveRun: boolean; message: string }
  /** No reply within the request's timeout (retryable). */
  | { kind: 'timeout'; message: string }
  /** A network or server failure worth another attempt later. */
  | { kind: 'transport'; message: string }
  /** A definite answer to give the model as error text, never retried. */
  | { kind: 'answer'; message: string };

/** HTTP statuses that are worth retrying. */
const RETRYABLE_STATUS = new Set([408, 425, 429, 500, 502, 503, 504]);

/** Network errors raised before the request reached the server (it cannot have acted). */
const NOT_SENT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);

function causeCode(err: unknown): string | undefined {
  let cause = (err as { cause?: unknown } | null)?.cause;
  for (let depth = 0; cause && depth < 5; depth += 1) {
    const code = (cause as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    cause = (cause as { cause?: unknown }).cause;
  }
  return undefined;
}

/** Errors are recognised by shape: Node's own fetch may raise them from another realm than this code's `Error`. */
function errorLike(value: unknown): value is Error {
  return typeof value === 'object' && value !== null && typeof (value as Error).message === 'string';
}

function messageOf(err: unknown): string {
  if (!errorLike(err)) return String(err);
  const code = causeCode(err);
  return code && !err.message.includes(code) ? `${err.message} (${code})` : err.message;
}

/** Socket failures of a kept-alive HTTP connection that the server had closed (it restarted, say). */
const STALE_SOCKET_CODES = new Set(['UND_ERR_SOCKET', 'ECONNRESET', 'EPIPE']);

/**
 * Whether `err` is an HTTP request that failed on a pooled connection the server had already closed:
 * right after a server restarts, the first requests can meet such sockets before the client has
 * noticed they are gone, and the same request on a new socket works.
 */
export function isStaleSocket(err: unknown): boolean {
  return errorLike(err) && err.message === 'fetch failed' && STALE_SOCKET_CODES.has(causeCode(err) ?? '');
}

/** Whether `err` is zod's complaint about a reply that is not a valid MCP result. */
function isMalformedReply(err: unknown): boolean {
  return errorLike(err) && err.name === 'ZodError';
}

/** Classifies an error thrown by an MCP request (see the module doc). */
export function classifyMcpError(err: unknown): McpFailure {
  const tooLarge = replyTooLargeText(err);
  if (tooLarge !== undefined) return { kind: 'answer', message: tooLarge };
  const message = messageOf(err);
  if (err instanceof McpError) {
    if (err.code === ErrorCode.ConnectionClosed) return { kind: 'connection_lost', mayHaveRun: true, message };
    if (err.code === ErrorCode.RequestTimeout) return { kind: 'timeout', message };
    return { kind: 'answer', message };
  }
  if (err instanceof StreamableHTTPError) {
    // a server that restarted or dropped our session answers 404 to every request of it
    if (err.code === 404) return { kind: 'connection_lost', mayHaveRun: false, message };
    if (err.code !== undefined && RETRYABLE_STATUS.has(err.code)) return { kind: 'transport', message };
    return { kind: 'answer', message };
  }
  if (errorLike(err) && err.message === 'Not connected') return { kind: 'connection_lost', mayHaveRun: false, message };
  if (errorLike(err) && err.name === 'TypeError' && err.message === 'fetch failed') {
    return { kind: 'connection_lost', mayHaveRun: !NOT_SENT_CODES.has(causeCode(err) ?? ''), message };
  }
  if (isMalformedReply(err)) return { kind: 'answer', message };
  return { kind: 'transport', message };
}
