import { main } from '../../src/cli/main';
import { startHarness, waitForStatus, type Harness } from '../helpers/runs';
import { testAddress } from '../helpers/temporal';
import { stubGate } from '../helpers/stub-llm';

const loop = (termination: string, extra = '') => `
name: cond
agents:
  writer: { instructions: "Write." }
  critic: { instructions: "Critique." }
collaboration:
  topology: review-loop
  agents: [writer, critic]
  max_iterations: 8
  ${extra}
  termination:
${termination}
`;

describe('termination conditions', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => h?.close());
  beforeEach(() => h.stub.reset());

  test('stuck: the same agent repeating identical output 3 times → exhausted/stuck', async () => {
    h.stub.script('writer', [{ text: 'a' }, { text: 'same  text' }, { text: 'same text' }, { text: 'same text' }]);
    const r = await h.run(loop(`    any_of:
      - stuck: { repeats: 3, agent: writer }`));
    expect(r).toMatchObject({ status: 'exhausted', reason: 'stuck' });
    expect(h.stub.hits('writer')).toBe(4);
    expect(h.stub.hits('critic')).toBe(3);
  });

  test('result_matches no_changes: the critic repeats its previous result → completed/result_match', async () => {
    h.stub.script('critic', [{ text: 'fix intro' }, { text: 'fix outro' }, { text: 'fix outro' }]);
    const r = await h.run(loop(`    any_of:
      - result_matches: { agent: critic, no_changes: true }`));
    expect(r).toMatchObject({ status: 'completed', reason: 'result_match' });
    expect(h.stub.hits('critic')).toBe(3);
  });

  test('text_mention with sources is not triggered by the task text, only by the named source', async () => {
    h.stub.script('writer', [{ text: 'I APPROVE of nothing' }]);
    h.stub.script('critic', [{ text: 'needs work' }, { text: 'APPROVE' }]);
    const r = await h.run(
      loop(`    any_of:
      - text_mention: { text: APPROVE, sources: [critic] }`),
      { task: 'Write until the critic says APPROVE' },
    );
    expect(r).toMatchObject({ status: 'completed', reason: 'text_mention' });
    expect(h.stub.hits('critic')).toBe(2);
    expect(h.stub.hits('writer')).toBe(2);
  });

  test('max_messages counts agent results in the round → exhausted/max_messages', async () => {
    const r = await h.run(loop(`    any_of:
      - max_messages: 5`));
    expect(r).toMatchObject({ status: 'exhausted', reason: 'max_messages' });
    expect(r.steps).toBe(5);
  });

  test('an all_of of max_iterations and result_matches needs both', async () => {
    h.stub.script('critic', [{ text: 'APPROVED' }]);
    const r = await h.run(loop(`    all_of:
      - max_iterations: 3
      - result_matches: { agent: critic, contains: APPROVED }`));
    expect(r).toMatchObject({ status: 'completed', reason: 'result_match' });
    expect(h.stub.hits('critic')).toBe(3);
  });

  test('two conditions at once → the reason with the better priority', async () => {
    h.stub.script('critic', [{ text: 'x' }, { text: 'score: 95' }]);
    const r = await h.run(loop(`    any_of:
      - max_iterations: 2
      - result_matches: { agent: critic, score_gte: 90 }`));
    expect(r).toMatchObject({ status: 'completed', reason: 'result_match' });
    expect(h.stub.hits('critic')).toBe(2);
  });

  test('signal_observed fires when `troupe signal` sends that type, at the end of the wave it arrived in', async () => {
    // the critic's 2nd reply is held until the signal is in: the run ends after that wave (step 4)
    const gate = stubGate();
    h.stub.script('critic', [{ text: 'waiting' }, gate.hold({ text: 'waiting' })]);
    const handle = await h.start(loop(`    any_of:
      - signal_observed: shipit`, ''));
    await h.stub.waitForRequests(2, 'critic');
    const before = await waitForStatus(handle, (s) => s.inFlight.includes('critic') && s.steps === 3);
    expect(before.phase).toBe('running');
    process.env.TEMPORAL_ADDRESS = testAddress();
    const code = await main(['signal', handle.workflowId, 'shipit', '--payload', '{"by":"alice"}']);
    expect(code).toBe(0);
    gate.open();
    const r = await handle.result();
    expect(r).toMatchObject({ status: 'completed', reason: 'signal', steps: 4 });
    expect(r.signals).toEqual([expect.objectContaining({ type: 'shipit', payload: { by: 'alice' } })]);
    expect(h.stub.hits('writer')).toBe(2);
  });
});
