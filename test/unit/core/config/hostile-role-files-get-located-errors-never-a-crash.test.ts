/**
 * Thousands of role files mutated from the examples (keys deleted, types swapped, huge strings, deep
 * nesting, alias bombs and self-referencing aliases, random bytes, cut-off text, hostile regexes):
 * the loader answers each within a second with located errors in words, and never throws.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import fc from 'fast-check';
import YAML from 'yaml';
import type { ConfigIssue } from '../../../../src/core/config/issues';
import { formatIssue, loadRoleConfig } from '../../../../src/core/config/load';
import { MAX_CONFIG_DEPTH, MAX_QUOTED_CHARS, MAX_REPORTED_ISSUES, MAX_YAML_ERRORS } from '../../../../src/core/config/limits';
import { CONFIG_MESSAGES } from '../../../../src/core/config/messages';
import { main } from '../../../../src/cli/main';
import { fuzzRuns, leaksIn } from '../../../helpers/fuzz';

const EXAMPLES = fs
  .readdirSync(path.join(__dirname, '../../../../examples'))
  .filter((f) => f.endsWith('.yaml') && f !== 'tools.yaml')
  .map((f) => YAML.parse(fs.readFileSync(path.join(__dirname, '../../../../examples', f), 'utf8')) as unknown);

/** Regexes a mutation may put in a `regex` field: hostile ones the checker answers quickly, everyday ones, broken ones. */
const REGEXES = ['(a+)+$', '(a|aa)+$', '^(\\w+\\s?)*$', '(x+x+)+y', '^FAIL', 'PASS', '[unclosed', '(?<=a)b', 'a'.repeat(1500)];

type Json = unknown;
type PathSeg = string | number;

/** Every path in `value` (the root excluded), iteratively. */
function pathsOf(value: Json): PathSeg[][] {
  const out: PathSeg[][] = [];
  const stack: Array<{ node: Json; at: PathSeg[] }> = [{ node: value, at: [] }];
  while (stack.length) {
    const { node, at } = stack.pop()!;
    if (node === null || typeof node !== 'object') continue;
    const entries: Array<[PathSeg, Json]> = Array.isArray(node) ? node.map((v, i) => [i, v]) : Object.entries(node);
    for (const [k, v] of entries) {
      out.push([...at, k]);
      stack.push({ node: v, at: [...at, k] });
    }
  }
  return out;
}

function parentOf(root: Json, at: PathSeg[]): Record<PathSeg, Json> | undefined {
  let cur = root;
  for (const seg of at.slice(0, -1)) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<PathSeg, Json>)[seg];
  }
  return cur !== null && typeof cur === 'object' ? (cur as Record<PathSeg, Json>) : undefined;
}

const anyValue = fc.oneof(
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.string({ maxLength: 20 }),
  fc.array(fc.string({ maxLength: 5 }), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 8 }), fc.string({ maxLength: 8 }), { maxKeys: 3 }),
);

const valueOp = fc.oneof(
  fc.record({ kind: fc.constant('delete' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('swap' as const), at: fc.nat(), value: anyValue }),
  fc.record({ kind: fc.constant('huge' as const), at: fc.nat(), size: fc.integer({ min: 1_000, max: 300_000 }), unit: fc.string({ minLength: 1, maxLength: 3 }) }),
  fc.record({ kind: fc.constant('nest' as const), at: fc.nat(), depth: fc.integer({ min: 2, max: 100 }), list: fc.boolean() }),
  fc.record({ kind: fc.constant('key' as const), at: fc.nat(), key: fc.string({ unit: 'binary', maxLength: 30 }), value: anyValue }),
  fc.record({ kind: fc.constant('regex' as const), at: fc.nat(), pattern: fc.constantFrom(...REGEXES) }),
);

type ValueOp = typeof valueOp extends fc.Arbitrary<infer T> ? T : never;

function applyValueOp(root: Json, op: ValueOp): void {
  const paths = pathsOf(root);
  if (paths.length === 0) return;
  const at = paths[op.at % paths.length];
  const parent = parentOf(root, at);
  if (!parent) return;
  const key = at[at.length - 1];
  switch (op.kind) {
    case 'delete':
      if (Array.isArray(parent)) parent.splice(Number(key), 1);
      else delete parent[key];
      return;
    case 'swap':
      parent[key] = op.value;
      return;
    case 'huge':
      parent[key] = op.unit.repeat(Math.ceil(op.size / op.unit.length)).slice(0, op.size);
      return;
    case 'nest': {
      let v: Json = parent[key];
      for (let i = 0; i < op.depth; i += 1) v = op.list ? [v] : { a: v };
      parent[key] = v;
      return;
    }
    case 'key': {
      const target = parent[key];
      if (target !== null && typeof target === 'object' && !Array.isArray(target)) (target as Record<string, Json>)[op.key] = op.value;
      return;
    }
    case 'regex': {
      // a `regex` field wherever there is a result_matches, else this value becomes one
      const rm = paths.find((p) => p[p.length - 1] === 'result_matches');
      const matcher = rm && parentOf(root, [...rm, 'regex']);
      if (matcher && !Array.isArray(matcher)) matcher.regex = op.pattern;
      else parent[key] = { result_matches: { agent: 'writer', regex: op.pattern } };
      return;
    }
    default: {
      const never: never = op;
      return never;
    }
  }
}

const textOp = fc.oneof(
  fc.record({ kind: fc.constant('bytes' as const), at: fc.nat(), bytes: fc.string({ unit: 'binary', minLength: 1, maxLength: 20 }) }),
  fc.record({ kind: fc.constant('cut' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('deep' as const), depth: fc.integer({ min: 50, max: 20_000 }), style: fc.constantFrom('flow-map', 'flow-seq', 'block') }),
  fc.record({ kind: fc.constant('bomb' as const) }),
  fc.record({ kind: fc.constant('self-alias' as const) }),
);

type TextOp = typeof textOp extends fc.Arbitrary<infer T> ? T : never;

function applyTextOp(text: string, op: TextOp): string {
  switch (op.kind) {
    case 'bytes': {
      const i = op.at % (text.length + 1);
      return text.slice(0, i) + op.bytes + text.slice(i);
    }
    case 'cut':
      return text.slice(0, op.at % (text.length + 1));
    case 'deep': {
      const n = op.depth;
      if (op.style === 'flow-map') return `${text}\ndeep: ${'{a: '.repeat(n)}1${'}'.repeat(n)}\n`;
      if (op.style === 'flow-seq') return `${text}\ndeep: ${'['.repeat(n)}${']'.repeat(n)}\n`;
      const lines = Array.from({ length: Math.min(n, 3000) }, (_, i) => `${' '.repeat(i + 2)}k:`);
      return `${text}\ndeep:\n${lines.join('\n')} 1\n`;
    }
    case 'bomb': {
      const levels = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
      for (const [x, y] of [['b', 'a'], ['c', 'b'], ['d', 'c'], ['e', 'd'], ['f', 'e'], ['g', 'f']]) levels.push(`${x}: &${x} [${Array(9).fill(`*${y}`).join(',')}]`);
      return `${levels.join('\n')}\n${text}`;
    }
    case 'self-alias':
      return `${text}\nloop: &loop {any_of: [*loop]}\n`;
    default: {
      const never: never = op;
      return never;
    }
  }
}

const mutatedFile = fc
  .record({
    example: fc.nat({ max: EXAMPLES.length - 1 }),
    values: fc.array(valueOp, { minLength: 0, maxLength: 4 }),
    texts: fc.array(textOp, { minLength: 0, maxLength: 2 }),
  })
  .map(({ example, values, texts }) => {
    const value = structuredClone(EXAMPLES[example]);
    for (const op of values) applyValueOp(value, op);
    let text = YAML.stringify(value, { aliasDuplicateObjects: false, lineWidth: 0 });
    for (const op of texts) text = applyTextOp(text, op);
    return text;
  });

/** What must hold of every issue: located, worded, bounded. */
function checkIssue(i: ConfigIssue): void {
  const line = formatIssue(i);
  expect(i.line).toBeGreaterThanOrEqual(1);
  expect(i.col).toBeGreaterThanOrEqual(1);
  expect(line).toMatch(/^role\.yaml:\d+:\d+(:| [^\n]*?:) \S/);
  expect(i.message.length).toBeGreaterThan(3);
  expect(line.length).toBeLessThan(2000);
  expect(leaksIn(i.message)).toEqual([]);
}

describe('hostile role files', () => {
  const timings: number[] = [];
  afterAll(() => {
    if (process.env.TROUPE_FUZZ_REPORT) {
      timings.sort((a, b) => a - b);
      const at = (q: number) => timings[Math.min(timings.length - 1, Math.floor(q * timings.length))];
      process.stdout.write(`role-file fuzz: ${timings.length} files, median ${at(0.5)} ms, p99 ${at(0.99)} ms, max ${at(1)} ms\n`);
    }
  });

  test('every mutated file gets an answer within a second: located errors in words, never a throw', () => {
    const heapBefore = process.memoryUsage().heapUsed;
    fc.assert(
      fc.property(mutatedFile, (text) => {
        const started = performance.now();
        const r = loadRoleConfig(text, 'role.yaml');
        const ms = performance.now() - started;
        timings.push(Math.round(ms));
        expect(ms).toBeLessThan(1000);
        for (const i of [...r.errors, ...r.warnings]) checkIssue(i);
        expect(r.errors.length + r.warnings.length).toBeLessThan(500);
        if (r.errors.length === 0) expect(r.graph).toBeDefined();
      }),
      fuzzRuns(2000),
    );
    // the run stayed within memory: every answer was small, and the heap grew by far less than the
    // process may hold (measured as growth, since the tests before this one share the process)
    expect(process.memoryUsage().heapUsed - heapBefore).toBeLessThan(1024 ** 3);
  });

  test.each([
    ['a flow mapping', (n: number) => `name: x\nagents: ${'{a: '.repeat(n)}1${'}'.repeat(n)}\ncollaboration: {}\n`],
    ['a flow list', (n: number) => `name: x\nagents: ${'['.repeat(n)}${']'.repeat(n)}\ncollaboration: {}\n`],
    ['a block mapping', (n: number) => `name: x\nagents:\n${Array.from({ length: n }, (_, i) => `${' '.repeat(i + 2)}k:`).join('\n')} 1\ncollaboration: {}\n`],
  ])('%s nested 5,000 deep is one located error naming the bound', (_, make) => {
    const r = loadRoleConfig(make(5000), 'role.yaml');
    expect(r.errors).toHaveLength(1);
    expect(r.errors[0]).toMatchObject({ message: CONFIG_MESSAGES.tooDeep(MAX_CONFIG_DEPTH) });
    expect(r.errors[0].line).toBeGreaterThanOrEqual(2);
  });

  test(`nesting just past ${MAX_CONFIG_DEPTH} levels is located at the first level too deep; at the bound it is read`, () => {
    const nest = (n: number) => `name: x\nagents: {a: {instructions: hi}}\ncollaboration: {topology: pipeline, agents: [a]}\ndescription: ${'['.repeat(n)}${']'.repeat(n)}\n`;
    expect(loadRoleConfig(nest(MAX_CONFIG_DEPTH - 1), 'role.yaml').errors.map(formatIssue)).toEqual([
      'role.yaml:4:14 description: expected string, got array',
    ]);
    expect(loadRoleConfig(nest(MAX_CONFIG_DEPTH), 'role.yaml').errors.map(formatIssue)).toEqual([
      `role.yaml:4:${13 + MAX_CONFIG_DEPTH} description${'[0]'.repeat(MAX_CONFIG_DEPTH - 1)}: ${CONFIG_MESSAGES.tooDeep(MAX_CONFIG_DEPTH)}`,
    ]);
  });

  test('a quoted name continued on an unindented line of thousands of "!" lists the first YAML errors and counts the rest (a fuzz find: 2,843 errors)', () => {
    // a quoted value continued on an unindented line: the reader reads each "!" after it as a tag
    const text = `name: "${'! '.repeat(2000)}\n${'! '.repeat(800)}"\ntask: audit\nagents:\n  a: {instructions: hi}\ncollaboration: {topology: pipeline, agents: [a]}\n`;
    const r = loadRoleConfig(text, 'role.yaml');
    expect(r.errors).toHaveLength(MAX_YAML_ERRORS + 1);
    for (const i of r.errors) checkIssue(i);
    const last = r.errors[MAX_YAML_ERRORS];
    const more = Number(/^and (\d+) more YAML syntax errors from here on/.exec(last.message)?.[1]);
    expect(more).toBeGreaterThan(500);
    // the count is of errors the reader found: the listed ones and the counted ones add up to all of them
    expect(MAX_YAML_ERRORS + more).toBe(YAML.parseDocument(text, { uniqueKeys: true }).errors.length);
    expect(r.found).toEqual({ errors: MAX_YAML_ERRORS + more, warnings: 0 });
    expect(last.line).toBeGreaterThanOrEqual(r.errors[MAX_YAML_ERRORS - 1].line);
  });

  test('`troupe validate` on a cut list prints its lines and the number of errors found', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'troupe-cut-'));
    const file = path.join(dir, 'role.yaml');
    fs.writeFileSync(file, `name: "! !\n${'! '.repeat(300)}"\nagents:\n  a: {instructions: hi}\ncollaboration: {topology: pipeline, agents: [a]}\n`);
    const found = loadRoleConfig(fs.readFileSync(file, 'utf8'), file).found.errors;
    expect(found).toBeGreaterThan(MAX_YAML_ERRORS);
    const out: string[] = [];
    const spy = jest.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => (out.push(String(chunk)), true));
    try {
      expect(await main(['validate', file])).toBe(1);
      const lines = out.join('').trimEnd().split('\n');
      expect(lines).toHaveLength(MAX_YAML_ERRORS + 2);
      expect(lines[MAX_YAML_ERRORS]).toContain(`: and ${found - MAX_YAML_ERRORS} more YAML syntax errors`);
      expect(lines[MAX_YAML_ERRORS + 1]).toBe(`✗ ${file}: ${found} errors`);
      out.length = 0;
      expect(await main(['validate', file, '--json'])).toBe(1);
      const json = JSON.parse(out.join(''));
      expect(json.errors).toHaveLength(MAX_YAML_ERRORS + 1);
      expect(json.found).toEqual({ errors: found, warnings: 0 });
    } finally {
      spy.mockRestore();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test(`a file with more than ${MAX_REPORTED_ISSUES} schema errors lists the first ${MAX_REPORTED_ISSUES} in file order and counts the rest`, () => {
    const agents = Array.from({ length: MAX_REPORTED_ISSUES + 50 }, (_, i) => `  a${i}: {instructions: ${i}}`).join('\n');
    const r = loadRoleConfig(`name: x\nagents:\n${agents}\ncollaboration: {topology: pipeline, agents: [a0]}\n`, 'role.yaml');
    expect(r.errors).toHaveLength(MAX_REPORTED_ISSUES + 1);
    for (const i of r.errors) checkIssue(i);
    expect(r.errors.slice(0, MAX_REPORTED_ISSUES).map((i) => i.path)).toEqual(Array.from({ length: MAX_REPORTED_ISSUES }, (_, i) => `agents.a${i}.instructions`));
    expect(r.errors[MAX_REPORTED_ISSUES]).toMatchObject({ line: 3 + MAX_REPORTED_ISSUES, path: '', message: CONFIG_MESSAGES.moreIssues(50, 'errors') });
    expect(r.found.errors).toBe(MAX_REPORTED_ISSUES + 50);
  });

  test('agent and model names thousands of characters long are quoted cut in every message (a fuzz find: the dead-exit warning)', () => {
    const long = '$'.repeat(2000);
    const dead = `name: x\nagents:\n  a: {instructions: hi}\ncollaboration:\n  topology: pipeline\n  agents: [a]\n  flow:\n    - from: a\n      to: "${long}"\n`;
    const priced = `name: x\nmodel: {name: "${long}"}\nagents:\n  a: {instructions: hi}\ncollaboration: {topology: pipeline, agents: [a]}\nbudget: {max_cost_usd: 1}\n`;
    // YAML caps an implicit key at 1,024 characters
    const key = '$'.repeat(1000);
    const duplicate = `name: x\nagents:\n  "${key}": {instructions: hi}\ncollaboration:\n  flow: ["parent -> ${key}", "parent -> ${key}", "${key} -> parent"]\n`;
    for (const text of [dead, priced, duplicate]) {
      const r = loadRoleConfig(text, 'role.yaml');
      const issues = [...r.errors, ...r.warnings];
      expect(issues.length).toBeGreaterThan(0);
      for (const i of issues) checkIssue(i);
      expect(issues.some((i) => i.message.includes(`${'$'.repeat(MAX_QUOTED_CHARS)}…`))).toBe(true);
    }
    // an everyday name longer than a quote is cut in no snippet a message suggests
    const reviewer = 'implementation-reviewer-who-reads-every-line-of-the-change';
    const everyday = `name: x\nagents:\n  a: {instructions: hi}\n  ${reviewer}: {instructions: hi}\ncollaboration:\n  topology: review-loop\n  agents: [a, ${reviewer}]\n  flow:\n    - ${reviewer} -> a\n`;
    const warnings = loadRoleConfig(everyday, 'role.yaml').warnings.map((w) => w.message);
    expect(warnings.some((w) => w.endsWith(`e.g. when: { result_matches: { agent: ${reviewer}, contains: APPROVED } }`))).toBe(true);
  });

  test('an alias inside the node it names, and an alias bomb, are located errors', () => {
    expect(loadRoleConfig('name: x\nagents: &a {b: *a}\n', 'role.yaml').errors.map(formatIssue)).toEqual([
      `role.yaml:2:16: ${CONFIG_MESSAGES.selfAlias('a')}`,
    ]);
    const bomb = applyTextOp('name: x\n', { kind: 'bomb' });
    expect(loadRoleConfig(bomb, 'role.yaml').errors.map(formatIssue)).toEqual([`role.yaml:2:8: ${CONFIG_MESSAGES.aliasBomb(100)}`]);
  });

  test('`troupe validate` on mutated files exits 0 or 1 and prints only located lines and its summary', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'troupe-fuzz-'));
    const out: string[] = [];
    const write = (chunk: string | Uint8Array) => (out.push(String(chunk)), true);
    const spies = [jest.spyOn(process.stdout, 'write').mockImplementation(write), jest.spyOn(process.stderr, 'write').mockImplementation(write)];
    try {
      await fc.assert(
        fc.asyncProperty(mutatedFile, async (text) => {
          const file = path.join(dir, 'role.yaml');
          fs.writeFileSync(file, text);
          out.length = 0;
          const code = await main(['validate', file]);
          expect([0, 1]).toContain(code);
          const lines = out.join('').trimEnd().split('\n');
          for (const l of lines.slice(0, -1)) expect(l).toMatch(/^(warning: )?.+role\.yaml:\d+:\d+[ :]/);
          expect(lines[lines.length - 1]).toMatch(code === 0 ? /^✓ .*role\.yaml is valid/ : /^✗ .*role\.yaml: \d+ errors?/);
          expect(leaksIn(out.join(''))).toEqual([]);
        }),
        fuzzRuns(100),
      );
    } finally {
      for (const s of spies) s.mockRestore();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
