/**
 * AutoGen's RoundRobinGroupChat with only MaxMessageTermination(10): a loop with no cap takes its cap
 * from the `max_messages` condition, so the run ends by `max_messages` after exactly 10 agent results,
 * not by the default cap of 3 after 9.
 */
import { compileYaml, startHarness, type Harness } from '../helpers/runs';

const CONFIG = `
name: autogen-round-robin
agents:
  primary: { instructions: "Propose." }
  critic: { instructions: "Critique." }
  editor: { instructions: "Edit." }
collaboration:
  topology: round-robin
  agents: [primary, critic, editor]
  termination:
    any_of:
      - max_messages: 10
`;

describe('round-robin of three with only max_messages: 10', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => h?.close());

  test('ends exhausted/max_messages after exactly 10 messages, speakers in turn', async () => {
    expect(compileYaml(CONFIG).maxIterations).toBeGreaterThan(3);
    const r = await h.run(CONFIG);
    expect(r).toMatchObject({ status: 'exhausted', reason: 'max_messages', reasonText: 'max_messages: 10 agent results >= 10', steps: 10 });
    expect(h.stub.requests.map((q) => q.agent)).toEqual([
      'primary', 'critic', 'editor', 'primary', 'critic', 'editor', 'primary', 'critic', 'editor', 'primary',
    ]);
    expect(r.warnings).toEqual([]);
  });
});
