/**
 * A Streamable HTTP MCP reply that the client resumes (a GET with `Last-Event-ID` after its stream
 * ended without the answer) is read under the same cap as the reply itself, however many times it is
 * resumed (src/tools/mcp-read-cap.ts): past 1 MiB in all the call is answered with the cap's text,
 * the replay is cut, and the SDK's further attempts to resume it are refused before anything is sent,
 * so it gives up. The SSE scan that tells which reply a resumption continues (src/tools/sse-scan.ts),
 * the capped fetch on its own, and a real HTTP server that replays without end, in one stream or in
 * parts.
 */
import { CALL_TEXTS } from '../../../src/tools/call';
import { cappedFetch, McpReplyTooLargeError, MCP_READ_CAP_BYTES, READ_CAP_TEXTS, tooLargeReplies } from '../../../src/tools/mcp-read-cap';
import type { ToolRegistry } from '../../../src/tools/registry';
import { MAX_SSE_ID_LINE_BYTES, SseScanner } from '../../../src/tools/sse-scan';
import { FloodHttpMcpServer } from '../../fixtures/tools/flood-http-server';
import { call, captureLogger, openRegistry, removeDirs, writeToolsFile } from '../../fixtures/tools/helpers';

const encode = (text: string) => new TextEncoder().encode(text);

/** The ids `chunks` set and the largest event size each chunk reached. */
function scan(chunks: string[]): { ids: string[]; largest: number[] } {
  const scanner = new SseScanner();
  const ids: string[] = [];
  const largest = chunks.map((c) => scanner.push(encode(c), (id) => ids.push(id)));
  return { ids, largest };
}

describe('the SSE scan', () => {
  it('reports each id line as it ends, whatever the line ends, split anywhere', () => {
    expect(scan(['id: a\ndata: 1\n\n', 'id:b\r\ndata: 2\r\n\r\n', 'id: c\rdata: 3\r\r']).ids).toEqual(['a', 'b', 'c']);
    const text = 'event: message\nid: split-here\ndata: {}\n\nid\ndata: x\n\n';
    for (let cut = 1; cut < text.length; cut += 1) expect(scan([text.slice(0, cut), text.slice(cut)]).ids).toEqual(['split-here', '']);
    expect(scan(['id:  two spaces\n', 'id: é\n']).ids).toEqual([' two spaces', 'é']);
  });

  it('reads past what is no id: other fields, ids with NUL, and id lines too long to keep', () => {
    expect(scan(['idx: 1\n', 'data: id: 2\n', ': id: 3\n', 'id: a\u0000b\n', ` id: 4\n`]).ids).toEqual([]);
    const long = 'y'.repeat(MAX_SSE_ID_LINE_BYTES);
    expect(scan([`id: ${long}\n`, `id: ${long.slice(0, MAX_SSE_ID_LINE_BYTES - 5)}\n`]).ids).toEqual([long.slice(0, MAX_SSE_ID_LINE_BYTES - 5)]);
  });

  it('measures the event being read: its lines add up, a blank line ends it, a CRLF split between chunks is one line end', () => {
    expect(scan(['data: 12345\ndata: 678\n', '\n', 'data: 1']).largest).toEqual([20, 20, 7]);
    expect(scan(['data: 1234\r', '\ndata: 5\r\n', '\r\n']).largest).toEqual([10, 17, 17]);
    expect(scan(['x'.repeat(5000)]).largest).toEqual([5000]);
  });
});

describe('the capped fetch and a resumed reply', () => {
  const CAP = 1024;
  const post = (id: number) => JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 't' } });

  it('counts a resumption with the reply it resumes, answers its requests past the cap, and refuses to resume it again', async () => {
    const told: unknown[] = [];
    const sent: string[] = [];
    const replies: Record<string, () => Response> = {
      POST: () => new Response(`id: r1\ndata:\n\n${'data: x\n\n'.repeat(60)}`, { status: 200, headers: { 'content-type': 'text/event-stream' } }),
      GET: () => new Response(`id: r2\ndata: ${'y'.repeat(300)}\n\n`.repeat(10), { status: 200, headers: { 'content-type': 'text/event-stream' } }),
    };
    const capped = cappedFetch(CAP, (body) => told.push(body), async (_, init) => (sent.push(init?.method ?? 'GET'), replies[init?.method ?? 'GET']()));
    // the POST's stream is read whole (under the cap) and ends without an answer
    expect((await (await capped('http://127.0.0.1/mcp', { method: 'POST', body: post(5) })).text()).length).toBeLessThan(CAP);
    const resumed = await capped('http://127.0.0.1/mcp', { method: 'GET', headers: { 'last-event-id': 'r1' } });
    await expect(resumed.text()).rejects.toBeInstanceOf(McpReplyTooLargeError);
    expect(told).toEqual([post(5)]);
    // from the first id or from one the replay set: refused, nothing sent
    for (const id of ['r1', 'r2']) await expect(capped('http://127.0.0.1/mcp', { method: 'GET', headers: { 'last-event-id': id } })).rejects.toBeInstanceOf(McpReplyTooLargeError);
    expect(sent).toEqual(['POST', 'GET']);
    expect(tooLargeReplies(told[0], CAP)).toHaveLength(1);
  });

  it('holds a resumption of an unknown id to the cap on its own, then refuses it', async () => {
    const sent: string[] = [];
    const capped = cappedFetch(CAP, () => undefined, async (_, init) => (sent.push(String(new Headers(init?.headers).get('last-event-id'))), new Response('data: z\n\n'.repeat(200), { status: 200 })));
    await expect((await capped('http://127.0.0.1/mcp', { method: 'GET', headers: { 'last-event-id': 'nobody' } })).text()).rejects.toBeInstanceOf(McpReplyTooLargeError);
    await expect(capped('http://127.0.0.1/mcp', { method: 'GET', headers: { 'last-event-id': 'nobody' } })).rejects.toBeInstanceOf(McpReplyTooLargeError);
    expect(sent).toEqual(['nobody']);
  });

  it('resumes the notification stream from its own ids, counted per event as before', async () => {
    const capped = cappedFetch(CAP, () => undefined, async () => new Response(`id: n\ndata: ${'w'.repeat(500)}\n\n`.repeat(10), { status: 200 }));
    expect((await (await capped('http://127.0.0.1/mcp', { method: 'GET' })).text()).length).toBeGreaterThan(CAP);
    expect((await (await capped('http://127.0.0.1/mcp', { method: 'GET', headers: { 'last-event-id': 'n' } })).text()).length).toBeGreaterThan(CAP);
  });
});

describe('a real HTTP server that replays without end', () => {
  const server = new FloodHttpMcpServer(0);
  const log = captureLogger();
  let registry: ToolRegistry;
  beforeAll(async () => {
    await server.start();
    registry = await openRegistry(writeToolsFile(`mcp_servers:\n  big:\n    url: ${server.url}\n    timeout_ms: 30000\n`), log.logger);
  });
  afterAll(async () => {
    await registry.close();
    await server.stop();
    removeDirs();
  });

  /** Resolves once the SDK has given up resuming (its attempts refused), the `n`th time. */
  async function gaveUp(n: number): Promise<void> {
    while (log.lines.filter((l) => l.includes('Maximum reconnection attempts')).length < n) await new Promise((r) => setTimeout(r, 20));
  }

  it.each([
    // one stream without end: cut once the reply passes the cap
    ['replay', 1, 1],
    // four events (256 KiB) a resumption: the fourth passes the cap
    ['replay_in_parts', 4, 2],
  ])('%s: the model gets the cap text, the replay is cut and resumed no more, and the connection stays', async (tool, resumptions, giveUps) => {
    const outcome = await call(registry, `big__${tool}`, {});
    expect(outcome).toEqual({ kind: 'error', text: CALL_TEXTS.failed(`big__${tool}`, READ_CAP_TEXTS.tooLarge(MCP_READ_CAP_BYTES)) });
    await gaveUp(giveUps);
    const replays = server.resumptions.filter((r) => r.tool === tool);
    expect(replays).toHaveLength(resumptions);
    await Promise.all(replays.map((r) => r.ended));
    if (tool === 'replay') expect(replays[0].cutShort).toBe(true);
    // what the server got written: the cap, and what the sockets' buffers held besides
    expect(replays.reduce((sum, r) => sum + r.written, 0)).toBeLessThan(32 * MCP_READ_CAP_BYTES);
    expect(server.initializes).toBe(1);
    expect(await call(registry, 'big__small', {})).toEqual({ kind: 'ok', text: 'a short text' });
    expect(server.resumptions.filter((r) => r.tool === tool)).toHaveLength(resumptions);
  });
});
