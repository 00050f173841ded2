import { MAX_CALL_TOKENS, readReportedUsage, REPORTED_USAGE_TEXTS as WHY } from '../../../../src/core/llm/reported-usage';

describe('readReportedUsage', () => {
  it('takes whole counts from 0, with the total as reported or as the sum', () => {
    expect(readReportedUsage({ prompt_tokens: 12, completion_tokens: 3, total_tokens: 15 })).toEqual({ kind: 'reported', usage: { promptTokens: 12, completionTokens: 3, totalTokens: 15 } });
    expect(readReportedUsage({ prompt_tokens: 0, completion_tokens: 0 })).toEqual({ kind: 'reported', usage: { promptTokens: 0, completionTokens: 0, totalTokens: 0 } });
    expect(readReportedUsage({ prompt_tokens: 12, completion_tokens: 3, total_tokens: null })).toEqual({ kind: 'reported', usage: { promptTokens: 12, completionTokens: 3, totalTokens: 15 } });
  });

  it('takes a total above its parts (a provider may count reasoning tokens there alone)', () => {
    expect(readReportedUsage({ prompt_tokens: 12, completion_tokens: 3, total_tokens: 40 })).toEqual({ kind: 'reported', usage: { promptTokens: 12, completionTokens: 3, totalTokens: 40 } });
  });

  it('takes the bound itself', () => {
    expect(readReportedUsage({ prompt_tokens: MAX_CALL_TOKENS - 1, completion_tokens: 1, total_tokens: MAX_CALL_TOKENS }).kind).toBe('reported');
  });

  it('says none was reported for undefined and null', () => {
    expect(readReportedUsage(undefined)).toEqual({ kind: 'absent' });
    expect(readReportedUsage(null)).toEqual({ kind: 'absent' });
  });

  it.each([
    ['a string', '00NaN', WHY.notObject('"00NaN"')],
    ['a number', 5, WHY.notObject('5')],
    ['an array', [1, 2], WHY.notObject('[1,2]')],
    ['an empty object', {}, WHY.notCount('prompt_tokens', 'missing')],
    ['a negative count', { prompt_tokens: -1_000_000, completion_tokens: -5 }, WHY.notCount('prompt_tokens', '-1000000')],
    ['a string count', { prompt_tokens: '00NaN', completion_tokens: 1 }, WHY.notCount('prompt_tokens', '"00NaN"')],
    ['a numeric string', { prompt_tokens: '12', completion_tokens: 1 }, WHY.notCount('prompt_tokens', '"12"')],
    ['an object count', { prompt_tokens: 1, completion_tokens: {} }, WHY.notCount('completion_tokens', '{}')],
    ['a null count', { prompt_tokens: 1, completion_tokens: null }, WHY.notCount('completion_tokens', 'null')],
    ['a fraction', { prompt_tokens: 1.5, completion_tokens: 1 }, WHY.notCount('prompt_tokens', '1.5')],
    ['NaN', { prompt_tokens: Number.NaN, completion_tokens: 1 }, WHY.notCount('prompt_tokens', 'null')],
    ['Infinity', { prompt_tokens: 1, completion_tokens: Number.POSITIVE_INFINITY }, WHY.notCount('completion_tokens', 'null')],
    ['1e308', { prompt_tokens: 1e308, completion_tokens: 1e308, total_tokens: 1e308 }, WHY.overBound('prompt_tokens', '1e+308', MAX_CALL_TOKENS)],
    ['a completion past the bound', { prompt_tokens: 1, completion_tokens: MAX_CALL_TOKENS + 1 }, WHY.overBound('completion_tokens', String(MAX_CALL_TOKENS + 1), MAX_CALL_TOKENS)],
    ['a sum past the bound', { prompt_tokens: MAX_CALL_TOKENS, completion_tokens: 1 }, WHY.overBound('prompt_tokens + completion_tokens', String(MAX_CALL_TOKENS + 1), MAX_CALL_TOKENS)],
    ['a total past the bound', { prompt_tokens: 1, completion_tokens: 1, total_tokens: MAX_CALL_TOKENS + 1 }, WHY.overBound('total_tokens', String(MAX_CALL_TOKENS + 1), MAX_CALL_TOKENS)],
    ['a total below its parts', { prompt_tokens: 400, completion_tokens: 100, total_tokens: 3 }, WHY.totalBelow(3, 500)],
    ['a negative total', { prompt_tokens: 4, completion_tokens: 1, total_tokens: -5 }, WHY.notCount('total_tokens', '-5')],
  ])('is no usage: %s', (_, usage, why) => {
    expect(readReportedUsage(usage)).toEqual({ kind: 'nonsense', why });
  });

  it('quotes at most 40 characters of what the endpoint sent', () => {
    const result = readReportedUsage({ prompt_tokens: 'x'.repeat(10_000), completion_tokens: 1 });
    expect(result).toEqual({ kind: 'nonsense', why: WHY.notCount('prompt_tokens', `"${'x'.repeat(39)}…`) });
  });
});
