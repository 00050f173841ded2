/**
 * A Streamable HTTP MCP server (built with the SDK's server classes) serves a tool over HTTP; when it
 * is restarted in the middle of a run, the worker's next call finds its old session gone, connects
 * afresh, and succeeds: the run completes and the model saw both answers.
 */
import { REDACTED } from '../../src/secrets/redactor';
import { stubGate } from '../helpers/stub-llm';
import { startToolsHarness, type ToolsHarness } from '../helpers/tools';
import { TestHttpMcpServer } from '../fixtures/tools/http-server';

describe('an MCP server over Streamable HTTP', () => {
  const server = new TestHttpMcpServer();
  let t: ToolsHarness;
  beforeAll(async () => {
    await server.start();
    process.env.TEST_MCP_PORT = String(server.port);
    process.env.TEST_MCP_TOKEN = 'secret-token';
    t = await startToolsHarness('mcp_servers:\n  web:\n    url: http://127.0.0.1:${TEST_MCP_PORT}/mcp\n    headers: { Authorization: "Bearer ${TEST_MCP_TOKEN}" }\n');
  });
  afterAll(async () => {
    await t?.close();
    await server.stop();
  });

  test('killed and restarted mid-run: the next call is made on a fresh connection', async () => {
    const gate = stubGate();
    const whoami = { name: 'web__whoami', arguments: {} };
    t.h.stub.script('browser', [{ toolCalls: [whoami] }, gate.hold({ toolCalls: [whoami] }), { text: 'asked twice' }]);
    const handle = await t.h.start(`
name: http-tools
agents:
  browser: { instructions: "Browse.", tools: [web.*] }
collaboration:
  topology: pipeline
  agents: [browser]
`);
    await t.h.stub.waitForRequests(2, 'browser');
    await server.stop();
    await server.start();
    gate.open();
    const r = await handle.result();
    expect(r).toMatchObject({ status: 'completed', finalText: 'asked twice' });
    const requests = t.h.stub.requestsFor('browser');
    // whoami repeats the Authorization header it received: the worker's redaction keeps the token out
    expect(requests[1].messages.at(-1)).toMatchObject({ role: 'tool', content: `${REDACTED} instance 1` });
    expect(requests[2].messages.at(-1)).toMatchObject({ role: 'tool', content: `${REDACTED} instance 2` });
    expect(r.warnings.filter((w) => w.includes('whoami'))).toEqual([]);
  });
});
