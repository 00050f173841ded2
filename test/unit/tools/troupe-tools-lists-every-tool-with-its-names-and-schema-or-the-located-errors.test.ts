/**
 * `troupe tools --tools tools.yaml [--json]`: every tool with its model-facing name, YAML name, source,
 * description and parameters, found by starting the real filesystem server and loading a TypeScript
 * tools module; errors located in the tools file with exit 1. The text listing runs in a separate Node
 * process the way the CLI runs (tsx's hook loads both troupe and the module).
 */
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { run, CLI_TOOLS_TEXTS } from '../../../src/cli/tools';
import { EXPAND_MESSAGES } from '../../../src/tools/expand';
import { EXAMPLE_TOOLS, FILESYSTEM_SERVER, removeDirs, tempDir, writeToolsFile } from '../../fixtures/tools/helpers';

const ROOT = path.resolve(__dirname, '../../..');

function toolsFileWithEverything(): string {
  const dir = tempDir();
  fs.mkdirSync(path.join(dir, 'ws'));
  return writeToolsFile(
    `mcp_servers:\n  files:\n    command: node\n    args: [${JSON.stringify(FILESYSTEM_SERVER)}, ./ws]\nmodules: [${JSON.stringify(EXAMPLE_TOOLS)}]\n`,
    dir,
  );
}

async function captured(fn: () => Promise<number>): Promise<{ code: number; stdout: string; stderr: string }> {
  const out: string[] = [];
  const errs: string[] = [];
  const w = jest.spyOn(process.stdout, 'write').mockImplementation((s) => (out.push(String(s)), true));
  const e = jest.spyOn(process.stderr, 'write').mockImplementation((s) => (errs.push(String(s)), true));
  try {
    const code = await fn();
    return { code, stdout: out.join(''), stderr: errs.join('') };
  } finally {
    w.mockRestore();
    e.mockRestore();
  }
}

afterAll(removeDirs);

it('lists MCP and module tools as text in a separate CLI-like process', async () => {
  const file = toolsFileWithEverything();
  const script = `require('tsx/cjs'); require('./src/cli/tools.ts').run({ positionals: [], flags: { tools: ${JSON.stringify(file)} } }).then((c) => process.exit(c));`;
  const { stdout } = await promisify(execFile)(process.execPath, ['-e', script], { cwd: ROOT });
  const lines = stdout.trimEnd().split('\n');
  expect(lines).toEqual(
    expect.arrayContaining([
      'files__write_file  (files.write_file, server files)',
      '    parameters: path (string, required), content (string, required)',
      '    timeout 60000 ms, 2 retries',
      'echo  (echo, module ' + EXAMPLE_TOOLS + ')',
      '    Repeat a text.',
      '    parameters: text (string, required), times (integer)',
      'sum  (sum, module ' + EXAMPLE_TOOLS + ')',
      '    timeout 60000 ms, 2 retries, strict',
    ]),
  );
  const count = lines.filter((l) => !l.startsWith(' ')).length - 1;
  expect(lines[lines.length - 1]).toBe(CLI_TOOLS_TEXTS.summary(file, count));
  expect(count).toBeGreaterThan(14);
}, 30000);

it('prints JSON with every tool and its full schema', async () => {
  const file = toolsFileWithEverything();
  const r = await captured(() => run({ positionals: [], flags: { tools: file, json: true } }));
  expect(r.code).toBe(0);
  const listing = JSON.parse(r.stdout) as { valid: boolean; tools: Array<Record<string, unknown>> };
  expect(listing.valid).toBe(true);
  expect(listing.tools.find((t) => t.name === 'files__edit_file')).toMatchObject({
    yamlName: 'files.edit_file',
    source: 'server files',
    retries: 0,
    parameters: { type: 'object', required: ['path', 'edits'] },
  });
  expect(listing.tools.find((t) => t.name === 'whoami')).toMatchObject({ source: `module ${EXAMPLE_TOOLS}`, parameters: { type: 'object' } });
});

it('prints located errors and exits 1', async () => {
  const file = writeToolsFile('mcp_servers:\n  web:\n    url: http://h/mcp\n    headers: { X: "${TROUPE_UNSET_FOR_TEST}" }\n');
  const r = await captured(() => run({ positionals: [], flags: { tools: file } }));
  expect(r.code).toBe(1);
  expect(r.stdout).toBe(
    `${file}:4:19 mcp_servers.web.headers.X: ${EXPAND_MESSAGES.unset(['TROUPE_UNSET_FOR_TEST'])}\n${CLI_TOOLS_TEXTS.invalid(file, 1)}\n`,
  );
  const json = await captured(() => run({ positionals: [], flags: { tools: file, json: true } }));
  expect(json.code).toBe(1);
  expect(JSON.parse(json.stdout)).toMatchObject({ valid: false, errors: [{ line: 4, col: 19, path: 'mcp_servers.web.headers.X' }] });
});

it('asks for --tools when it is missing', async () => {
  const r = await captured(() => run({ positionals: [], flags: {} }));
  expect(r).toEqual({ code: 1, stdout: '', stderr: `${CLI_TOOLS_TEXTS.needsFile}\n` });
});
