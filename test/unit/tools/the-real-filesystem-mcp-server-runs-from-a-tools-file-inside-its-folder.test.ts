/**
 * The real `@modelcontextprotocol/server-filesystem` over stdio, started from a tools file in a temp
 * folder the way a worker starts it: its tools named `files__*`, a file written then read back, the
 * server's relative folder argument resolved against the tools file's folder (the default cwd), a
 * path outside that folder answered as error text, and the non-idempotent tools given no retries.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { ToolRegistry } from '../../../src/tools/registry';
import { call, captureLogger, FILESYSTEM_SERVER, openRegistry, removeDirs, tempDir, writeToolsFile } from '../../fixtures/tools/helpers';

let registry: ToolRegistry;
let dir: string;
beforeAll(async () => {
  dir = tempDir();
  fs.mkdirSync(path.join(dir, 'workspace'));
  // `./workspace` is given to the server as written: it resolves it against its working directory,
  // which is the tools file's folder because the entry names no cwd
  const file = writeToolsFile(`mcp_servers:\n  files:\n    command: node\n    args: [${JSON.stringify(FILESYSTEM_SERVER)}, ./workspace]\n`, dir);
  expect(process.cwd()).not.toBe(dir);
  registry = await openRegistry(file, captureLogger().logger);
});
afterAll(async () => {
  await registry.close();
  removeDirs();
});

it('offers the server tools as files__<tool> with files.<tool> as their YAML names', () => {
  const names = registry.definitions().map((d) => d.name);
  expect(names).toEqual(expect.arrayContaining(['files__read_text_file', 'files__write_file', 'files__edit_file', 'files__list_directory']));
  expect(registry.get('files__write_file')!.definition).toMatchObject({ yamlName: 'files.write_file', timeoutMs: 60000, retries: 2 });
  expect(registry.get('files__read_text_file')!.definition.parameters).not.toHaveProperty('$schema');
});

it('gives edit_file and move_file (idempotentHint: false) no retries', () => {
  expect(registry.get('files__edit_file')!.definition.retries).toBe(0);
  expect(registry.get('files__move_file')!.definition.retries).toBe(0);
});

it('writes a file and reads it back, inside the folder named relative to the tools file', async () => {
  expect(await call(registry, 'files__write_file', { path: 'notes.txt', content: 'tools are durable\n' })).toMatchObject({ kind: 'ok' });
  expect(fs.readFileSync(path.join(dir, 'workspace', 'notes.txt'), 'utf8')).toBe('tools are durable\n');
  expect(await call(registry, 'files__read_text_file', { path: 'notes.txt' })).toEqual({ kind: 'ok', text: 'tools are durable\n' });
});

it('answers a path outside the allowed folder with the server error text', async () => {
  const r = await call(registry, 'files__read_text_file', { path: path.join(dir, 'tools.yaml') });
  expect(r.kind).toBe('error');
  expect(r.kind === 'error' && r.text).toMatch(/^Access denied - path outside allowed directories/);
});
