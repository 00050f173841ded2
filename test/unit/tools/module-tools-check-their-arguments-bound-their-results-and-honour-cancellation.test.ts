/**
 * Module tools, loaded from a tools file and called the way the call activity calls them: zod and JSON
 * Schema parameters (one line per argument error), results as text cut at 64 KiB, a tool that throws,
 * ToolFatalError, cancellation reaching a running tool, a deadline, heartbeats, the call context, and
 * broken modules reported at their line in the tools file.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { formatIssue } from '../../../src/core/config/issues';
import { truncationMarker, utf8ByteLength } from '../../../src/core/text/utf8';
import { ARGUMENT_MESSAGES } from '../../../src/tools/arguments';
import { CALL_TEXTS, ToolCallCancelledError, ToolCallRetryableError } from '../../../src/tools/call';
import { loadToolsFile } from '../../../src/tools/file-load';
import { MODULE_MESSAGES } from '../../../src/tools/modules';
import { NAMING_MESSAGES } from '../../../src/tools/naming';
import { openToolRegistry, type ToolRegistry } from '../../../src/tools/registry';
import { MAX_RESULT_BYTES } from '../../../src/tools/result-text';
import { call, captureLogger, EXAMPLE_TOOLS, openRegistry, removeDirs, tempDir, waitFor, writeToolsFile } from '../../fixtures/tools/helpers';

const { probe } = require(EXAMPLE_TOOLS) as typeof import('../../fixtures/tools/example-tools');

let registry: ToolRegistry;
beforeAll(async () => {
  registry = await openRegistry(writeToolsFile(`modules: [${JSON.stringify(EXAMPLE_TOOLS)}]\n`), captureLogger().logger);
});
afterAll(async () => {
  await registry.close();
  removeDirs();
});

describe('definitions', () => {
  it('keeps module names, converts zod parameters to draft-07 input JSON Schema and passes JSON Schemas through', () => {
    const echo = registry.get('echo')!.definition;
    expect(echo).toMatchObject({ name: 'echo', yamlName: 'echo', description: 'Repeat a text.', timeoutMs: 60000, retries: 2 });
    expect(echo.parameters).not.toHaveProperty('$schema');
    expect(echo.parameters).toMatchObject({
      type: 'object',
      properties: { text: { type: 'string', description: 'What to repeat' }, times: { type: 'integer', default: 1 } },
      required: ['text'],
    });
    expect(registry.get('sum')!.definition).toMatchObject({ strict: true, parameters: { required: ['a', 'b'], additionalProperties: false } });
    expect(registry.get('slow')!.definition).toMatchObject({ timeoutMs: 120000, retries: 0 });
    expect(registry.get('echo')!.definition).not.toHaveProperty('strict');
  });
});

describe('arguments', () => {
  it('gives a zod tool its parsed arguments (defaults applied)', async () => {
    expect(await call(registry, 'echo', { text: 'hi' })).toEqual({ kind: 'ok', text: 'hi' });
    expect(await call(registry, 'echo', { text: 'hi', times: 3 })).toEqual({ kind: 'ok', text: 'hi hi hi' });
  });

  it('answers invalid zod arguments with one line per error, each with its path', async () => {
    const r = await call(registry, 'echo', { times: 9, extra: true });
    expect(r).toEqual({ kind: 'error', text: CALL_TEXTS.badArguments('echo', ['/text: required', '/times: must be <= 5']) });
    expect(r.kind === 'error' && r.text).toBe("Error: invalid arguments for tool 'echo':\n/text: required\n/times: must be <= 5");
  });

  it('checks JSON Schema parameters with ajv, one line per error', async () => {
    expect(await call(registry, 'sum', { a: 2, b: 3 })).toEqual({ kind: 'ok', text: '{"sum":5}' });
    const r = await call(registry, 'sum', { a: 'two', c: 1 });
    expect(r).toEqual({
      kind: 'error',
      text: CALL_TEXTS.badArguments('sum', ["/: must have required property 'b'", "/: must NOT have additional properties ('c')", '/a: must be number']),
    });
  });

  it('answers arguments that are not a JSON object, and takes an empty text as no arguments', async () => {
    expect(await call(registry, 'echo', '{"text": ')).toMatchObject({ kind: 'error', text: expect.stringContaining('are not valid JSON') });
    expect(await call(registry, 'echo', '[1]')).toEqual({ kind: 'error', text: CALL_TEXTS.badArguments('echo', ['the arguments must be a JSON object, got array']) });
    expect(await call(registry, 'whoami', '')).toMatchObject({ kind: 'ok' });
  });

  it('answers an unknown tool by listing the tools the worker has', async () => {
    const r = await call(registry, 'nope', {});
    expect(r).toEqual({ kind: 'error', text: CALL_TEXTS.unknownTool('nope', registry.definitions().map((d) => d.name)) });
  });
});

describe('results and failures', () => {
  it('cuts a 200 KiB result to 64 KiB with the truncation marker and reports how much was cut', async () => {
    const r = await call(registry, 'big', { kib: 200 });
    if (r.kind !== 'ok') throw new Error(`unexpected ${r.kind}`);
    expect(utf8ByteLength(r.text)).toBeLessThanOrEqual(MAX_RESULT_BYTES);
    expect(r.truncatedBytes).toBe(200 * 1024 - (r.text.length - truncationMarker(r.truncatedBytes!).length - 1));
    expect(r.text.endsWith(`\n${truncationMarker(r.truncatedBytes!)}`)).toBe(true);
    expect(await call(registry, 'big', { kib: 1 })).toEqual({ kind: 'ok', text: 'x'.repeat(1024) });
  });

  it('returns a thrown error as error text, and ToolFatalError as a fatal outcome', async () => {
    expect(await call(registry, 'fail', {})).toEqual({ kind: 'error', text: CALL_TEXTS.failed('fail', 'the disk is full') });
    expect(await call(registry, 'stop_everything', {})).toEqual({ kind: 'fatal', message: CALL_TEXTS.fatal('stop_everything', 'credentials revoked') });
  });

  it('gives the tool its context, with the idempotency key of the call', async () => {
    const r = await call(registry, 'whoami', {}, { identity: { workflowId: 'w', agent: 'a', toolCallId: 'c', attempt: 2, idempotencyKey: 'w/r/3' } });
    expect(r.kind === 'ok' && JSON.parse(r.text)).toEqual({ workflowId: 'w', agent: 'a', toolCallId: 'c', attempt: 2, idempotencyKey: 'w/r/3' });
  });
});

describe('cancellation, deadlines and heartbeats', () => {
  it('aborts a running tool through ctx.signal and throws ToolCallCancelledError', async () => {
    const controller = new AbortController();
    const heartbeats: unknown[] = [];
    const before = probe.aborted;
    const running = call(registry, 'slow', {}, { signal: controller.signal, heartbeats });
    await waitFor(() => probe.started > probe.aborted);
    const reason = new Error('run cancelled');
    controller.abort(reason);
    const err = await running.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ToolCallCancelledError);
    expect((err as Error).cause).toBe(reason);
    expect(probe.aborted).toBe(before + 1);
    expect(probe.abortReason).toBe(reason);
    expect(heartbeats).toContainEqual({ checkpoint: 1 });
  });

  it('heartbeats every second while a tool runs, repeating its last details', async () => {
    const controller = new AbortController();
    const heartbeats: unknown[] = [];
    const running = call(registry, 'slow', {}, { signal: controller.signal, heartbeats }).catch(() => undefined);
    await new Promise((r) => setTimeout(r, 2300));
    controller.abort();
    await running;
    // one when the call starts, the tool's own, then one a second repeating its checkpoint
    expect(heartbeats.slice(0, 2)).toEqual([undefined, { checkpoint: 1 }]);
    expect(heartbeats.slice(2).length).toBeGreaterThanOrEqual(2);
    expect(new Set(heartbeats.slice(2).map((h) => JSON.stringify(h)))).toEqual(new Set(['{"checkpoint":1}']));
  });

  it('stops waiting for a tool that ignores its signal at the deadline, as a retryable timeout', async () => {
    const started = Date.now();
    const err = await call(registry, 'deaf', {}, { deadlineMs: Date.now() + 1300 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ToolCallRetryableError);
    expect(err).toMatchObject({ reason: 'timeout' });
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('does not start a tool when the call is already cancelled', async () => {
    const before = probe.started;
    await expect(call(registry, 'slow', {}, { signal: AbortSignal.abort() })).rejects.toBeInstanceOf(ToolCallCancelledError);
    expect(probe.started).toBe(before);
  });
});

describe('broken modules', () => {
  it('reports each problem at the module line of the tools file, and starts nothing', async () => {
    const dir = tempDir();
    fs.writeFileSync(
      path.join(dir, 'bad.js'),
      `module.exports.tools = [
        { name: 'fetch.page', description: 'x', parameters: { type: 'object' }, execute() {} },
        { name: 'ok_one', description: 'x', parameters: { type: 'string' }, execute() {} },
        { name: 'goal', description: 'x', parameters: { type: 'object' }, execute: 1, timeoutMs: 5 },
        { name: 'twin', description: 'x', parameters: { type: 'object' }, execute() {} },
      ];`,
    );
    fs.writeFileSync(path.join(dir, 'twin.js'), `module.exports = [{ name: 'twin', description: 'y', parameters: { type: 'object' }, execute() {} }];`);
    fs.writeFileSync(path.join(dir, 'none.js'), 'module.exports = { helpers: [] };');
    const file = writeToolsFile('modules:\n  - ./bad.js\n  - ./twin.js\n  - ./none.js\n  - ./missing.js\n', dir);
    const r = await openToolRegistry(loadToolsFile(file).tools!, { logger: captureLogger().logger });
    expect(r.registry).toBeUndefined();
    const at = (line: number, given: string, message: string) => `${file}:${line}:5 modules[${line - 2}]: ${given}: ${message}`;
    expect(r.errors.map(formatIssue)).toEqual([
      at(2, './bad.js', `tools[0].name: ${NAMING_MESSAGES.moduleName('fetch.page')}`),
      at(2, './bad.js', `tools[1].parameters: ${ARGUMENT_MESSAGES.notObjectSchema}`),
      at(2, './bad.js', `tools[2].execute: ${MODULE_MESSAGES.execute}`),
      at(2, './bad.js', 'tools[2].timeoutMs: unknown key "timeoutMs" (did you mean "timeout_ms"?)'),
      `${file}:3:5 modules[1]: ${NAMING_MESSAGES.collision('twin', 'twin (module ./bad.js)', 'twin (module ./twin.js)')}`,
      at(4, './none.js', MODULE_MESSAGES.noTools),
      expect.stringContaining(`${file}:5:5 modules[3]: ./missing.js: ${MODULE_MESSAGES.cannotLoad(`Cannot find module '${path.join(dir, 'missing.js')}'`)}`),
    ]);
  });
});
