/**
 * `regex` matchers read the result with its line structure kept (CRLF → LF, trailing spaces trimmed),
 * so `^`/`$` with the `m` flag anchor to lines; `contains` and hashes still read the normalized text.
 */
import { startHarness, type Harness } from '../helpers/runs';

describe('regex matchers and line structure', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => h?.close());
  beforeEach(() => h.stub.reset());

  const config = (regex: string, flags: string) => `
name: verdict
agents:
  writer: { instructions: "Write." }
  critic: { instructions: "Critique." }
collaboration:
  topology: review-loop
  agents: [writer, critic]
  max_iterations: 4
  termination:
    any_of:
      - result_matches: { agent: critic, regex: ${JSON.stringify(regex)}, flags: ${flags} }
`;

  test('^Verdict: ship$ with flag m matches a line of a multi-line result (CRLF, trailing spaces)', async () => {
    h.stub.script('critic', [{ text: 'Notes.\nVerdict: revise\n' }, { text: 'Notes.  \r\nVerdict: ship   \r\nThanks.\r\n' }]);
    const r = await h.run(config('^Verdict: ship$', 'm'));
    expect(r).toMatchObject({ status: 'completed', reason: 'result_match', steps: 4 });
    expect(r.reasonText).toBe('result_match: critic matches /^Verdict: ship$/m');
  });

  test('without m, $ anchors at the end of the result, trailing line breaks aside', async () => {
    h.stub.script('critic', [{ text: 'Verdict: ship\nThanks.' }, { text: 'Notes.\nVerdict: ship\n\n' }]);
    const r = await h.run(config('ship$', '""'));
    expect(r).toMatchObject({ status: 'completed', reason: 'result_match', steps: 4 });
  });
});
