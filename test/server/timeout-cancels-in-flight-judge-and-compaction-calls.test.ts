/**
 * The `timeout_ms` timer covers every call a wave has in flight: a slow convergence judge and a slow
 * compaction are cancelled (their HTTP requests aborted) when it fires, and the run ends
 * exhausted/timeout promptly instead of overrunning by the call's whole duration.
 */
import { startHarness, type Harness } from '../helpers/runs';

describe('timeout_ms and the calls around an agent', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => h?.close());
  beforeEach(() => h.stub.reset());

  test('a judge call in flight when the timer fires is aborted and the run ends within a second', async () => {
    h.stub.script('judge:critic', [{ hang: true }]);
    const started = Date.now();
    const r = await h.run(`
name: slow-judge
agents:
  writer: { instructions: "Write." }
  critic: { instructions: "Critique." }
collaboration:
  topology: review-loop
  agents: [writer, critic]
  max_iterations: 10
  termination:
    any_of:
      - converged: critic
      - timeout_ms: 2000
`);
    const ended = Date.now();
    expect(r).toMatchObject({ status: 'exhausted', reason: 'timeout' });
    const judge = h.stub.requestsFor('judge:critic')[0];
    await h.stub.waitFor(() => judge.aborted, { timeoutMs: 5000, message: 'the judge request was not aborted' });
    expect(judge.abortedAt! - judge.startedAt).toBeLessThan(3000);
    expect(ended - started).toBeLessThan(2000 + 3000);
    expect(r.warnings.filter((w) => w.includes('judge'))).toEqual([]);
  });

  test('a compaction call in flight when the timer fires is aborted too', async () => {
    h.stub.script('compaction:writer', [{ hang: true }]);
    h.stub.script('writer', [{ text: 'w'.repeat(3000) }]);
    const r = await h.run(`
name: slow-compaction
model: { name: gpt-4o-mini, context_window: 1200, max_tokens: 100 }
agents:
  writer: { instructions: "Write." }
  critic: { instructions: "Critique." }
collaboration:
  topology: review-loop
  agents: [writer, critic]
  max_iterations: 10
  termination:
    any_of:
      - timeout_ms: 2000
`);
    expect(r).toMatchObject({ status: 'exhausted', reason: 'timeout' });
    const compaction = h.stub.requestsFor('compaction:*')[0];
    expect(compaction).toBeDefined();
    await h.stub.waitFor(() => compaction.aborted, { timeoutMs: 5000, message: 'the compaction request was not aborted' });
  });
});
