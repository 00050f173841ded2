import { startHarness, type Harness } from '../helpers/runs';

const loop = (termination: string, cap = '') => `
name: essay
agents:
  writer: { instructions: "Write and revise the essay." }
  critic: { instructions: "Critique and give score: N." }
collaboration:
  topology: review-loop
  agents: [writer, critic]
  ${cap}
  termination:
${termination}
`;

describe('review-loop writer/critic', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => h?.close());
  beforeEach(() => h.stub.reset());

  test('ends completed/result_match when the critic score meets score_gte 85, after exactly the scripted rounds', async () => {
    h.stub.script('writer', [{ text: 'draft 1' }, { text: 'draft 2' }, { text: 'draft 3' }]);
    h.stub.script('critic', [{ text: 'weak. score: 60' }, { text: 'better. score: 80' }, { text: 'good. **Score:** 85' }]);

    const result = await h.run(
      loop(`    any_of:
      - result_matches: { agent: critic, score_gte: 85 }
      - max_iterations: 10`),
    );

    expect(result.status).toBe('completed');
    expect(result.reason).toBe('result_match');
    expect(result.reasonText).toContain('85');
    expect(h.stub.hits('writer')).toBe(3);
    expect(h.stub.hits('critic')).toBe(3);
    expect(result.finalAgent).toBe('critic');
    expect(result.iterations).toEqual({ 'critic,writer': 3 });
    // the writer's second draft saw the critic's first critique
    expect(h.stub.requestsFor('writer')[1].prompt).toContain('weak. score: 60');
  });

  test('with only a cap of 3 ends exhausted/max_iterations after 3 writer and 3 critic calls', async () => {
    h.stub.script('critic', [{ text: 'meh. score: 10' }]);
    const result = await h.run(loop(`    any_of:
      - max_iterations: 3`));

    expect(result.status).toBe('exhausted');
    expect(result.reason).toBe('max_iterations');
    expect(result.reasonText).toBe('max_iterations: loop critic,writer reached 3');
    expect(h.stub.hits('writer')).toBe(3);
    expect(h.stub.hits('critic')).toBe(3);
  });

  test('a hard cap of 5 and no condition runs writer and critic 5 times each', async () => {
    const result = await h.run(`
name: capped
agents:
  writer: { instructions: "w" }
  critic: { instructions: "c" }
collaboration:
  topology: review-loop
  agents: [writer, critic]
  max_iterations: 5
`);
    expect(result).toMatchObject({ status: 'exhausted', reason: 'max_iterations' });
    expect(h.stub.hits('writer')).toBe(5);
    expect(h.stub.hits('critic')).toBe(5);
  });
});
