/**
 * MCP tools over Streamable HTTP against a server built in the test with the SDK's server classes:
 * `${VAR}` in the URL and headers reaching the server, a server killed and restarted (the next call
 * succeeds on a fresh connection), a server that is down (a retryable failure, then recovery), and a
 * cancellation reaching the handler of a session-mode server.
 */
import { ToolCallCancelledError, ToolCallRetryableError } from '../../../src/tools/call';
import { MCP_CONNECTION_TEXTS } from '../../../src/tools/mcp-connection';
import type { ToolRegistry } from '../../../src/tools/registry';
import { TestHttpMcpServer } from '../../fixtures/tools/http-server';
import { call, captureLogger, openRegistry, removeDirs, waitFor, writeToolsFile } from '../../fixtures/tools/helpers';

const server = new TestHttpMcpServer();
const log = captureLogger();
let registry: ToolRegistry;

beforeAll(async () => {
  await server.start();
  const file = writeToolsFile(
    'mcp_servers:\n  web:\n    url: http://127.0.0.1:${TEST_MCP_PORT}/mcp\n    headers: { Authorization: "Bearer ${TEST_MCP_TOKEN}" }\n',
  );
  registry = await openRegistry(file, log.logger, { TEST_MCP_PORT: String(server.port), TEST_MCP_TOKEN: 's3cret' });
});
afterAll(async () => {
  await registry.close();
  await server.stop();
  removeDirs();
});

it('sends the expanded headers to the server', async () => {
  expect(registry.definitions().map((d) => d.name)).toEqual(['web__whoami', 'web__slow']);
  expect(await call(registry, 'web__whoami', {})).toEqual({ kind: 'ok', text: 'Bearer s3cret instance 1' });
});

it('succeeds on a fresh connection when the server restarts at once, while the client still holds sockets to the old one', async () => {
  await server.stop();
  await server.start();
  expect(await call(registry, 'web__whoami', {})).toEqual({ kind: 'ok', text: `Bearer s3cret instance ${server.instance}` });
  expect(server.initializes).toBe(1);
});

it('succeeds on a fresh connection after the server was killed and restarted (the old session answers 404)', async () => {
  const from = log.lines.length;
  await server.stop();
  await new Promise((r) => setTimeout(r, 200)); // a restart takes a moment; the client sees its sockets close
  await server.start();
  expect(server.initializes).toBe(0);
  expect(await call(registry, 'web__whoami', {})).toEqual({ kind: 'ok', text: `Bearer s3cret instance ${server.instance}` });
  expect(server.initializes).toBe(1);
  const lost = log.lines.slice(from).filter((l) => l.startsWith(MCP_CONNECTION_TEXTS.prefix('web')) && l.includes('connection lost ('));
  const notFound = '{"jsonrpc":"2.0","error":{"code":-32001,"message":"Session not found"},"id":null}';
  expect(lost).toEqual([MCP_CONNECTION_TEXTS.reconnecting('web', `Streamable HTTP error: Error POSTing to endpoint: ${notFound}`)]);
});

it('fails retryably while the server is down, and recovers once it is back', async () => {
  await server.stop();
  const err = await call(registry, 'web__whoami', {}).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(ToolCallRetryableError);
  expect((err as ToolCallRetryableError).reason).toBe('transport');
  expect((err as Error).message).toContain('fetch failed');
  await server.start();
  expect(await call(registry, 'web__whoami', {})).toEqual({ kind: 'ok', text: `Bearer s3cret instance ${server.instance}` });
});

it('cancels a running call on the server (session mode)', async () => {
  const controller = new AbortController();
  const running = call(registry, 'web__slow', { ms: 60000 }, { signal: controller.signal });
  await waitFor(() => server.started.length === 1);
  controller.abort(new Error('stop requested'));
  await expect(running).rejects.toBeInstanceOf(ToolCallCancelledError);
  await waitFor(() => server.aborted.length === 1);
  expect(server.aborted[0]).toContain('stop requested');
});
