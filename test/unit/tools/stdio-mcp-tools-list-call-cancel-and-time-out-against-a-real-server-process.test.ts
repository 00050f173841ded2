/**
 * MCP tools over stdio against a real server process (the fixture server, built with the SDK's server
 * classes): a tool list in pages, names with dots, no retries for a tool that says it is not idempotent, result texts,
 * isError and a refused output as error text, cancellation reaching the server's handler, a timeout
 * told apart from a cancel, heartbeats, stderr drained into the log, a child killed between and during
 * calls, a server that fails to start, and a server that will not exit being killed on close.
 */
import { formatIssue } from '../../../src/core/config/issues';
import { truncationMarker, utf8ByteLength } from '../../../src/core/text/utf8';
import { CALL_TEXTS, ToolCallCancelledError, ToolCallRetryableError } from '../../../src/tools/call';
import { loadToolsFile } from '../../../src/tools/file-load';
import { MCP_CONNECTION_TEXTS } from '../../../src/tools/mcp-connection';
import { openToolRegistry, type RegisteredMcpTool, type ToolRegistry } from '../../../src/tools/registry';
import { MAX_RESULT_BYTES } from '../../../src/tools/result-text';
import { alive, call, captureLogger, FIXTURE_SERVER_ARGS, openRegistry, removeDirs, waitFor, writeToolsFile } from '../../fixtures/tools/helpers';

const toolsFile = (mode = 'normal', extra = '') =>
  writeToolsFile(`mcp_servers:\n  fx:\n    command: node\n    args: ${JSON.stringify([...FIXTURE_SERVER_ARGS, mode])}\n${extra}`);

async function pidOf(registry: ToolRegistry): Promise<number> {
  const r = await call(registry, 'fx__pid', {});
  if (r.kind !== 'ok') throw new Error(r.kind);
  return Number(r.text);
}

let registry: ToolRegistry;
const log = captureLogger();
beforeAll(async () => {
  registry = await openRegistry(toolsFile(), log.logger);
});
afterAll(async () => {
  await registry.close();
  removeDirs();
});

it('lists every page of tools, names them server__tool (dots replaced), sends their schemas without strict', () => {
  expect(registry.definitions().map((d) => d.name)).toEqual(
    ['slow', 'append_line', 'picture', 'structured_only', 'wrong_output', 'huge', 'refuse', 'chatty', 'pid', 'client_capabilities', 'stray_stdout'].map(
      (t) => `fx__${t}`,
    ),
  );
  const append = registry.get('fx__append_line')!.definition;
  expect(append).toMatchObject({ yamlName: 'fx.append.line', description: 'Not idempotent: appends a line.', timeoutMs: 60000 });
  expect(append).not.toHaveProperty('strict');
  expect(append.parameters).toEqual({ type: 'object', properties: { line: { type: 'string' } }, required: ['line'] });
});

it('gives a tool whose annotations say idempotentHint: false no retries, unless the file sets retries', async () => {
  expect(registry.get('fx__append_line')!.definition.retries).toBe(0);
  expect(registry.get('fx__slow')!.definition.retries).toBe(2);
  const explicit = await openRegistry(toolsFile('normal', '    retries: 3\n'), captureLogger().logger);
  try {
    expect(explicit.get('fx__append_line')!.definition.retries).toBe(3);
  } finally {
    await explicit.close();
  }
});

describe('results', () => {
  it('joins text and describes other blocks in one line each', async () => {
    expect(await call(registry, 'fx__picture', {})).toEqual({
      kind: 'ok',
      text: 'here it is\n[image image/png 48 KiB]\n[resource link file:///tmp/a.txt (a.txt)]',
    });
  });

  it('uses the JSON of structuredContent when there is no content', async () => {
    expect(await call(registry, 'fx__structured_only', {})).toEqual({ kind: 'ok', text: '{"total":42}' });
  });

  it('returns isError results and a reply the client refused (its tool was listed on a middle page) as error text', async () => {
    expect(await call(registry, 'fx__refuse', {})).toEqual({ kind: 'error', text: 'no such record' });
    const refused = await call(registry, 'fx__wrong_output', {});
    expect(refused).toEqual({
      kind: 'error',
      text: CALL_TEXTS.failed('fx__wrong_output', "MCP error -32602: Structured content does not match the tool's output schema: data/total must be number"),
    });
  });

  it('checks arguments against the server schema before sending, one line per error', async () => {
    expect(await call(registry, 'fx__slow', { ms: 'soon' })).toEqual({ kind: 'error', text: CALL_TEXTS.badArguments('fx__slow', ['/ms: must be number']) });
  });

  it('cuts a 200 KiB result to 64 KiB with the marker', async () => {
    const r = await call(registry, 'fx__huge', {});
    expect(r.kind).toBe('ok');
    if (r.kind !== 'ok') return;
    expect(utf8ByteLength(r.text)).toBeLessThanOrEqual(MAX_RESULT_BYTES);
    expect(r.text.endsWith(truncationMarker(r.truncatedBytes!))).toBe(true);
    expect(r.truncatedBytes).toBeGreaterThan(200 * 1024 - MAX_RESULT_BYTES);
  });

  it('drains a server that writes 1 MiB to stderr, its lines in the log prefixed with its name (at most 20 a second)', async () => {
    // a server of its own: the flood would keep the shared server's next lines out of the log for a second
    const own = captureLogger();
    const chatty = await openRegistry(toolsFile(), own.logger);
    try {
      expect(await call(chatty, 'fx__chatty', {})).toEqual({ kind: 'ok', text: 'done talking' });
      await waitFor(() => own.lines.some((l) => l.startsWith(MCP_CONNECTION_TEXTS.stderrLine('fx', 'eee'))));
    } finally {
      await chatty.close();
    }
  });
});

describe('the client', () => {
  it('advertises no capabilities (no roots, which would let a filesystem server swap its folders for ours)', async () => {
    expect(await call(registry, 'fx__client_capabilities', {})).toEqual({ kind: 'ok', text: '{}' });
  });

  it('logs a stray stdout line with the server name and keeps working', async () => {
    const from = log.lines.length;
    expect(await call(registry, 'fx__stray_stdout', {})).toEqual({ kind: 'ok', text: 'still fine' });
    expect(log.lines.slice(from).filter((l) => l.startsWith(MCP_CONNECTION_TEXTS.prefix('fx')) && l.includes('not valid JSON'))).toHaveLength(1);
  });
});

describe('cancellation, timeouts and heartbeats', () => {
  it('reaches the server handler (extra.signal) when the call is cancelled, and sends the idempotency key', async () => {
    const controller = new AbortController();
    const running = call(registry, 'fx__slow', { ms: 60000 }, { signal: controller.signal });
    await waitFor(() => log.lines.some((l) => l.includes('fixture: slow started')));
    expect(log.lines.find((l) => l.includes('fixture: slow started'))).toContain('"troupe/idempotencyKey":"wf-1/run-1/7"');
    controller.abort(new Error('run cancelled'));
    await expect(running).rejects.toBeInstanceOf(ToolCallCancelledError);
    await waitFor(() => log.lines.includes(MCP_CONNECTION_TEXTS.stderrLine('fx', 'fixture: slow aborted (Error: run cancelled)')));
  });

  it('ends a call at the deadline minus a second as a retryable timeout, not a cancel', async () => {
    const err = await call(registry, 'fx__slow', { ms: 60000 }, { deadlineMs: Date.now() + 1400 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ToolCallRetryableError);
    expect(err).toMatchObject({ reason: 'timeout' });
  });

  it('heartbeats every second while the server works', async () => {
    const heartbeats: unknown[] = [];
    expect(await call(registry, 'fx__slow', { ms: 2200 }, { heartbeats })).toEqual({ kind: 'ok', text: 'slept 2200' });
    expect(heartbeats.length).toBeGreaterThanOrEqual(3);
  });
});

describe('a dying server', () => {
  it('is restarted on the next call after its process was killed between calls', async () => {
    const first = await pidOf(registry);
    process.kill(first, 'SIGKILL');
    await waitFor(() => !alive(first));
    const second = await pidOf(registry);
    expect(second).not.toBe(first);
    expect(alive(second)).toBe(true);
  });

  it('gets a call that was running when it died sent once more on a fresh connection', async () => {
    const pid = await pidOf(registry);
    const starts = () => log.lines.filter((l) => l.includes('fixture: slow started')).length;
    const before = starts();
    const running = call(registry, 'fx__slow', { ms: 700 });
    await waitFor(() => starts() === before + 1);
    process.kill(pid, 'SIGKILL');
    expect(await running).toEqual({ kind: 'ok', text: 'slept 700' });
    expect(starts()).toBe(before + 2);
    expect(log.lines.some((l) => l.startsWith(MCP_CONNECTION_TEXTS.prefix('fx')) && l.includes('connection lost (MCP error -32000: Connection closed)'))).toBe(true);
  });

  it('does not send again a call of a tool with no retries that may have run: a retryable failure instead', async () => {
    const lines = captureLogger();
    const noRetries = await openRegistry(toolsFile('normal', '    retries: 0\n'), lines.logger);
    try {
      const pid = await pidOf(noRetries);
      const running = call(noRetries, 'fx__slow', { ms: 60000 });
      await waitFor(() => lines.lines.some((l) => l.includes('fixture: slow started')));
      process.kill(pid, 'SIGKILL');
      const err = await running.catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ToolCallRetryableError);
      expect(err).toMatchObject({ reason: 'transport', message: CALL_TEXTS.transport('fx__slow', 'MCP error -32000: Connection closed') });
      expect(await call(noRetries, 'fx__slow', { ms: 1 })).toEqual({ kind: 'ok', text: 'slept 1' });
    } finally {
      await noRetries.close();
    }
  });
});

it('reports a server that exits while starting at its key, with the end of its stderr', async () => {
  const file = toolsFile('crash-on-start');
  const r = await openToolRegistry(loadToolsFile(file).tools!, { logger: captureLogger().logger });
  expect(r.registry).toBeUndefined();
  expect(r.errors.map(formatIssue)).toEqual([
    `${file}:2:3 mcp_servers.fx: ${MCP_CONNECTION_TEXTS.cannotStart('fx', 'MCP error -32000: Connection closed', ['fixture: cannot open the database at /nowhere'])}`,
  ]);
});

it('kills a server that ignores the end of its input and SIGTERM when the registry closes', async () => {
  const stubborn = await openRegistry(toolsFile('stubborn'), captureLogger().logger);
  const pid = await pidOf(stubborn);
  const started = Date.now();
  await stubborn.close();
  expect(Date.now() - started).toBeLessThan(6000);
  await waitFor(() => !alive(pid), 2000);
  await expect(call(stubborn, 'fx__pid', {})).rejects.toBeInstanceOf(ToolCallRetryableError);
}, 15000);

it('maps a model-facing name back to its server and the tool name the server knows', () => {
  const tool = registry.get('fx__append_line') as RegisteredMcpTool;
  expect(tool.kind).toBe('mcp');
  expect(tool.tool).toBe('append.line');
  expect(tool.server.name).toBe('fx');
});
