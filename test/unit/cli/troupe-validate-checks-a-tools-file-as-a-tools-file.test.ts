/**
 * `troupe validate <tools.yaml>`: a file whose top-level keys are only `mcp_servers` and `modules` is
 * checked as a tools file (located errors from the tools-file loader, `--json` too), says so and names
 * `troupe tools --tools <file>`, and starts none of its servers. A role file stays a role file.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { main } from '../../../src/cli/main';

const root = path.join(__dirname, '..', '..', '..');
const example = (f: string) => path.relative(process.cwd(), path.join(root, 'examples', f));
let tmp: string;

function file(name: string, text: string): string {
  const p = path.join(tmp, name);
  fs.writeFileSync(p, text);
  return p;
}

async function cli(...argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const o = jest.spyOn(process.stdout, 'write').mockImplementation((s: string | Uint8Array) => ((stdout += String(s)), true));
  const e = jest.spyOn(process.stderr, 'write').mockImplementation((s: string | Uint8Array) => ((stderr += String(s)), true));
  try {
    return { code: await main(argv), stdout, stderr };
  } finally {
    o.mockRestore();
    e.mockRestore();
  }
}

beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'troupe-validate-tools-'));
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

test('examples/tools.yaml is a valid tools file, with its servers and modules counted and the command that lists its tools', async () => {
  const f = example('tools.yaml');
  expect(await cli('validate', f)).toEqual({
    code: 0,
    stdout: `✓ ${f} is valid: a tools file (1 MCP server, 1 module); list its tools with: troupe tools --tools ${f}\n`,
    stderr: '',
  });
  expect(JSON.parse((await cli('validate', f, '--json')).stdout)).toEqual({
    file: f,
    kind: 'tools',
    valid: true,
    errors: [],
    warnings: [],
    found: { errors: 0, warnings: 0 },
    summary: { mcpServers: 1, modules: 1 },
  });
});

test('a valid tools file is checked without starting its servers', async () => {
  const marker = path.join(tmp, 'started');
  const f = file('marker.yaml', `mcp_servers:\n  m:\n    command: node\n    args: ['-e', 'require("fs").writeFileSync(${JSON.stringify(marker)}, "x")']\n`);
  expect(await cli('validate', f)).toMatchObject({ code: 0, stdout: expect.stringContaining('is valid: a tools file (1 MCP server, 0 modules)') });
  await new Promise((r) => setTimeout(r, 500));
  expect(fs.existsSync(marker)).toBe(false);
});

test('a tools file with errors gets the tools-file errors, located, and exit 1', async () => {
  const f = file(
    'tools.yaml',
    [
      'mcp_servers:',
      '  files:',
      '    command: node',
      '    args: [server.js]',
      '    timeout_ms: soon',
      '  web:',
      '    url: ftp://example.com',
      'modules: [./tools/a.ts]',
      '',
    ].join('\n'),
  );
  const r = await cli('validate', f);
  expect(r).toEqual({
    code: 1,
    stdout: [
      `${f}:5:17 mcp_servers.files.timeout_ms: expected number, got string`,
      `${f}:7:10 mcp_servers.web.url: "ftp://example.com" is not an http:// or https:// URL`,
      `✗ ${f}: 2 errors (checked as a tools file; once valid, list its tools with: troupe tools --tools ${f})`,
      '',
    ].join('\n'),
    stderr: '',
  });
  expect(r.stdout).not.toMatch(/required|unknown key/);
  const json = JSON.parse((await cli('validate', f, '--json')).stdout);
  expect(json).toMatchObject({ file: f, kind: 'tools', valid: false, warnings: [], found: { errors: 2, warnings: 0 } });
  expect(json.errors[1]).toEqual({ file: f, line: 7, col: 10, path: 'mcp_servers.web.url', message: '"ftp://example.com" is not an http:// or https:// URL' });
});

test('a role file, even one with a modules key, is still checked as a role file', async () => {
  const f = file('role.yaml', 'name: r\nagents:\n  a: { instructions: A }\ncollaboration: { topology: pipeline, agents: [a] }\nmodules: [x.ts]\n');
  const r = await cli('validate', f, '--json');
  expect(r.code).toBe(1);
  expect(JSON.parse(r.stdout)).toMatchObject({ kind: 'role', valid: false, errors: [{ path: 'modules', message: 'unknown key "modules"' }] });
});

test('a file nested too deep to read is refused with a located error, not a crash, whatever its keys', async () => {
  const deep = `mcp_servers: ${'{a: '.repeat(5000)}1${'}'.repeat(5000)}\n`;
  const f = file('deep.yaml', deep);
  const r = await cli('validate', f);
  expect(r.code).toBe(1);
  expect(r.stdout).toMatch(/^.+deep\.yaml:1:\d+: nested more than \d+ levels deep/);
  expect(r.stderr).toBe('');
});
