import { main } from '../../src/cli/main';
import { startHarness, waitForStatus, type Harness } from '../helpers/runs';
import { testAddress } from '../helpers/temporal';
import { stubGate } from '../helpers/stub-llm';

const loop = (termination = '') => `
name: steer
agents:
  writer: { instructions: "Write.", timeout_ms: 20000 }
  critic: { instructions: "Critique.", timeout_ms: 20000 }
collaboration:
  topology: review-loop
  agents: [writer, critic]
  max_iterations: 10
${termination}
`;

describe('troupe cancel aborts in-flight calls; troupe stop lets them finish', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
    process.env.TEMPORAL_ADDRESS = testAddress();
  });
  afterAll(async () => h?.close());
  beforeEach(() => h.stub.reset());

  test('`troupe cancel` during a slow critic call: the stub sees it aborted within a second → cancelled/user_abort, the writer result kept', async () => {
    h.stub.script('writer', [{ text: 'draft 1' }]);
    h.stub.script('critic', [{ hang: true }]);
    const handle = await h.start(loop());
    const [critic] = await h.stub.waitForRequests(1, 'critic');
    await waitForStatus(handle, (s) => s.inFlight.includes('critic'));

    const cancelledAt = Date.now();
    expect(await main(['cancel', handle.workflowId])).toBe(0);
    const r = await handle.result();
    await h.stub.waitFor(() => critic.aborted, { timeoutMs: 5000, message: 'the critic request was not aborted' });

    expect(critic.abortedAt! - cancelledAt).toBeLessThan(1000);
    expect(r).toMatchObject({ status: 'cancelled', reason: 'user_abort', steps: 1 });
    expect(r.results.writer).toMatchObject({ text: 'draft 1', count: 1 });
    expect(r.results.critic).toBeUndefined();
    expect(r.usage.agentCalls).toBe(1);
    expect(h.stub.hits('critic')).toBe(1);
    const described = await handle.describe();
    expect(described.status.name).toBe('COMPLETED');
    expect(described.memo).toMatchObject({ troupeStatus: 'cancelled', troupeReason: 'user_abort' });
  });

  test('`troupe stop` during the writer\'s 2nd call waits for it (not aborted) → cancelled/user_stop with that result recorded', async () => {
    // the 2nd writer reply is held until `stop` is in: the stop lands while that call is in flight
    const gate = stubGate();
    h.stub.script('writer', [{ text: 'draft 1' }, gate.hold({ text: 'draft 2' })]);
    h.stub.script('critic', [{ text: 'critique 1' }]);
    const handle = await h.start(loop());
    await h.stub.waitForRequests(2, 'writer');

    expect(await main(['stop', handle.workflowId, '--reason', 'good enough'])).toBe(0);
    gate.open();
    const r = await handle.result();

    const second = h.stub.requestsFor('writer')[1];
    expect(second).toMatchObject({ aborted: false, status: 200 });
    expect(r).toMatchObject({
      status: 'cancelled',
      reason: 'user_stop',
      reasonText: 'user_stop: stopped by the user (good enough)',
      steps: 3,
    });
    expect(r.results.writer).toMatchObject({ text: 'draft 2', count: 2 });
    expect(r.results.critic).toMatchObject({ text: 'critique 1', count: 1 });
    expect(h.stub.hits()).toBe(3);
  });

  test('`troupe stop` during a wave that would converge: no judge call is made and the run still ends cancelled/user_stop', async () => {
    const gate = stubGate();
    h.stub.script('writer', [{ text: 'draft 1' }]);
    h.stub.script('critic', [gate.hold({ text: 'looks done' })]);
    h.stub.script('judge:critic', [{ text: JSON.stringify({ converged: true, reason: 'done' }) }]);
    const handle = await h.start(
      loop(`  termination:
    any_of:
      - converged: critic`),
    );
    await h.stub.waitForRequests(1, 'critic');

    expect(await main(['stop', handle.workflowId])).toBe(0);
    gate.open();
    const r = await handle.result();

    expect(r).toMatchObject({ status: 'cancelled', reason: 'user_stop', steps: 2 });
    expect(r.results.critic.text).toBe('looks done');
    expect(h.stub.requestsFor('critic')[0].aborted).toBe(false);
    expect(h.stub.hits('judge:*')).toBe(0);
    expect(h.stub.hits()).toBe(2);
  });

  test('`troupe stop` during the last wave of a pipeline ends cancelled/user_stop, not completed', async () => {
    const gate = stubGate();
    h.stub.script('writer', [gate.hold({ text: 'the only draft' })]);
    const handle = await h.start(`
name: one-shot
agents:
  writer: { instructions: "Write." }
collaboration:
  topology: pipeline
  agents: [writer]
`);
    await h.stub.waitForRequests(1, 'writer');
    expect(await main(['stop', handle.workflowId])).toBe(0);
    gate.open();
    const r = await handle.result();
    expect(r).toMatchObject({ status: 'cancelled', reason: 'user_stop', finalText: 'the only draft' });
    expect(h.stub.requestsFor('writer')[0].aborted).toBe(false);
  });
});
