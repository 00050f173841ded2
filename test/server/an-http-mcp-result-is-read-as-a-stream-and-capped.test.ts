/**
 * A Streamable HTTP MCP server answers a tool call with a 480 MB text, streamed in chunks (as one JSON
 * body, then as an SSE event). The worker reads the reply under its 1 MiB cap and stops there: the run
 * completes, the model gets the cap's error text as the tool's answer, the server was read no further,
 * and the worker's memory (it runs in this process) grows by less than 64 MB during the call, where
 * buffering the reply whole took gigabytes.
 */
import { CALL_TEXTS } from '../../src/tools/call';
import { MCP_READ_CAP_BYTES, READ_CAP_TEXTS } from '../../src/tools/mcp-read-cap';
import { FloodHttpMcpServer } from '../fixtures/tools/flood-http-server';
import { startToolsHarness, type ToolsHarness } from '../helpers/tools';

const RESULT_BYTES = 480_000_000;
const MAX_GROWTH_BYTES = 64 * 1024 * 1024;

/**
 * The largest growth of this process's RSS from the moment the first call reaches the server until
 * `stop` (sampled every 5 ms; a retried call counts from the first attempt).
 */
function rssGrowthDuringCalls(server: FloodHttpMcpServer) {
  let baseline: number | undefined;
  let peak = 0;
  let timer: NodeJS.Timeout | undefined;
  server.onCall = () => {
    if (baseline !== undefined) return;
    baseline = process.memoryUsage.rss();
    peak = baseline;
    timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 5);
  };
  return {
    stop(): number {
      clearInterval(timer);
      peak = Math.max(peak, process.memoryUsage.rss());
      if (baseline === undefined) throw new Error('no call reached the server');
      return peak - baseline;
    },
  };
}

describe('an HTTP MCP tool that answers 480 MB', () => {
  const server = new FloodHttpMcpServer(RESULT_BYTES);
  let t: ToolsHarness;
  beforeAll(async () => {
    await server.start();
    t = await startToolsHarness(`mcp_servers:\n  big:\n    url: ${server.url}\n`);
  });
  afterAll(async () => {
    await t?.close();
    await server.stop();
  });

  test.each(['json', 'sse'])('as %s: read up to 1 MiB, answered to the model as an error, the worker stays small', async (tool) => {
    const name = `big__${tool}`;
    const agent = `reader_${tool}`;
    t.h.stub.script(agent, [{ toolCalls: [{ name, arguments: {} }] }, { text: 'could not read it' }]);
    const memory = rssGrowthDuringCalls(server);
    const r = await t.h.run(`
name: big-reply-${tool}
agents:
  ${agent}: { instructions: "Read the big text.", tools: [big.${tool}] }
collaboration:
  topology: pipeline
  agents: [${agent}]
`);
    const growth = memory.stop();
    expect(r).toMatchObject({ status: 'completed', finalText: 'could not read it' });
    expect(growth).toBeLessThan(MAX_GROWTH_BYTES);
    const requests = t.h.stub.requestsFor(agent);
    expect(requests).toHaveLength(2);
    expect(requests[1].messages.at(-1)).toMatchObject({ role: 'tool', content: CALL_TEXTS.failed(name, READ_CAP_TEXTS.tooLarge(MCP_READ_CAP_BYTES)) });
    const [call] = server.calls.slice(-1);
    await call.ended;
    expect(call).toMatchObject({ tool, cutShort: true });
    expect(call.written).toBeLessThan(MAX_GROWTH_BYTES);
    expect(server.calls.filter((c) => c.tool === tool)).toHaveLength(1);
  });
});
