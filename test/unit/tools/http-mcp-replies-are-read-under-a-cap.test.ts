/**
 * The read cap of HTTP MCP replies (src/tools/mcp-read-cap.ts): the counting stream passes a body under
 * the cap unchanged and cancels one over it; the capped fetch counts POST replies whole and the
 * notification stream per event, and tells of an overflow only for a successful reply; the error replies it makes and their classification as the
 * tool's answer; and, against a real HTTP server whose reply is 4 MiB (as JSON and as SSE), an `error`
 * outcome with the cap's text, the server read no further, no reconnection, and the connection still
 * answering the next call.
 */
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { CALL_TEXTS } from '../../../src/tools/call';
import { MCP_CONNECTION_TEXTS } from '../../../src/tools/mcp-connection';
import { classifyMcpError } from '../../../src/tools/mcp-errors';
import {
  cappedFetch,
  capStream,
  McpReplyTooLargeError,
  MCP_READ_CAP_BYTES,
  READ_CAP_TEXTS,
  replyTooLargeText,
  tooLargeReplies,
} from '../../../src/tools/mcp-read-cap';
import type { ToolRegistry } from '../../../src/tools/registry';
import { FloodHttpMcpServer } from '../../fixtures/tools/flood-http-server';
import { call, captureLogger, openRegistry, removeDirs, writeToolsFile } from '../../fixtures/tools/helpers';

/** A source stream of `chunks`, recording how many were pulled and the reason it was cancelled with. */
function source(chunks: Uint8Array[]) {
  const seen = { pulled: 0, cancelled: undefined as unknown };
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (seen.pulled === chunks.length) return controller.close();
      controller.enqueue(chunks[seen.pulled]);
      seen.pulled += 1;
    },
    cancel(reason) {
      seen.cancelled = reason;
    },
  });
  return { stream, seen };
}

async function readAll(stream: ReadableStream<Uint8Array>): Promise<Buffer> {
  const parts: Uint8Array[] = [];
  for await (const part of stream as unknown as AsyncIterable<Uint8Array>) parts.push(part);
  return Buffer.concat(parts);
}

const bytes = (n: number, fill: number) => new Uint8Array(n).fill(fill);

describe('the counting stream', () => {
  it('passes a body of exactly the cap unchanged, chunk by chunk, and cancels nothing', async () => {
    const { stream, seen } = source([bytes(400, 1), bytes(500, 2), bytes(124, 3)]);
    const overflows: unknown[] = [];
    const out = await readAll(capStream(stream, 1024, (e) => overflows.push(e)));
    expect(out).toEqual(Buffer.concat([bytes(400, 1), bytes(500, 2), bytes(124, 3)]));
    expect(seen).toEqual({ pulled: 3, cancelled: undefined });
    expect(overflows).toEqual([]);
  });

  it('errors once a chunk passes the cap, without giving it out, tells of it, and cancels the source', async () => {
    const { stream, seen } = source([bytes(600, 1), bytes(600, 2), bytes(600, 3), bytes(600, 4)]);
    const overflows: unknown[] = [];
    const reader = capStream(stream, 1024, (e) => overflows.push(e)).getReader();
    expect(await reader.read()).toEqual({ done: false, value: bytes(600, 1) });
    const err = await reader.read().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(McpReplyTooLargeError);
    expect((err as Error).message).toBe(READ_CAP_TEXTS.tooLarge(1024));
    expect(overflows).toEqual([err]);
    expect(seen.cancelled).toBe(err);
    expect(seen.pulled).toBeLessThan(4);
  });

  it('cancels the source when its reader cancels', async () => {
    const { stream, seen } = source([bytes(10, 1), bytes(10, 2)]);
    const reader = capStream(stream, 1024).getReader();
    await reader.read();
    await reader.cancel('done with it');
    expect(seen.cancelled).toBe('done with it');
  });
});

describe('the capped fetch', () => {
  const big = () => new Response(bytes(3000, 7), { status: 200, headers: { 'content-type': 'application/json' } });

  it('cuts the reply to a POST and tells of it with the request body; a response.json() of it rejects with the cap error', async () => {
    const told: unknown[] = [];
    const capped = cappedFetch(1024, (body) => told.push(body), async () => big());
    const response = await capped('http://127.0.0.1/mcp', { method: 'POST', body: '{"jsonrpc":"2.0","id":3,"method":"tools/call"}' });
    expect(response.headers.get('content-type')).toBe('application/json');
    await expect(response.json()).rejects.toBeInstanceOf(McpReplyTooLargeError);
    expect(told).toEqual(['{"jsonrpc":"2.0","id":3,"method":"tools/call"}']);
  });

  it('holds each event of a GET (the notification stream) to the cap, not the whole stream', async () => {
    const event = `data: ${'x'.repeat(900)}\n\n`;
    const told: unknown[] = [];
    const many = cappedFetch(1024, (body) => told.push(body), async () => new Response(event.repeat(10), { status: 200 }));
    expect((await (await many('http://127.0.0.1/mcp', { method: 'GET' })).text()).length).toBe(event.length * 10);
    const one = cappedFetch(1024, (body) => told.push(body), async () => new Response(`data: ${'x'.repeat(2000)}\n\n`, { status: 200 }));
    await expect((await one('http://127.0.0.1/mcp', { method: 'GET' })).text()).rejects.toBeInstanceOf(McpReplyTooLargeError);
    expect(told).toEqual([]);
  });

  it('only cuts a failed reply (the SDK still reports its status) and keeps the status, headers and URL', async () => {
    const told: unknown[] = [];
    const failed = new Response(bytes(3000, 7), { status: 404, statusText: 'Not Found', headers: { 'x-a': 'b' } });
    Object.defineProperty(failed, 'url', { value: 'http://127.0.0.1/mcp' });
    const capped = cappedFetch(1024, (body) => told.push(body), async () => failed);
    const response = await capped('http://127.0.0.1/mcp', { method: 'POST', body: '{}' });
    expect([response.status, response.statusText, response.headers.get('x-a'), response.url]).toEqual([404, 'Not Found', 'b', 'http://127.0.0.1/mcp']);
    expect(await response.text().catch(() => null)).toBeNull();
    expect(told).toEqual([]);
  });
});

describe('the error replies and their classification', () => {
  it('answers each request a POST carried, and nothing else', () => {
    const error = { code: -32603, message: READ_CAP_TEXTS.tooLarge(1024), data: { 'troupe/replyTooLarge': 1024 } };
    expect(tooLargeReplies('{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{}}', 1024)).toEqual([{ jsonrpc: '2.0', id: 7, error }]);
    const batch = JSON.stringify([
      { jsonrpc: '2.0', id: 1, method: 'ping' },
      { jsonrpc: '2.0', method: 'notifications/progress' },
      { jsonrpc: '2.0', id: 2, result: {} },
    ]);
    expect(tooLargeReplies(batch, 1024).map((r) => (r as { id: number }).id)).toEqual([1]);
    expect(tooLargeReplies('not json', 1024)).toEqual([]);
    expect(tooLargeReplies(undefined, 1024)).toEqual([]);
  });

  it('classifies both forms as the tool answer, with the cap text, and leaves other MCP errors alone', () => {
    const text = READ_CAP_TEXTS.tooLarge(MCP_READ_CAP_BYTES);
    expect(text).toBe("the server's reply is larger than 1 MiB; troupe stopped reading it");
    expect(classifyMcpError(new McpReplyTooLargeError(MCP_READ_CAP_BYTES))).toEqual({ kind: 'answer', message: text });
    const [reply] = tooLargeReplies('{"jsonrpc":"2.0","id":1,"method":"tools/call"}', MCP_READ_CAP_BYTES) as Array<{ error: { code: number; message: string; data: unknown } }>;
    const asRejected = McpError.fromError(reply.error.code, reply.error.message, reply.error.data);
    expect(classifyMcpError(asRejected)).toEqual({ kind: 'answer', message: text });
    expect(replyTooLargeText(new McpError(-32603, 'boom', { other: 1 }))).toBeUndefined();
    expect(classifyMcpError(new McpError(-32000, 'Connection closed'))).toMatchObject({ kind: 'connection_lost' });
  });
});

describe('a real HTTP server answering 4 MiB', () => {
  const server = new FloodHttpMcpServer(4 * MCP_READ_CAP_BYTES);
  const log = captureLogger();
  let registry: ToolRegistry;
  beforeAll(async () => {
    await server.start();
    registry = await openRegistry(writeToolsFile(`mcp_servers:\n  big:\n    url: ${server.url}\n`), log.logger);
  });
  afterAll(async () => {
    await registry.close();
    await server.stop();
    removeDirs();
  });

  it.each(['json', 'sse'])('as %s: the model gets the cap text, the server is read no further, and the connection stays', async (tool) => {
    const from = server.calls.length;
    const outcome = await call(registry, `big__${tool}`, {});
    expect(outcome).toEqual({ kind: 'error', text: CALL_TEXTS.failed(`big__${tool}`, READ_CAP_TEXTS.tooLarge(MCP_READ_CAP_BYTES)) });
    const flood = server.calls[from];
    await flood.ended;
    expect(flood.cutShort).toBe(true);
    expect(flood.written).toBeLessThan(server.resultBytes);
    expect(server.initializes).toBe(1);
    expect(log.lines.filter((l) => l.includes('connection lost'))).toEqual([]);
    expect(log.lines.filter((l) => l.startsWith(MCP_CONNECTION_TEXTS.prefix('big')) && l.includes(READ_CAP_TEXTS.tooLarge(MCP_READ_CAP_BYTES)))).not.toEqual([]);
    expect(await call(registry, 'big__small', {})).toEqual({ kind: 'ok', text: 'a short text' });
  });
});
