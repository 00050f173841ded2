import { startHarness, type Harness } from '../helpers/runs';

describe('timeout_ms', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => h?.close());

  test('fires while an agent call is in flight: the call is aborted and the run ends exhausted/timeout promptly', async () => {
    h.stub.script('writer', [{ text: 'draft 1' }, { hang: true }]);
    h.stub.script('critic', [{ text: 'critique 1' }]);
    const result = await h.run(`
name: slow
agents:
  writer: { instructions: "Write.", timeout_ms: 20000 }
  critic: { instructions: "Critique." }
collaboration:
  topology: review-loop
  agents: [writer, critic]
  max_iterations: 10
  termination:
    any_of:
      - timeout_ms: 2500
`);
    expect(result).toMatchObject({ status: 'exhausted', reason: 'timeout' });
    const hung = h.stub.requestsFor('writer')[1];
    await h.stub.waitFor(() => hung.aborted, { timeoutMs: 5000, message: 'the in-flight request was not aborted' });
    expect(hung.aborted).toBe(true);
    // the abort reached the stub promptly after the deadline, not at the 20 s activity timeout
    expect(hung.abortedAt! - h.stub.requestsFor('writer')[0].startedAt).toBeLessThan(8000);
    expect(result.results.writer.text).toBe('draft 1');
    expect(result.activeMs).toBeGreaterThanOrEqual(2500);
  });
});
