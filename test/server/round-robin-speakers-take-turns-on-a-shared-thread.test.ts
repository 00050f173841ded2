import { startHarness, type Harness } from '../helpers/runs';

describe('round-robin (AutoGen RoundRobinGroupChat)', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => h?.close());

  test('agents speak in turn, each seeing the shared thread, until max_messages', async () => {
    const r = await h.run(`
name: panel
agents:
  alice: { instructions: "Propose." }
  bob: { instructions: "Challenge." }
  carol: { instructions: "Summarize." }
collaboration:
  topology: round-robin
  agents: [alice, bob, carol]
  max_iterations: 5
  termination:
    any_of:
      - max_messages: 5
`);
    expect(r).toMatchObject({ status: 'exhausted', reason: 'max_messages', steps: 5 });
    const order = h.stub.requests.filter((q) => q.kind === 'agent').map((q) => q.agent);
    expect(order).toEqual(['alice', 'bob', 'carol', 'alice', 'bob']);
    const fifth = h.stub.requests[4].prompt;
    expect(fifth).toContain('alice reply 1');
    expect(fifth).toContain('carol reply 1');
    expect(fifth).toContain('alice reply 2');
  });
});
