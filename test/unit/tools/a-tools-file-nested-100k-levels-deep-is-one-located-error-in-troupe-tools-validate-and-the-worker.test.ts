/**
 * A tools file nested 100,000 levels deep (`[[[…`, `{a: {a: …`) is one located error, the nesting
 * bound of docs/semantics.md ("Bounds on hostile input"), in `troupe tools`, `troupe validate` and at
 * the start of `troupe worker` (a real process, as an operator starts it): never `Maximum call stack
 * size exceeded`, never hundreds of follow-on errors. An alias that nests a value past the bound, or
 * makes it contain itself, is located too.
 */
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { main } from '../../../src/cli/main';
import { MAX_CONFIG_DEPTH } from '../../../src/core/config/limits';
import { parseToolsFile, TOOLS_FILE_MESSAGES } from '../../../src/tools/file-load';
import { removeDirs, tempDir } from '../../fixtures/tools/helpers';

const BIN = path.resolve(__dirname, '..', '..', '..', 'bin', 'troupe.js');
const LEVELS = 100_000;
const TOO_DEEP = TOOLS_FILE_MESSAGES.tooDeep(MAX_CONFIG_DEPTH);

/** Deep files of each shape: an unclosed flow list, a closed one, and flow mappings inside a server. */
function deepFiles(): Record<string, string> {
  const dir = tempDir();
  const write = (name: string, text: string) => {
    const file = path.join(dir, name);
    fs.writeFileSync(file, text);
    return file;
  };
  return {
    open: write('open.yaml', `mcp_servers: ${'['.repeat(LEVELS)}\n`),
    closed: write('closed.yaml', `# tools\nmcp_servers: ${'['.repeat(LEVELS)}${']'.repeat(LEVELS)}\n`),
    maps: write('maps.yaml', `mcp_servers:\n  files:\n    command: node\n    env: ${'{a: '.repeat(LEVELS)}1${'}'.repeat(LEVELS)}\n`),
  };
}

async function captured(fn: () => Promise<number>): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const w = jest.spyOn(process.stdout, 'write').mockImplementation((s) => ((stdout += String(s)), true));
  const e = jest.spyOn(process.stderr, 'write').mockImplementation((s) => ((stderr += String(s)), true));
  try {
    return { code: await fn(), stdout, stderr };
  } finally {
    w.mockRestore();
    e.mockRestore();
  }
}

/**
 * What a command printed, in brief (its line count, its first and last lines cut short, whether the
 * stack ran out), so a failure on a flood of output still reads in a few lines.
 */
function brief(text: string): { lines: number; first: string; last: string; stackExhausted: boolean } {
  const lines = text.trimEnd().split('\n');
  const cut = (l: string) => (l.length > 300 ? `${l.slice(0, 300)}…` : l);
  return { lines: lines.length, first: cut(lines[0]), last: cut(lines[lines.length - 1]), stackExhausted: text.includes('call stack') };
}

/** The one located error line a deep file gets (the column is where the scan found it too deep). */
const located = (file: string, line: number) => expect.stringMatching(new RegExp(`^${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:${line}:\\d+: `)) as string;

afterAll(removeDirs);

describe('a tools file nested 100,000 levels deep', () => {
  const files = deepFiles();
  const lineOf = { open: 1, closed: 2, maps: 4 } as const;

  test.each(Object.keys(lineOf) as Array<keyof typeof lineOf>)('%s: troupe tools prints one located error and exits 1', async (shape) => {
    const r = await captured(() => main(['tools', '--tools', files[shape]]));
    expect({ code: r.code, ...brief(r.stdout + r.stderr) }).toEqual({ code: 1, lines: 2, first: located(files[shape], lineOf[shape]), last: expect.any(String), stackExhausted: false });
    expect(r.stdout.split('\n')[0].endsWith(`: ${TOO_DEEP}`)).toBe(true);
  });

  test('troupe validate checks it as a tools file, with the same located error', async () => {
    const r = await captured(() => main(['validate', files.open]));
    expect({ code: r.code, ...brief(r.stdout + r.stderr) }).toEqual({ code: 1, lines: 2, first: located(files.open, 1), last: expect.stringContaining('checked as a tools file'), stackExhausted: false });
    expect(r.stdout.split('\n')[0].endsWith(`: ${TOO_DEEP}`)).toBe(true);
  });

  test('troupe worker stops at its start with the located error (a real process)', async () => {
    const run = promisify(execFile)(process.execPath, [BIN, 'worker', '--tools', files.closed], {
      // nothing listens here: the tools file is read before any connection
      env: { ...process.env, TEMPORAL_ADDRESS: '127.0.0.1:1', TROUPE_PAYLOAD_KEY: '', TROUPE_METRICS_ADDRESS: '' },
    });
    const failed = await run.then(
      () => undefined,
      (e: { code: number; stderr: string }) => e,
    );
    expect({ code: failed?.code, ...brief(failed?.stderr ?? '') }).toEqual({ code: 1, lines: expect.any(Number), first: expect.any(String), last: located(files.closed, 2), stackExhausted: false });
    expect(failed!.stderr.trimEnd().endsWith(`: ${TOO_DEEP}`)).toBe(true);
  });
});

describe('aliases', () => {
  test('an alias inside the mapping it names is located at its key', () => {
    const r = parseToolsFile('mcp_servers: &a\n  x: *a\n', 'tools.yaml', {});
    expect(r.errors).toEqual([{ file: 'tools.yaml', line: 2, col: 3, path: 'mcp_servers.x', message: TOOLS_FILE_MESSAGES.selfAlias }]);
  });

  test('aliases that nest a value past the bound are located at its first key past it', () => {
    const levels = Math.ceil(MAX_CONFIG_DEPTH / 2) + 2;
    const text = `deep: &d ${'['.repeat(levels)}1${']'.repeat(levels)}\nmcp_servers:\n  files:\n    command: node\n    env: {a: ${'['.repeat(levels)}*d${']'.repeat(levels)}}\n`;
    const r = parseToolsFile(text, 'tools.yaml', {});
    expect(r.errors).toHaveLength(1);
    expect(r.errors[0]).toMatchObject({ file: 'tools.yaml', message: TOO_DEEP });
    expect(r.errors[0].path).toMatch(/^mcp_servers\.files\.env\.a/);
  });
});
