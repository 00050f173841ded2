import { z } from 'zod';
import { LineCounter, parseDocument } from 'yaml';
import { closest, didYouMean, levenshtein } from '../../../../src/core/config/did-you-mean';
import { formatIssue, formatPath } from '../../../../src/core/config/issues';
import { lenientConfig } from '../../../../src/core/config/lenient';
import { locate } from '../../../../src/core/config/locate';
import { knownKeysAt, parseWithIssues } from '../../../../src/core/config/zod-issues';
import { RoleConfigSchema } from '../../../../src/core/config/schema';

describe('formatPath and formatIssue', () => {
  it('joins keys with dots and indexes with [i]', () => {
    expect(formatPath(['collaboration', 'termination', 'any_of', 1, 'stuck', 'repeats'])).toBe(
      'collaboration.termination.any_of[1].stuck.repeats',
    );
    expect(formatPath([])).toBe('');
  });

  it('quotes keys that contain dots, brackets or spaces', () => {
    expect(formatPath(['agents', 'v1.2', 'model'])).toBe('agents["v1.2"].model');
    expect(formatPath(['pricing', 'gpt 4'])).toBe('pricing["gpt 4"]');
    expect(formatPath(['agents', '研究者'])).toBe('agents.研究者');
  });

  it('prints file:line:col path: message, or without path / position', () => {
    const i = { file: 'role.yaml', line: 14, col: 7, path: 'collaboration.termination.any_of[1].stuck.repeats', message: 'must be an integer >= 2' };
    expect(formatIssue(i)).toBe('role.yaml:14:7 collaboration.termination.any_of[1].stuck.repeats: must be an integer >= 2');
    expect(formatIssue({ ...i, path: '' })).toBe('role.yaml:14:7: must be an integer >= 2');
    expect(formatIssue({ ...i, line: 0, col: 0, path: '', message: 'cannot read the file: no such file' })).toBe(
      'role.yaml: cannot read the file: no such file',
    );
  });
});

describe('did you mean', () => {
  it('counts a swap of neighbours as one edit', () => {
    expect(levenshtein('modle', 'model')).toBe(1);
    expect(levenshtein('kitten', 'sitting')).toBe(3);
    expect(levenshtein('', 'abc')).toBe(3);
  });

  it('suggests only close candidates (a third of the length), preferring the closest', () => {
    expect(closest('colaboration', ['agents', 'collaboration'])).toBe('collaboration');
    expect(closest('stuk', ['stuck', 'timeout_ms'])).toBe('stuck');
    expect(closest('flavour', ['name', 'model', 'agents'])).toBeUndefined();
    expect(closest('MODEL', ['model'])).toBe('model');
    expect(didYouMean('pipline', ['pipeline', 'star'])).toBe(' (did you mean "pipeline"?)');
    expect(didYouMean('zzz', ['pipeline'])).toBe('');
  });
});

describe('locating paths in the YAML', () => {
  const text = 'name: demo\nagents:\n  a:\n    instructions: hi\n    tools: [goal]\n  b:\n';
  const lc = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lc });
  const at = (path: Array<string | number>, where?: 'key' | 'value') => locate(doc, lc, { path, message: '', at: where });

  it('locates a value at the value and a key issue at the key', () => {
    expect(at(['agents', 'a', 'instructions'])).toEqual({ line: 4, col: 19 });
    expect(at(['agents', 'a', 'instructions'], 'key')).toEqual({ line: 4, col: 5 });
    expect(at(['agents', 'a', 'tools', 0])).toEqual({ line: 5, col: 13 });
  });

  it('locates a missing key at its parent key, and an empty value at its key', () => {
    expect(at(['agents', 'a', 'model', 'name'])).toEqual({ line: 3, col: 3 });
    expect(at(['agents', 'b'])).toEqual({ line: 6, col: 3 });
    expect(at(['collaboration'])).toEqual({ line: 1, col: 1 });
  });

  it('locates a path through a scalar at the scalar', () => {
    expect(at(['name', 'agent'])).toEqual({ line: 1, col: 7 });
  });
});

describe('friendly zod messages', () => {
  const schema = z.strictObject({
    n: z.number().max(10).optional(),
    s: z.string().max(3).optional(),
    list: z.array(z.string()).max(1).optional(),
    kind: z.enum(['alpha', 'beta']).optional(),
    nested: z.strictObject({ depth: z.number() }).optional(),
  });
  const messages = (v: unknown) => {
    const r = parseWithIssues(schema, v, ['base']);
    return r.ok ? [] : r.issues.map((i) => `${formatPath(i.path)}: ${i.message}`);
  };

  it('explains bounds, enums, types and unknown keys', () => {
    expect(messages({ n: 11, s: 'long', list: ['a', 'b'], kind: 'gamma', nested: { depth: 'deep', dpth: 1 } })).toEqual([
      'base.n: must be <= 10',
      'base.s: must be at most 3 characters long',
      'base.list: must list at most 1 item',
      'base.kind: must be one of alpha, beta',
      'base.nested.depth: expected number, got string',
      'base.nested.dpth: unknown key "dpth" (did you mean "depth"?)',
    ]);
  });

  it('knows the keys of objects behind records, arrays, optionals and unions', () => {
    expect(knownKeysAt(RoleConfigSchema, ['agents', 'writer', 'model'])).toContain('temperature');
    expect(knownKeysAt(RoleConfigSchema, ['collaboration', 'flow', 3])).toEqual(['from', 'to', 'label', 'exit', 'when']);
    expect(knownKeysAt(RoleConfigSchema, ['name'])).toEqual([]);
  });
});

describe('the lenient stand-in config', () => {
  const data = {
    name: 'Bad Name',
    model: { temperature: 'hot' },
    agents: { a: { instructions: 5 }, b: { instructions: 'B' } },
    collaboration: { flow: ['parent -> a', { from: 'a', to: 'parent', exit: 'yes' }] },
  };

  it('drops failing optional sections and fields and keeps agent names so graph checks can run', () => {
    const r = parseWithIssues(RoleConfigSchema, data);
    expect(r.ok).toBe(false);
    const stand = lenientConfig(data, r.ok ? [] : r.issues);
    expect(stand).toEqual({
      config: {
        name: 'x',
        agents: { a: { instructions: '-' }, b: { instructions: 'B' } },
        collaboration: { flow: ['parent -> a', { from: 'a', to: 'parent' }] },
      },
      unreliable: [],
      partial: false,
    });
    expect(data.collaboration.flow[1]).toEqual({ from: 'a', to: 'parent', exit: 'yes' });
  });

  it('stands in for an unreadable edge or topology entry, marking its place unreliable and the graph partial', () => {
    const badEdge = { ...data, collaboration: { flow: ['parent -> a', 5, { from: 7, to: 'parent' }] } };
    const r1 = parseWithIssues(RoleConfigSchema, badEdge);
    expect(lenientConfig(badEdge, r1.ok ? [] : r1.issues)).toMatchObject({
      config: { collaboration: { flow: ['parent -> a', '', ''] } },
      unreliable: [
        ['collaboration', 'flow', 1],
        ['collaboration', 'flow', 2],
      ],
      partial: true,
    });
    const badList = { ...data, collaboration: { topology: 'pipeline', agents: ['a', 3] } };
    const r2 = parseWithIssues(RoleConfigSchema, badList);
    expect(lenientConfig(badList, r2.ok ? [] : r2.issues)).toMatchObject({ unreliable: [['collaboration', 'agents', 1]], partial: true });
  });

  it('drops only the termination list that failed, keeping the other', () => {
    const emptyAllOf = { ...data, collaboration: { flow: ['parent -> a', 'a -> parent'], termination: { any_of: [{ converged: 'x' }], all_of: [] } } };
    const r = parseWithIssues(RoleConfigSchema, emptyAllOf);
    expect(lenientConfig(emptyAllOf, r.ok ? [] : r.issues)?.config.collaboration.termination).toEqual({ any_of: [{ converged: 'x' }] });
  });

  it('gives up only when the agents map or the collaboration block cannot be read', () => {
    const badAgents = { ...data, agents: [] };
    const r2 = parseWithIssues(RoleConfigSchema, badAgents);
    expect(lenientConfig(badAgents, r2.ok ? [] : r2.issues)).toBeUndefined();
    const badCollaboration = { ...data, collaboration: 'pipeline' };
    const r3 = parseWithIssues(RoleConfigSchema, badCollaboration);
    expect(lenientConfig(badCollaboration, r3.ok ? [] : r3.issues)).toBeUndefined();
  });
});
