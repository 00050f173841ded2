import { formatIssue, loadRoleConfig } from '../../../../src/core/config/load';
import { MAX_PATTERN_LENGTH, REGEX_TEXT_LIMIT, regexText } from '../../../../src/core/config/limits';
import { checkPattern, REGEX_SAFETY_TEXTS } from '../../../../src/core/config/regex-safety';
import { resultMatches, type ResultMatches } from '../../../../src/core/conditions/builtin/result-matches';
import type { TerminationView } from '../../../../src/core/conditions/view';
import { validateOutput } from '../../../../src/core/output/validator';

/** Classic ReDoS patterns (exponential and polynomial), as users and the literature write them. */
const CATASTROPHIC = [
  '(a+)+$',
  '(a|aa)+$',
  '(.*a){20}',
  '^(\\w+\\s?)*$',
  '(a*)*b',
  '^(\\d+)*$',
  '(x+x+)+y',
  '(\\w+\\d+)+C',
  '^(([a-z])+.)+[A-Z]([a-z])+$',
  '\\s+$',
  'a*a*b',
  '(\\s*,\\s*)*$',
  '^([a-zA-Z0-9])(([\\-.]|[_]+)?([a-zA-Z0-9]+))*(@){1}[a-z0-9]+[.]{1}(([a-z]{2,3})|([a-z]{2,3}[.]{1}[a-z]{2,3}))$',
];

/** Patterns people write to read agent results; every one is linear. */
const EVERYDAY: Array<[string, string]> = [
  ['^FAIL', ''],
  ['^APPROVED$', 'm'],
  ['\\bLGTM\\b', 'i'],
  ['score:\\s*(\\d+)', ''],
  ['^verdict: (pass|fail)$', 'm'],
  ['status:\\s*done', 'i'],
  ['[A-Z]{3}-\\d+', ''],
  ['\\d{4}-\\d{2}-\\d{2}', ''],
  ['^- \\[x\\]', 'm'],
  ['https?://\\S+', ''],
  ['^[a-z0-9-]+$', ''],
  ['^(high|medium|low)$', ''],
  ['\\btests? pass(ed)?\\b', 'i'],
];

const role = (termination: string, extra = '') => `name: guarded
agents:
  writer: { instructions: Write. }
  critic: { instructions: Review. }
collaboration:
  topology: review-loop
  agents: [writer, critic]
  max_iterations: 3
  termination:
    any_of:
${termination}
${extra}`;

const errorsOf = (text: string) => loadRoleConfig(text, 'role.yaml').errors.map(formatIssue);

describe('patterns that can backtrack catastrophically are rejected when the role is validated', () => {
  test.each(CATASTROPHIC)('regex %s in a termination condition is a located error', (source) => {
    const text = role(`      - result_matches: { agent: critic, regex: ${JSON.stringify(source)} }`);
    const errors = errorsOf(text);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(
      /^role\.yaml:11:49 collaboration\.termination\.any_of\[0\]\.result_matches\.regex: regex ".*" (can backtrack catastrophically: matching it can take (exponential|quadratic|cubic|degree-\d+ polynomial) time|could not be shown safe from catastrophic backtracking)/,
    );
  });

  test('the message names the complexity and the part of the pattern to blame', () => {
    expect(errorsOf(role('      - result_matches: { agent: critic, regex: "(a+)+$" }'))).toEqual([
      `role.yaml:11:49 collaboration.termination.any_of[0].result_matches.regex: ${REGEX_SAFETY_TEXTS.exponential('regex', '(a+)+$', 'a')}`,
    ]);
    expect(checkPattern('\\s+$', '')).toEqual({ kind: 'polynomial', degree: 2, at: '\\s' });
  });

  test('a when guard and an output schema pattern (and patternProperties key) are checked too, each at its own place', () => {
    const text = `name: guarded
agents:
  writer: { instructions: Write. }
  critic: { instructions: Review. }
collaboration:
  flow:
    - parent -> writer
    - writer -> critic
    - from: critic
      to: writer
      when:
        all_of:
          - result_matches: { agent: critic, regex: "^(a|a)*$", flags: m }
    - critic -> parent
  max_iterations: 2
output:
  schema:
    type: object
    properties:
      title: { type: string, pattern: "^(\\\\w+\\\\s?)*$" }
      tags: { type: array, items: { type: string, pattern: "^[a-z]+$" } }
    patternProperties:
      "(x+x+)+y": { type: string }
`;
    const errors = errorsOf(text);
    expect(errors.map((e) => e.replace(/: .*/s, ''))).toEqual([
      'role.yaml:13:53 collaboration.flow[2].when.all_of[0].result_matches.regex',
      'role.yaml:20:39 output.schema.properties.title.pattern',
      'role.yaml:23:7 output.schema.patternProperties.(x+x+)+y',
    ]);
    expect(errors[1]).toContain('pattern "^(\\w+\\s?)*$" can backtrack catastrophically');
  });

  test('back-references and look-arounds cannot be checked, so they are rejected with the reason', () => {
    expect(errorsOf(role('      - result_matches: { agent: critic, regex: "(\\\\w+)\\\\s\\\\1" }'))).toEqual([
      `role.yaml:11:49 collaboration.termination.any_of[0].result_matches.regex: ${REGEX_SAFETY_TEXTS.unsupported('regex', '(\\w+)\\s\\1', 'back-reference')}`,
    ]);
  });

  test(`a pattern longer than ${MAX_PATTERN_LENGTH} characters is rejected before any analysis`, () => {
    const long = 'a'.repeat(MAX_PATTERN_LENGTH + 1);
    expect(errorsOf(role(`      - result_matches: { agent: critic, regex: "${long}" }`))).toEqual([
      `role.yaml:11:49 collaboration.termination.any_of[0].result_matches.regex: ${REGEX_SAFETY_TEXTS.tooLong('regex', MAX_PATTERN_LENGTH + 1)}`,
    ]);
  });

  test('an output schema ajv cannot compile is an error at load, not at the end of a run', () => {
    const errors = errorsOf(role('      - max_iterations: 3', 'output:\n  schema: { type: nonsense }\n'));
    expect(errors).toEqual([expect.stringMatching(/^role\.yaml:13:3 output\.schema: Invalid output schema: /)]);
  });
});

describe('everyday patterns are accepted', () => {
  test.each(EVERYDAY)('%s (flags %s)', (source, flags) => {
    const text = role(`      - result_matches: { agent: critic, regex: ${JSON.stringify(source)}${flags ? `, flags: ${flags}` : ''} }`);
    expect(errorsOf(text)).toEqual([]);
  });

  test('the examples keep validating', () => {
    expect(checkPattern('^FAIL', '')).toEqual({ kind: 'safe' });
  });
});

describe(`a regex reads at most ${REGEX_TEXT_LIMIT} characters of a text`, () => {
  const view = (text: string): TerminationView =>
    ({ latest: { critic: { text, hash: 'h', lines: text } }, hashes: {}, verdicts: {}, latches: {} }) as unknown as TerminationView;
  const matcher = (regex: string): ResultMatches => ({ kind: 'result_matches', agent: 'critic', regex });

  test('the bound cuts the text to its first characters', () => {
    expect(regexText('x'.repeat(REGEX_TEXT_LIMIT + 10))).toHaveLength(REGEX_TEXT_LIMIT);
    expect(regexText('short')).toBe('short');
  });

  test('a match past the bound does not count; one before it does', () => {
    const filler = 'x'.repeat(REGEX_TEXT_LIMIT);
    expect(resultMatches.holds(matcher('APPROVED'), view(`APPROVED ${filler}`))).toBe(true);
    expect(resultMatches.holds(matcher('APPROVED'), view(`${filler} APPROVED`))).toBe(false);
  });

  test('a quadratic pattern that escaped validation only ever runs on the bounded text of a long hostile result', () => {
    // on the 64 KiB a result may hold it takes over a second; on the bounded text, milliseconds. What
    // the pattern is run on is asserted, not the time it takes (a timed test flakes on a busy machine).
    const hostile = ' '.repeat(64 * 1024);
    const exec = jest.spyOn(RegExp.prototype, 'exec');
    try {
      expect(resultMatches.holds(matcher('\\s+x'), view(hostile))).toBe(false);
      const lengths = exec.mock.calls.map(([text]) => String(text).length);
      expect(lengths.length).toBeGreaterThan(0);
      expect(Math.max(...lengths)).toBeLessThanOrEqual(REGEX_TEXT_LIMIT);
    } finally {
      exec.mockRestore();
    }
  });

  test('an output-schema string longer than the bound fails its pattern, and the error says why', () => {
    const long = 'a'.repeat(REGEX_TEXT_LIMIT + 1);
    const schema = { type: 'object', properties: { name: { type: 'string', pattern: '^a+$' } } };
    expect(validateOutput(schema, { name: 'aaa' })).toEqual({ kind: 'valid' });
    expect(validateOutput(schema, { name: long })).toEqual({
      kind: 'invalid',
      errors: [`/name: must match pattern "^a+$" (the text is ${REGEX_TEXT_LIMIT + 1} characters long; patterns are tested on at most ${REGEX_TEXT_LIMIT})`],
    });
  });
});
