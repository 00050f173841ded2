import { parseCondition, parseConditionList } from '../../../../src/core/conditions/parse';
import { clearRegisteredConditions, registerCondition } from '../../../../src/core/conditions/registry';

const ok = (item: unknown) => {
  const r = parseCondition(item);
  expect(r.issues).toEqual([]);
  return r.condition;
};
const issues = (item: unknown) => {
  const r = parseCondition(item);
  expect(r.condition).toBeUndefined();
  return r.issues;
};

afterEach(() => clearRegisteredConditions());

describe('condition items become compiled conditions', () => {
  it('parses rolebox case 20: five mixed conditions in order', () => {
    const r = parseConditionList([
      { max_iterations: 2 },
      { converged: 'reviewer' },
      { stuck: { repeats: 3 } },
      { timeout_ms: 30000 },
      { result_matches: { agent: 'reviewer', regex: 'PASS', score_gte: 80, no_changes: true } },
    ]);
    expect(r.issues).toEqual([]);
    expect(r.conditions).toEqual([
      { kind: 'max_iterations', n: 2 },
      { kind: 'converged', agent: 'reviewer' },
      { kind: 'stuck', repeats: 3 },
      { kind: 'timeout_ms', ms: 30000 },
      { kind: 'result_matches', agent: 'reviewer', regex: 'PASS', scoreGte: 80, noChanges: true },
    ]);
  });

  it('parses the object forms of converged, stuck, text_mention and token_usage', () => {
    expect(ok({ converged: { agent: 'critic', criteria: 'the essay is publishable' } })).toEqual({
      kind: 'converged',
      agent: 'critic',
      criteria: 'the essay is publishable',
    });
    expect(ok({ stuck: { repeats: 2, agent: 'writer' } })).toEqual({ kind: 'stuck', repeats: 2, agent: 'writer' });
    expect(ok({ text_mention: 'TERMINATE' })).toEqual({ kind: 'text_mention', text: 'TERMINATE' });
    expect(ok({ text_mention: { text: 'DONE', sources: ['critic'] } })).toEqual({ kind: 'text_mention', text: 'DONE', sources: ['critic'] });
    expect(ok({ token_usage: { max_total_tokens: 1000 } })).toEqual({ kind: 'token_usage', maxTotalTokens: 1000 });
    expect(ok({ max_messages: 6 })).toEqual({ kind: 'max_messages', n: 6 });
    expect(ok({ result_matches: { agent: 'c', contains: 'OK', regex: 'ok', flags: 'imsu' } })).toEqual({
      kind: 'result_matches',
      agent: 'c',
      contains: 'OK',
      regex: 'ok',
      flags: 'imsu',
    });
  });

  it('accepts signal_observed as a key and as the string "signal_observed(type)"', () => {
    expect(ok({ signal_observed: 'approved' })).toEqual({ kind: 'signal_observed', type: 'approved' });
    expect(ok('signal_observed(answer)')).toEqual({ kind: 'signal_observed', type: 'answer' });
    expect(ok('  signal_observed( ship_it )  ')).toEqual({ kind: 'signal_observed', type: 'ship_it' });
  });

  it('nests any_of and all_of', () => {
    expect(ok({ any_of: [{ max_iterations: 3 }, { all_of: [{ converged: 'a' }, { stuck: { repeats: 2 } }] }] })).toEqual({
      kind: 'any_of',
      items: [
        { kind: 'max_iterations', n: 3 },
        { kind: 'all_of', items: [{ kind: 'converged', agent: 'a' }, { kind: 'stuck', repeats: 2 }] },
      ],
    });
  });
});

describe('condition errors (troupe reports what rolebox skipped)', () => {
  it('rejects an item with two keys instead of keeping the first (rolebox case 22)', () => {
    expect(issues({ max_iterations: 3, timeout_ms: 5 })).toEqual([
      { path: [], message: 'a condition has exactly one key, got 2 (max_iterations, timeout_ms); put each condition in its own list item' },
    ]);
    expect(issues({ max_iterations: 5, unknown_extra: 'x' })[0].message).toMatch(/exactly one key, got 2/);
  });

  it('rejects an empty item and non-object items', () => {
    expect(issues({})).toEqual([{ path: [], message: 'empty condition: needs exactly one key' }]);
    expect(issues(5)).toEqual([
      { path: [], message: 'expected a condition (an object with one key, or "signal_observed(type)"), got number' },
    ]);
    expect(issues(['max_iterations'])[0].message).toMatch(/got array$/);
  });

  it('rejects an unknown key at the key, with a did-you-mean hint (rolebox skipped it)', () => {
    expect(issues({ stuk: { repeats: 2 } })).toEqual([
      { path: ['stuk'], message: 'unknown condition "stuk" (did you mean "stuck"?)', at: 'key' },
    ]);
    expect(issues({ unknown_future_cond: {} })).toEqual([
      { path: ['unknown_future_cond'], message: 'unknown condition "unknown_future_cond"', at: 'key' },
    ]);
  });

  it('rejects strings other than signal_observed(type), and quoted signal types', () => {
    expect(issues('max_iterations(3)')[0].message).toBe(
      '"max_iterations(3)" is not a condition; write an object with one key (e.g. max_iterations: 5) or "signal_observed(type)"',
    );
    expect(issues('signal_observed("answer")')).toEqual([{ path: [], message: 'must match [a-z][a-z0-9_]*' }]);
  });

  it('rejects stuck.repeats below 2 and non-integer counts; a max_iterations cap is an integer >= 1', () => {
    expect(issues({ stuck: { repeats: 1 } })).toEqual([{ path: ['stuck', 'repeats'], message: 'must be an integer >= 2' }]);
    expect(issues({ stuck: { repeats: 2.5 } })).toEqual([{ path: ['stuck', 'repeats'], message: 'must be an integer >= 2' }]);
    expect(issues({ max_iterations: 0 })).toEqual([{ path: ['max_iterations'], message: 'must be an integer >= 1' }]);
    expect(issues({ max_iterations: -2 })).toEqual([{ path: ['max_iterations'], message: 'must be an integer >= 1' }]);
    expect(issues({ max_iterations: 2.5 })).toEqual([{ path: ['max_iterations'], message: 'must be an integer >= 1' }]);
    expect(issues({ max_iterations: '3' })).toEqual([{ path: ['max_iterations'], message: 'expected number, got string' }]);
    expect(issues({ timeout_ms: '1m' })).toEqual([{ path: ['timeout_ms'], message: 'expected number, got string' }]);
  });

  it('names an invalid regex and checks it with its flags', () => {
    expect(issues({ result_matches: { agent: 'a', regex: '[unclosed' } })).toEqual([
      { path: ['result_matches', 'regex'], message: 'invalid regex "[unclosed": Unterminated character class' },
    ]);
    expect(issues({ result_matches: { agent: 'a', regex: '\\-', flags: 'u' } })[0].path).toEqual(['result_matches', 'regex']);
    expect(ok({ result_matches: { agent: 'a', regex: '\\-' } })).toMatchObject({ regex: '\\-' });
  });

  it('allows only the flags i, m, s, u, each once, and only with a regex', () => {
    expect(issues({ result_matches: { agent: 'a', regex: 'x', flags: 'g' } })).toEqual([
      { path: ['result_matches', 'flags'], message: 'may use only the flags i, m, s, u' },
    ]);
    expect(issues({ result_matches: { agent: 'a', regex: 'x', flags: 'ii' } })).toEqual([
      { path: ['result_matches', 'flags'], message: 'flags "ii" repeat a letter' },
    ]);
    expect(issues({ result_matches: { agent: 'a', contains: 'x', flags: 'i' } })).toEqual([
      { path: ['result_matches', 'flags'], message: 'flags apply only to regex; add a regex or remove flags' },
    ]);
  });

  it('needs at least one matcher in result_matches (rolebox accepted none, and it never held), and reports unknown keys inside it with a hint', () => {
    expect(issues({ result_matches: { agent: 'a' } })).toEqual([
      { path: ['result_matches'], message: 'needs at least one of contains, regex, score_gte, no_changes (without one it could never hold)' },
    ]);
    expect(issues({ result_matches: { agent: 'a', score_gt: 80 } })).toContainEqual({
      path: ['result_matches', 'score_gt'],
      message: 'unknown key "score_gt" (did you mean "score_gte"?)',
      at: 'key',
    });
  });

  it('explains a converged value of the wrong type', () => {
    expect(issues({ converged: 42 })).toEqual([{ path: ['converged'], message: 'expected string or object, got number' }]);
    expect(issues({ converged: { criteria: 'done' } })).toEqual([{ path: ['converged', 'agent'], message: 'required' }]);
  });

  it('rejects an empty or non-list any_of/all_of, with paths into nested items', () => {
    expect(issues({ any_of: [] })).toEqual([{ path: ['any_of'], message: 'must list at least one condition' }]);
    expect(issues({ all_of: { max_iterations: 3 } })).toEqual([{ path: ['all_of'], message: 'expected array, got object' }]);
    expect(issues({ any_of: [{ max_iterations: 3 }, { all_of: [{ stuck: { repeats: 1 } }] }] })).toEqual([
      { path: ['any_of', 1, 'all_of', 0, 'stuck', 'repeats'], message: 'must be an integer >= 2' },
    ]);
  });

  it('prefixes list issues with the item index and keeps the valid items', () => {
    const r = parseConditionList([{ max_iterations: 5 }, { unknown_future_cond: {} }, { stuck: { repeats: 2 } }]);
    expect(r.conditions).toEqual([{ kind: 'max_iterations', n: 5 }, { kind: 'stuck', repeats: 2 }]);
    expect(r.issues).toEqual([{ path: [1, 'unknown_future_cond'], message: 'unknown condition "unknown_future_cond"', at: 'key' }]);
  });
});

describe('the agents an item names are read even when the item is invalid', () => {
  const named = (item: unknown) => parseCondition(item).agents.map((m) => [m.kind, m.agent, m.path, m.item]);

  it('reads converged (both forms), result_matches, stuck and text_mention sources, trimmed', () => {
    expect(named({ converged: ' critic ' })).toEqual([['converged', 'critic', ['converged', 'agent'], []]]);
    expect(named({ converged: { agent: 'critic', criteria: 'done' } })).toEqual([['converged', 'critic', ['converged', 'agent'], []]]);
    expect(named({ stuck: { repeats: 2, agent: 'w' } })).toEqual([['stuck', 'w', ['stuck', 'agent'], []]]);
    expect(named({ text_mention: { text: 'DONE', sources: ['a', 'b'] } })).toEqual([
      ['text_mention', 'a', ['text_mention', 'sources', 0], []],
      ['text_mention', 'b', ['text_mention', 'sources', 1], []],
    ]);
    expect(named({ max_messages: 3 })).toEqual([]);
  });

  it('reads them from an item the schema rejects, from nested items beside a failing sibling, and from each key of a multi-key item', () => {
    const r = parseCondition({ result_matches: { agent: 'critc', score_gte: 'high' } });
    expect(r.condition).toBeUndefined();
    expect(r.agents).toEqual([{ kind: 'result_matches', agent: 'critc', path: ['result_matches', 'agent'], item: [] }]);
    expect(named({ any_of: [{ stuk: 1 }, { all_of: [{ converged: 'x' }] }] })).toEqual([
      ['converged', 'x', ['any_of', 1, 'all_of', 0, 'converged', 'agent'], ['any_of', 1, 'all_of', 0]],
    ]);
    expect(named({ converged: 'a', stuck: { repeats: 1, agent: 'b' } })).toEqual([
      ['converged', 'a', ['converged', 'agent'], []],
      ['stuck', 'b', ['stuck', 'agent'], []],
    ]);
  });

  it('skips values that are not names (their type errors are reported instead)', () => {
    expect(named({ converged: 42 })).toEqual([]);
    expect(named({ converged: '' })).toEqual([]);
    expect(named({ text_mention: { text: 'x', sources: [1, 'ok'] } })).toEqual([['text_mention', 'ok', ['text_mention', 'sources', 1], []]]);
  });
});

describe('custom conditions from registerCondition are reachable from YAML', () => {
  const plugin = {
    parse: (v: unknown) =>
      typeof v === 'number' && v > 0 ? { ok: true as const, params: { n: v } } : { ok: false as const, message: 'must be a positive number' },
    holds: () => false,
    reason: 'approvals',
    priority: 1,
  };

  it('parses a registered key into a custom condition', () => {
    registerCondition('approvals', plugin);
    expect(ok({ approvals: 2 })).toEqual({ kind: 'custom', key: 'approvals', params: { n: 2 } });
  });

  it('reports the plugin parse message at the key path', () => {
    registerCondition('approvals', plugin);
    expect(issues({ approvals: -1 })).toEqual([{ path: ['approvals'], message: 'must be a positive number' }]);
  });

  it('reports a throwing plugin parse as an issue, not an exception', () => {
    registerCondition('boom', { ...plugin, parse: () => { throw new Error('kaboom'); } });
    expect(issues({ boom: 1 })).toEqual([{ path: ['boom'], message: 'kaboom' }]);
  });

  it('suggests registered keys for typos', () => {
    registerCondition('approvals', plugin);
    expect(issues({ aprovals: 2 })[0].message).toBe('unknown condition "aprovals" (did you mean "approvals"?)');
  });
});
