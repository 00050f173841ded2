import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { main } from '../../../src/cli/main';
import { parseArgs } from '../../../src/cli/args';

const root = path.join(__dirname, '..', '..', '..');
const example = (f: string) => path.relative(process.cwd(), path.join(root, 'examples', f));
const fixture = (f: string) => path.join(__dirname, '..', 'fixtures', f);
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
    const code = await main(argv);
    return { code, stdout, stderr };
  } finally {
    o.mockRestore();
    e.mockRestore();
  }
}

beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'troupe-cli-'));
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const INVALID = `name: demo
agents:
  a:
    instructions: hi
collaboration:
  flow:
    - "parent -> a"
    - "a -> ghost"
    - "a -> parent"
  max_iterations: many
`;

describe('troupe validate', () => {
  it('prints a one-line summary and exits 0 for a valid file', async () => {
    const f = example('review-loop.yaml');
    expect(await cli('validate', f)).toEqual({ code: 0, stdout: `✓ ${f} is valid (2 agents, 4 edges, 1 loop group)\n`, stderr: '' });
  });

  it('prints every located error and a count, and exits 1', async () => {
    const f = file('bad.yaml', INVALID);
    const r = await cli('validate', f);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe(
      [
        `${f}:8:7 collaboration.flow[1]: Edge references unknown agent "ghost" in "to" field`,
        `${f}:10:19 collaboration.max_iterations: expected number, got string`,
        `✗ ${f}: 2 errors`,
        '',
      ].join('\n'),
    );
    expect(r.stdout).not.toMatch(/at .*\.ts:\d+/);
  });

  it('prints warnings with a prefix and still exits 0', async () => {
    const f = file('warn.yaml', 'name: w\nagents:\n  a: { instructions: A }\n  b: { instructions: B }\ncollaboration: { topology: pipeline, agents: [a] }\n');
    expect(await cli('validate', f)).toEqual({
      code: 0,
      stdout: `warning: ${f}:4:3 agents.b: Orphan agent "b" is not referenced in any edge\n✓ ${f} is valid with 1 warning (2 agents, 2 edges, 0 loop groups)\n`,
      stderr: '',
    });
  });

  it('--json prints one JSON object with the issues and a summary', async () => {
    const bad = JSON.parse((await cli('validate', file('bad2.yaml', INVALID), '--json')).stdout);
    expect(bad).toMatchObject({ valid: false, warnings: [] });
    expect(bad.errors[0]).toEqual({ file: expect.stringMatching(/bad2\.yaml$/), line: 8, col: 7, path: 'collaboration.flow[1]', message: 'Edge references unknown agent "ghost" in "to" field' });
    const good = await cli('validate', example('star.yaml'), '--json');
    expect(good.code).toBe(0);
    expect(JSON.parse(good.stdout)).toMatchObject({ valid: true, errors: [], summary: { agents: 3, edges: 6, loopGroups: 0 } });
  });

  it('reports an unreadable file as a config error, exit 1', async () => {
    const f = path.join(tmp, 'missing.yaml');
    expect(await cli('validate', f)).toEqual({ code: 1, stdout: `${f}: cannot read the file: no such file\n✗ ${f}: 1 error\n`, stderr: '' });
  });

  it('--plugins loads a module before loading, so its topology is known', async () => {
    const f = file('custom.yaml', 'name: c\nagents:\n  a: { instructions: A }\n  b: { instructions: B }\ncollaboration: { topology: pair-review, agents: [a, b] }\n');
    const without = await cli('validate', f);
    expect(without.code).toBe(1);
    expect(without.stdout).toContain('unknown topology "pair-review"');
    expect(await cli('validate', f, '--plugins', fixture('cli-plugin.ts'))).toEqual({
      code: 0,
      stdout: `✓ ${f} is valid (2 agents, 3 edges, 0 loop groups)\n`,
      stderr: '',
    });
  });

  it('a missing or failing plugins module exits 1 with one line, no stack', async () => {
    const f = example('star.yaml');
    expect(await cli('validate', f, '--plugins', 'nope.ts')).toEqual({ code: 1, stdout: '', stderr: 'plugins file not found: nope.ts\n' });
    const broken = await cli('validate', f, '--plugins', fixture('cli-plugin-broken.ts'));
    expect(broken).toEqual({ code: 1, stdout: '', stderr: `cannot load plugins from ${fixture('cli-plugin-broken.ts')}: plugin exploded\n` });
  });
});

describe('troupe graph', () => {
  it('prints Mermaid by default and DOT with --format dot', async () => {
    const m = await cli('graph', example('review-loop.yaml'));
    expect(m.code).toBe(0);
    expect(m.stdout.split('\n')[0]).toBe('flowchart TD');
    expect(m.stdout).toContain('subgraph loop0 ["loop critic,writer · cap 5"]');
    expect(m.stdout).toContain('n1 -.->|"exit"| parent');
    const d = await cli('graph', example('review-loop.yaml'), '--format', 'dot');
    expect(d.code).toBe(0);
    expect(d.stdout.startsWith('digraph "essay-review" {')).toBe(true);
    expect((await cli('graph', example('review-loop.yaml'), '--format=dot')).stdout).toBe(d.stdout);
  });

  it('rejects an unknown format and an invalid config with exit 1 and nothing on stdout', async () => {
    expect(await cli('graph', example('star.yaml'), '--format', 'svg')).toEqual({ code: 1, stdout: '', stderr: '--format must be mermaid or dot, got "svg"\n' });
    const f = file('bad3.yaml', INVALID);
    const r = await cli('graph', f);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(`${f}:8:7 collaboration.flow[1]: Edge references unknown agent "ghost" in "to" field`);
  });
});

describe('the command dispatcher', () => {
  it('troupe help lists the commands; help <command> shows its usage', async () => {
    const h = await cli('help');
    expect(h.code).toBe(0);
    expect(h.stdout).toMatch(/^ {2}validate +Check a role.yaml/m);
    expect(h.stdout).toMatch(/^ {2}graph +Draw the compiled graph/m);
    const v = await cli('help', 'validate');
    expect(v.stdout.split('\n')[0]).toBe('usage: troupe validate <role.yaml> [--plugins file] [--tools tools.yaml] [--json]');
    expect((await cli('validate', '--help')).stdout).toBe(v.stdout);
    expect((await cli('help', 'nope')).code).toBe(1);
  });

  it('no command prints help and exits 1; --help exits 0', async () => {
    const r = await cli();
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('usage: troupe <command> [options]');
    expect((await cli('--help')).code).toBe(0);
  });

  it('an unknown command is a usage error with a hint', async () => {
    expect(await cli('valdate', 'x.yaml')).toEqual({
      code: 1,
      stdout: '',
      stderr: 'unknown command "valdate" (did you mean "validate"?)\nRun "troupe help" for the list of commands.\n',
    });
  });

  it('unknown flags and wrong argument counts are usage errors, exit 1', async () => {
    expect(await cli('validate', 'x.yaml', '--jsno')).toEqual({
      code: 1,
      stdout: '',
      stderr: 'troupe validate: unknown flag --jsno (did you mean "--json"?)\nusage: troupe validate <role.yaml> [--plugins file] [--tools tools.yaml] [--json]\n',
    });
    expect((await cli('validate')).stderr).toBe('troupe validate: expects 1 argument, got 0\nusage: troupe validate <role.yaml> [--plugins file] [--tools tools.yaml] [--json]\n');
    expect((await cli('graph', 'a.yaml', 'b.yaml')).code).toBe(1);
  });
});

describe('parseArgs', () => {
  const spec = { format: 'string', json: 'boolean' } as const;

  it('reads --x value, --x=value, boolean flags, positionals and --', () => {
    expect(parseArgs(['a.yaml', '--format', 'dot', '--json', '--', '--not-a-flag'], spec)).toEqual({
      ok: true,
      args: { positionals: ['a.yaml', '--not-a-flag'], flags: { format: 'dot', json: true } },
    });
    expect(parseArgs(['--format=dot', '-'], spec)).toEqual({ ok: true, args: { positionals: ['-'], flags: { format: 'dot' } } });
  });

  it('rejects unknown flags, values on booleans, and missing values', () => {
    expect(parseArgs(['--fromat', 'dot'], spec)).toEqual({ ok: false, error: 'unknown flag --fromat (did you mean "--format"?)' });
    expect(parseArgs(['-x'], spec)).toEqual({ ok: false, error: 'unknown flag -x' });
    expect(parseArgs(['--json=yes'], spec)).toEqual({ ok: false, error: '--json does not take a value' });
    expect(parseArgs(['--format'], spec)).toEqual({ ok: false, error: '--format needs a value' });
    expect(parseArgs(['--format', '--json'], spec)).toEqual({ ok: false, error: '--format needs a value' });
  });
});
