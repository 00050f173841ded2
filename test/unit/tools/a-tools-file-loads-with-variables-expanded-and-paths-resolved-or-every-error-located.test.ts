/**
 * The tools file: every error at once, located `file:line:col path: message` with a did-you-mean;
 * `${VAR}` expansion from the worker's environment in env, args, url and headers; relative cwd and
 * modules resolved against the file's folder, an omitted cwd defaulting to it; args passed unchanged.
 */
import * as path from 'node:path';
import { formatIssue } from '../../../src/core/config/issues';
import { EXPAND_MESSAGES, expandVariables } from '../../../src/tools/expand';
import { loadToolsFile, parseToolsFile, TOOLS_FILE_MESSAGES, type HttpServer, type StdioServer } from '../../../src/tools/file-load';
import { removeDirs, tempDir, writeToolsFile } from '../../fixtures/tools/helpers';

afterAll(removeDirs);

const FILE = '/work/cfg/tools.yaml';
const parse = (yaml: string, env: Record<string, string> = {}) => parseToolsFile(yaml, FILE, env);
const lines = (yaml: string, env: Record<string, string> = {}) => parse(yaml, env).errors.map(formatIssue);

describe('a valid tools file', () => {
  const yaml = [
    'mcp_servers:',
    '  files:',
    '    command: npx',
    '    args: [--no-install, mcp-server-filesystem, ./workspace, 8080]',
    '    env: { LOG_LEVEL: warn, TOKEN: "${GH_TOKEN}", DEBUG: 1 }',
    '  web:',
    '    url: http://127.0.0.1:${PORT}/mcp',
    '    headers: { Authorization: "Bearer ${WEB_TOKEN}" }',
    '    timeout_ms: 120000',
    '    retries: 0',
    'modules: [./tools/index.ts, /abs/more.js]',
    '',
  ].join('\n');
  const r = parse(yaml, { GH_TOKEN: 'ghp_1', PORT: '8931', WEB_TOKEN: 's3cret' });

  it('has no errors', () => expect(r.errors).toEqual([]));

  it('expands variables in env, url and headers; YAML numbers become text; args stay as written', () => {
    const [files, web] = r.tools!.servers as [StdioServer, HttpServer];
    expect(files.env).toEqual({ LOG_LEVEL: 'warn', TOKEN: 'ghp_1', DEBUG: '1' });
    expect(files.args).toEqual(['--no-install', 'mcp-server-filesystem', './workspace', '8080']);
    expect(web.url).toBe('http://127.0.0.1:8931/mcp');
    expect(web.headers).toEqual({ Authorization: 'Bearer s3cret' });
  });

  it('defaults an omitted cwd to the file folder and resolves modules against it', () => {
    const files = r.tools!.servers[0] as StdioServer;
    expect(files.cwd).toBe('/work/cfg');
    expect(r.tools!.modules).toEqual([
      { given: './tools/index.ts', path: '/work/cfg/tools/index.ts' },
      { given: '/abs/more.js', path: '/abs/more.js' },
    ]);
  });

  it('applies call defaults, and remembers whether retries was written', () => {
    const [files, web] = r.tools!.servers;
    expect(files).toMatchObject({ timeoutMs: 60000, retries: 2, retriesSet: false });
    expect(web).toMatchObject({ timeoutMs: 120000, retries: 0, retriesSet: true });
  });
});

it('resolves a relative cwd against the file folder and expands ${VAR} in args', () => {
  const r = parse('mcp_servers:\n  s:\n    command: node\n    cwd: ../srv\n    args: ["--root=${ROOT}"]\n', { ROOT: '/data' });
  expect(r.tools!.servers[0]).toMatchObject({ cwd: '/work/srv', args: ['--root=/data'] });
});

it('reports every error at once, located, with did-you-mean for unknown keys', () => {
  const yaml = [
    'mcp_servers:', //            1
    '  files:', //                2
    '    comand: npx', //         3
    '    args: [a]', //           4
    '    timeout_ms: -5', //      5
    '  web:', //                  6
    '    url: http://x/mcp', //   7
    '    hedaers: {}', //         8
    'moduls: [./a.ts]', //        9
    '',
  ].join('\n');
  expect(lines(yaml)).toEqual([
    `${FILE}:2:3 mcp_servers.files.command: required`,
    `${FILE}:3:5 mcp_servers.files.comand: unknown key "comand" (did you mean "command"?)`,
    `${FILE}:5:17 mcp_servers.files.timeout_ms: must be > 0`,
    `${FILE}:8:5 mcp_servers.web.hedaers: unknown key "hedaers" (did you mean "headers"?)`,
    `${FILE}:9:1 moduls: unknown key "moduls" (did you mean "modules"?)`,
  ]);
  // a server lacking both command and url is read as the kind it resembles
  expect(lines('mcp_servers:\n  web:\n    ulr: http://h/mcp\n')).toEqual([
    `${FILE}:2:3 mcp_servers.web.url: required`,
    `${FILE}:3:5 mcp_servers.web.ulr: unknown key "ulr" (did you mean "url"?)`,
  ]);
  const typo = lines('mcp_servers:\n  files:\n    command: npx\n    argz: [a]\n    timeout_ms: -5\n');
  expect(typo).toEqual([
    `${FILE}:4:5 mcp_servers.files.argz: unknown key "argz" (did you mean "args"?)`,
    `${FILE}:5:17 mcp_servers.files.timeout_ms: must be > 0`,
  ]);
});

it('names an unset variable at the value that uses it, and every such value', () => {
  const yaml = 'mcp_servers:\n  web:\n    url: http://h/${HOST_PATH}\n    headers:\n      Authorization: Bearer ${WEB_TOKEN}\n';
  expect(lines(yaml)).toEqual([
    `${FILE}:3:10 mcp_servers.web.url: ${EXPAND_MESSAGES.unset(['HOST_PATH'])}`,
    `${FILE}:5:22 mcp_servers.web.headers.Authorization: ${EXPAND_MESSAGES.unset(['WEB_TOKEN'])}`,
  ]);
  expect(EXPAND_MESSAGES.unset(['WEB_TOKEN'])).toBe('environment variable WEB_TOKEN is not set on the worker');
});

it('rejects servers that are both kinds or neither, bad names and non-HTTP URLs', () => {
  const yaml = [
    'mcp_servers:',
    '  both: { command: x, url: "http://h" }',
    '  my.files: { command: x }',
    '  ftp: { url: "ftp://h/x" }',
    '  blank: {}',
    '',
  ].join('\n');
  expect(lines(yaml)).toEqual([
    `${FILE}:2:3 mcp_servers.both: ${TOOLS_FILE_MESSAGES.serverBothKinds}`,
    `${FILE}:3:3 mcp_servers["my.files"]: ${TOOLS_FILE_MESSAGES.serverName('my.files')}`,
    `${FILE}:4:15 mcp_servers.ftp.url: ${TOOLS_FILE_MESSAGES.badUrl('ftp://h/x')}`,
    `${FILE}:5:3 mcp_servers.blank: ${TOOLS_FILE_MESSAGES.serverKind}`,
  ]);
});

it('reports YAML syntax errors, an empty file and a wrong top level', () => {
  expect(lines('mcp_servers: [\n')[0]).toMatch(new RegExp(`^${FILE}:\\d+:\\d+: `));
  expect(lines('')).toEqual([`${FILE}:1:1: ${TOOLS_FILE_MESSAGES.emptyDocument}`]);
  expect(lines('modules: ./a.ts\n')).toEqual([`${FILE}:1:10 modules: expected array, got string`]);
});

describe('expandVariables', () => {
  it('keeps a literal ${ written as $${, and treats an empty variable as set', () => {
    expect(expandVariables('a $${HOME} ${E}b', { E: '' })).toEqual({ ok: true, value: 'a ${HOME} b', used: [] });
  });
  it('names all unset variables and refuses names that are not names', () => {
    expect(expandVariables('${A}${B}${A}', {})).toEqual({ ok: false, message: EXPAND_MESSAGES.unset(['A', 'B']) });
    expect(expandVariables('${1X}', { '1X': 'v' })).toEqual({ ok: false, message: EXPAND_MESSAGES.badName('1X') });
  });
});

describe('loadToolsFile (from disk)', () => {
  it('reports a missing file and a cwd that does not exist', () => {
    const dir = tempDir();
    expect(loadToolsFile(path.join(dir, 'nope.yaml')).errors.map((e) => e.message)).toEqual([TOOLS_FILE_MESSAGES.readFile('no such file')]);
    const file = writeToolsFile('mcp_servers:\n  s:\n    command: node\n    cwd: ./missing\n', dir);
    expect(loadToolsFile(file).errors.map(formatIssue)).toEqual([
      `${file}:4:10 mcp_servers.s.cwd: ${TOOLS_FILE_MESSAGES.noFolder(path.join(dir, 'missing'))}`,
    ]);
  });

  it('reads variables from the environment it is given', () => {
    const file = writeToolsFile('mcp_servers:\n  s:\n    command: node\n    env: { K: "${TROUPE_TEST_K}" }\n');
    expect(loadToolsFile(file, { TROUPE_TEST_K: 'v' }).tools!.servers[0]).toMatchObject({ env: { K: 'v' } });
    expect(loadToolsFile(file, {}).errors[0].message).toBe(EXPAND_MESSAGES.unset(['TROUPE_TEST_K']));
  });
});
