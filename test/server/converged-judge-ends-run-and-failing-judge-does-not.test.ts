import { startHarness, type Harness } from '../helpers/runs';

const CONFIG = (cap: number) => `
name: judged
agents:
  writer: { instructions: "Write." }
  critic: { instructions: "Critique." }
collaboration:
  topology: review-loop
  agents: [writer, critic]
  max_iterations: ${cap}
  termination:
    any_of:
      - converged: { agent: critic, criteria: "the critic accepts the essay" }
`;

describe('converged condition with the judge activity', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => h?.close());
  beforeEach(() => h.stub.reset());

  test('judge says no, then yes → completed/converged', async () => {
    h.stub.script('judge:critic', [
      { text: JSON.stringify({ converged: false, reason: 'still weak' }) },
      { text: JSON.stringify({ converged: true, reason: 'accepted' }) },
    ]);
    const result = await h.run(CONFIG(5));
    expect(result).toMatchObject({ status: 'completed', reason: 'converged' });
    expect(result.reasonText).toContain('accepted');
    expect(h.stub.hits('critic')).toBe(2);
    expect(h.stub.hits('judge:critic')).toBe(2);
    expect(result.usage.judgeCalls).toBe(2);
    const judgeReq = h.stub.requestsFor('judge:critic')[0];
    expect(judgeReq.responseFormat).toMatchObject({ type: 'json_schema', json_schema: { name: 'convergence_verdict' } });
    expect(judgeReq.prompt).toContain('the critic accepts the essay');
  });

  test('judge failing 3 times → condition false with a warning; the run continues to its cap', async () => {
    h.stub.script('judge:critic', [{ status: 500, errorMessage: 'judge down' }]);
    const result = await h.run(CONFIG(2));
    expect(result).toMatchObject({ status: 'exhausted', reason: 'max_iterations' });
    expect(h.stub.hits('critic')).toBe(2);
    expect(h.stub.hits('judge:critic')).toBe(6);
    expect(result.warnings.filter((w) => w.includes('judge for critic failed'))).toHaveLength(2);
  }, 60_000);
});
