import { extractJson } from '../../../../src/core/text/json';

const value = (text: string) => {
  const r = extractJson(text);
  return r.ok ? { value: r.value, source: r.source } : 'none';
};

describe('extractJson', () => {
  it('parses the whole trimmed text first, scalars included', () => {
    expect(value('  {"score": 5}\n')).toEqual({ value: { score: 5 }, source: 'whole' });
    expect(value('42')).toEqual({ value: 42, source: 'whole' });
    expect(value('[1,2]')).toEqual({ value: [1, 2], source: 'whole' });
  });

  it('then a fenced json block (EasyAI §2 case 25)', () => {
    expect(value('Here:\n```json\n{"score": 5}\n```\n')).toEqual({ value: { score: 5 }, source: 'fence' });
  });

  it('prefers a json-labelled fence over an earlier unlabelled one', () => {
    expect(value('```\n{"a":1}\n```\nand\n```json\n{"b":2}\n```')).toEqual({ value: { b: 2 }, source: 'fence' });
  });

  it('falls back to any fenced block that parses', () => {
    expect(value('```text\nnot json\n```\n```\n{"c":3}\n```')).toEqual({ value: { c: 3 }, source: 'fence' });
  });

  it('skips a json fence that does not parse', () => {
    expect(value('```json\n{oops}\n```\nthen {"d": 4} here')).toEqual({ value: { d: 4 }, source: 'balanced' });
  });

  it('then the first balanced value, retrying from the next bracket (EasyAI §2 case 33)', () => {
    expect(value('x {bad {"score":1} y')).toEqual({ value: { score: 1 }, source: 'balanced' });
  });

  it('is string-aware: brackets and escaped quotes inside strings do not end the value', () => {
    expect(value('Result: {"a": "x } y", "b": "q\\"}"} trailing }')).toEqual({
      value: { a: 'x } y', b: 'q"}' },
      source: 'balanced',
    });
  });

  it('finds arrays as well as objects, whichever comes first', () => {
    expect(value('list: [1, {"a": 2}] and {"b": 3}')).toEqual({ value: [1, { a: 2 }], source: 'balanced' });
    expect(value('obj: {"b": 3} then [1]')).toEqual({ value: { b: 3 }, source: 'balanced' });
  });

  it('rejects mismatched brackets and finds the next valid value', () => {
    expect(value('{"a": [1, 2}  {"ok": true}')).toEqual({ value: { ok: true }, source: 'balanced' });
  });

  it('reports nothing found (EasyAI §2 case 26)', () => {
    expect(value('no json here')).toBe('none');
    expect(value('')).toBe('none');
    expect(value('{ unclosed')).toBe('none');
  });

  it('stays fast on pathological input (many unclosed brackets)', () => {
    const started = Date.now();
    expect(value('{'.repeat(200_000))).toBe('none');
    expect(Date.now() - started).toBeLessThan(2000);
  });
});
