/**
 * What a human approves is what runs: a call's argument text is read strictly (a key repeated within
 * an object is an error for the model, never "last one wins"), and the value is serialized again —
 * the one form a `tool_call` request shows and the tool receives. Property tests cover replies as a
 * model may write them: any JSON object reads back to itself, any repeated key is found wherever it
 * is nested, and no text makes the reader throw.
 */
import fc from 'fast-check';
import { jsonStructureIssue, readToolArguments, TOOL_ARGUMENT_LIMITS, TOOL_ARGUMENT_TEXTS } from '../../../../src/core/llm/tool-arguments';
import { normalizeCallIds } from '../../../../src/core/llm/next-step';
import { parseArgumentsJson } from '../../../../src/tools/arguments';
import { fuzzRuns } from '../../../helpers/fuzz';

describe('tool-call arguments', () => {
  it('refuse a repeated key, naming it and where it is', () => {
    const sneaky = `{"file":"notes.md","target":"staging","note":"${'x'.repeat(213)}","target":"PRODUCTION"}`;
    expect(JSON.parse(sneaky).target).toBe('PRODUCTION'); // what JSON.parse alone would run
    expect(readToolArguments(sneaky)).toEqual({ ok: false, error: TOOL_ARGUMENT_TEXTS.duplicateKey('target', '/') });
    expect(readToolArguments('{"a":{"b":[{"c":1},{"c":2,"c":3}]}}')).toEqual({ ok: false, error: TOOL_ARGUMENT_TEXTS.duplicateKey('c', '/a/b/1') });
    // escapes spell the same key
    expect(readToolArguments('{"t\\u0061rget":1,"target":2}')).toEqual({ ok: false, error: TOOL_ARGUMENT_TEXTS.duplicateKey('target', '/') });
    // the worker's own parser says the same for calls that need no approval
    expect(parseArgumentsJson(sneaky)).toEqual({ ok: false, errors: [TOOL_ARGUMENT_TEXTS.duplicateKey('target', '/')] });
  });

  it('keep keys that only look alike, and strings that contain braces and quotes', () => {
    expect(readToolArguments('{"a":"{\\"a\\":1,","b":{"a":2},"c":[{"a":1},{"a":1}]}')).toMatchObject({ ok: true });
    expect(readToolArguments(' \n{"x" : 1 }\n')).toEqual({ ok: true, value: { x: 1 }, json: '{"x":1}' });
    expect(readToolArguments('')).toEqual({ ok: true, value: {}, json: '{}' });
  });

  it('refuse text that is not a JSON object, and nesting past the bound', () => {
    expect(readToolArguments('[1]')).toEqual({ ok: false, error: TOOL_ARGUMENT_TEXTS.notObject('array') });
    expect(readToolArguments('{"a":')).toMatchObject({ ok: false, error: expect.stringContaining('not valid JSON') });
    const deep = `{"a":${'['.repeat(TOOL_ARGUMENT_LIMITS.maxDepth)}${']'.repeat(TOOL_ARGUMENT_LIMITS.maxDepth)}}`;
    expect(readToolArguments(deep)).toEqual({ ok: false, error: TOOL_ARGUMENT_TEXTS.tooDeep(TOOL_ARGUMENT_LIMITS.maxDepth) });
  });

  it('read any JSON object back to itself, serialized once more', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 5 })), (value) => {
        const text = JSON.stringify(value, null, 1);
        const read = readToolArguments(text);
        return read.ok && read.json === JSON.stringify(JSON.parse(text));
      }),
      fuzzRuns(500),
    );
  });

  it('find a repeated key wherever it is nested', () => {
    const nested = fc.letrec((tie) => ({
      object: fc.dictionary(fc.string({ maxLength: 4 }), tie('value'), { maxKeys: 3 }),
      value: fc.oneof({ depthSize: 'small' }, fc.jsonValue({ maxDepth: 1 }), tie('object'), fc.array(tie('object'), { maxLength: 2 })),
    }));
    fc.assert(
      fc.property(nested.object, fc.string({ maxLength: 4 }), fc.jsonValue({ maxDepth: 1 }), (object, key, value) => {
        // a repeated key spliced into the outermost object: `{"k":v,` + the rest + `,"k":v}`
        const rest = JSON.stringify(object).slice(1, -1);
        const k = JSON.stringify(key);
        const text = `{${k}:${JSON.stringify(value)}${rest ? `,${rest}` : ''},${k}:${JSON.stringify(value)}}`;
        return readToolArguments(text).ok === false && jsonStructureIssue(text) === TOOL_ARGUMENT_TEXTS.duplicateKey(key, '/');
      }),
      fuzzRuns(500),
    );
  });

  it('never throw, whatever the text', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.json(), fc.stringMatching(/^[{}[\]",:\\a-c0-9 ]{0,40}$/)), (text) => {
        const read = readToolArguments(text);
        return read.ok ? typeof read.json === 'string' : typeof read.error === 'string';
      }),
      fuzzRuns(2000),
    );
  });

  it('give every call of any reply an id of its own, in order, whatever ids the endpoint sent', () => {
    const call = fc.record({ id: fc.oneof(fc.constant(''), fc.constantFrom('a', 'b', 'call_0_1'), fc.string()), name: fc.string(), arguments: fc.string() });
    fc.assert(
      fc.property(fc.array(call, { maxLength: 40 }), fc.nat(20), (calls, round) => {
        const ids = normalizeCallIds(calls, round).map((c) => c.id);
        return new Set(ids).size === calls.length && ids.every((id) => id !== '');
      }),
      fuzzRuns(1000),
    );
  });
});
