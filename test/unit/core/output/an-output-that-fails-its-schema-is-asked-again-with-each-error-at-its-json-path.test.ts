import { outputCheck, outputRetryPrompt } from '../../../../src/core/output/check';
import { createAjvValidator, outputSchemaError, validateOutput, type OutputValidator } from '../../../../src/core/output/validator';

const S = { type: 'object', properties: { score: { type: 'number' } }, required: ['score'] };
const OUT = { schema: S, maxRetries: 2 };

describe('validateOutput: error lines carry the JSON path', () => {
  it('wrong type → "/score: must be number" (EasyAI §2 case 23 had no path)', () => {
    expect(validateOutput(S, { score: 'high' })).toEqual({ kind: 'invalid', errors: ['/score: must be number'] });
  });

  it('missing property → "/: must have required property \'score\'" (EasyAI §2 case 27)', () => {
    expect(validateOutput(S, {})).toEqual({ kind: 'invalid', errors: ["/: must have required property 'score'"] });
  });

  it('reports all errors, nested paths, additional property names and allowed values', () => {
    const schema = {
      type: 'object',
      properties: {
        items: { type: 'array', items: { type: 'integer' } },
        level: { enum: ['low', 'high'] },
      },
      required: ['items'],
      additionalProperties: false,
    };
    const r = validateOutput(schema, { items: [1, 'x'], level: 'mid', extra: 1 });
    expect(r.kind).toBe('invalid');
    expect(r.kind === 'invalid' && r.errors).toEqual([
      "/: must NOT have additional properties ('extra')",
      '/items/1: must be integer',
      '/level: must be equal to one of the allowed values: "low", "high"',
    ]);
  });

  it('valid values pass', () => {
    expect(validateOutput(S, { score: 5 })).toEqual({ kind: 'valid' });
  });

  it('caps the error lines at 20 plus a summary', () => {
    const r = validateOutput({ type: 'array', items: { type: 'number' } }, Array.from({ length: 25 }, () => 'x'));
    expect(r.kind === 'invalid' && r.errors.length).toBe(21);
    expect(r.kind === 'invalid' && r.errors[20]).toBe('… and 5 more errors');
  });

  it('a schema that cannot compile is a schema error, not an exception', () => {
    const r = validateOutput({ type: 'nonsense' }, {});
    expect(r.kind).toBe('schema_error');
    expect(outputSchemaError({ type: 'nonsense' })).toMatch(/^Invalid output schema: /);
    expect(outputSchemaError(S)).toBeUndefined();
  });

  it('two schemas with the same $id do not collide', () => {
    const a = { $id: 'x', type: 'number' };
    const b = { $id: 'x', type: 'string' };
    const v = createAjvValidator();
    expect(v.validate(a, 1).kind).toBe('valid');
    expect(v.validate(b, 'x').kind).toBe('valid');
  });

  it('unknown formats and keywords are ignored instead of failing the schema', () => {
    expect(validateOutput({ type: 'string', format: 'email', 'x-ui': 1 }, 'not an email')).toEqual({ kind: 'valid' });
  });
});

describe('outputRetryPrompt', () => {
  it('has the header with attempt k/N, one line per error, the schema and the JSON-only instruction', () => {
    const p = outputRetryPrompt(S, ['/score: must be number'], 1, 2);
    expect(p.split('\n')).toEqual([
      'Your previous response did not match the required output format (attempt 1/2).',
      '',
      'Validation errors:',
      '- /score: must be number',
      '',
      'Please reformat your response as a valid JSON object matching this schema:',
      '```json',
      ...JSON.stringify(S, null, 2).split('\n'),
      '```',
      '',
      'Output ONLY the JSON object, no additional text.',
      '',
    ]);
  });

  it('says "array" for an array schema', () => {
    expect(outputRetryPrompt({ type: 'array' }, ['e'], 1, 1)).toContain('Output ONLY the JSON array, no additional text.');
  });
});

describe('outputCheck: one final agent', () => {
  it('invalid → retry attempt 1/2, then 2/2, then done with outputValid false and the errors (EasyAI §2 case 24)', () => {
    const bad = [{ agent: 'writer', text: '{"score":"high"}' }];
    const r1 = outputCheck(bad, OUT, {});
    expect(r1.kind).toBe('retry');
    if (r1.kind !== 'retry') return;
    expect(r1.retries).toHaveLength(1);
    expect(r1.retries[0]).toMatchObject({ agent: 'writer', attempt: 1, maxRetries: 2 });
    expect(r1.retries[0].prompt).toContain('(attempt 1/2).');
    expect(r1.retries[0].prompt).toContain('\n- /score: must be number\n');
    expect(r1.attempts).toEqual({ writer: 1 });

    const r2 = outputCheck(bad, OUT, r1.attempts);
    expect(r2.kind === 'retry' && r2.retries[0].prompt).toContain('(attempt 2/2).');

    const r3 = outputCheck(bad, OUT, { writer: 2 });
    expect(r3).toMatchObject({ kind: 'done', outputValid: false, outputErrors: ['/score: must be number'], attempts: {} });
    expect(r3.kind === 'done' && 'output' in r3).toBe(false);
  });

  it('invalid, invalid, valid → the parsed value becomes the output and attempts are cleared', () => {
    const r = outputCheck([{ agent: 'w', text: 'Done!\n```json\n{"score": 85}\n```' }], OUT, { w: 2 });
    expect(r).toEqual({
      kind: 'done',
      agents: [{ agent: 'w', valid: true, value: { score: 85 } }],
      output: { score: 85 },
      outputValid: true,
      attempts: {},
    });
  });

  it('no JSON at all → "No valid JSON found in response" (EasyAI §2 case 26)', () => {
    const r = outputCheck([{ agent: 'w', text: 'no json here' }], OUT, {});
    expect(r.kind === 'retry' && r.retries[0].prompt).toContain('\n- No valid JSON found in response\n');
  });

  it('a blank result counts as invalid (EasyAI skipped the check)', () => {
    expect(outputCheck([{ agent: 'w', text: '  ' }], OUT, {}).kind).toBe('retry');
  });

  it('max_retries 0 → done at the first invalid result', () => {
    expect(outputCheck([{ agent: 'w', text: '{}' }], { schema: S, maxRetries: 0 }, {})).toMatchObject({
      kind: 'done',
      outputValid: false,
      outputErrors: ["/: must have required property 'score'"],
    });
  });

  it('a broken schema is not retried (EasyAI burned its retries)', () => {
    const r = outputCheck([{ agent: 'w', text: '{}' }], { schema: { type: 'nonsense' }, maxRetries: 2 }, {});
    expect(r.kind).toBe('done');
    expect(r.kind === 'done' && r.outputErrors?.[0]).toMatch(/^Invalid output schema: /);
  });

  it('uses an injected validator', () => {
    const v: OutputValidator = { validate: () => ({ kind: 'invalid', errors: ['/x: custom'] }) };
    const r = outputCheck([{ agent: 'w', text: '{}' }], OUT, {}, v);
    expect(r.kind === 'retry' && r.retries[0].errors).toEqual(['/x: custom']);
  });
});

describe('outputCheck: several final agents (§11.3)', () => {
  const results = [
    { agent: 'a', text: '{"score": 1}' },
    { agent: 'b', text: '{"score": "x"}' },
  ];

  it('retries only the invalid agent', () => {
    const r = outputCheck(results, OUT, {});
    expect(r.kind).toBe('retry');
    expect(r.kind === 'retry' && r.retries.map((x) => x.agent)).toEqual(['b']);
    expect(r.attempts).toEqual({ b: 1 });
  });

  it('when all are valid, output is an object keyed by agent', () => {
    const r = outputCheck([results[0], { agent: 'b', text: '{"score": 2}' }], OUT, { b: 1 });
    expect(r).toMatchObject({ kind: 'done', output: { a: { score: 1 }, b: { score: 2 } }, outputValid: true });
  });

  it('after max retries, errors are prefixed with the agent and the valid agents stay in output', () => {
    const r = outputCheck(results, OUT, { b: 2 });
    expect(r).toMatchObject({
      kind: 'done',
      output: { a: { score: 1 } },
      outputValid: false,
      outputErrors: ['b: /score: must be number'],
    });
  });
});
