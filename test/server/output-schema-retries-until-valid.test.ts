import { startHarness, type Harness } from '../helpers/runs';

const CONFIG = `
name: scored
agents:
  grader: { instructions: "Grade the essay. Reply with JSON {score: number}." }
collaboration:
  topology: pipeline
  agents: [grader]
output:
  schema: { type: object, properties: { score: { type: number } }, required: [score] }
  max_retries: 2
`;

describe('output schema check', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => h?.close());
  beforeEach(() => h.stub.reset());

  test('invalid, invalid, valid → the valid output is parsed into `output`', async () => {
    h.stub.script('grader', [
      { text: 'score is high' },
      { text: '{"score": "high"}' },
      { text: 'Here you go:\n```json\n{"score": 91}\n```' },
    ]);
    const r = await h.run(CONFIG);
    expect(r).toMatchObject({ status: 'completed', reason: 'exit', outputValid: true, output: { score: 91 } });
    expect(h.stub.hits('grader')).toBe(3);
    const retry = h.stub.requestsFor('grader')[2];
    expect(retry.prompt).toContain('Your previous response did not match the required output format (attempt 2/2).');
    expect(retry.prompt).toContain('- /score: must be number');
    expect(retry.responseFormat).toMatchObject({ type: 'json_schema' });
  });

  test('invalid three times → outputValid false with the errors', async () => {
    h.stub.script('grader', [{ text: '{"score": "high"}' }]);
    const r = await h.run(CONFIG);
    expect(r.outputValid).toBe(false);
    expect(r.outputErrors).toEqual(['/score: must be number']);
    expect(r.output).toBeUndefined();
    expect(h.stub.hits('grader')).toBe(3);
    const prompts = h.stub.requestsFor('grader').map((q) => q.prompt);
    expect(prompts[1]).toContain('(attempt 1/2)');
    expect(prompts[1]).toContain('- /score: must be number');
    expect(prompts[2]).toContain('(attempt 2/2)');
    expect(r.usage.agentCalls).toBe(3);
  });
});

describe('output schema check under a crossed budget', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => h?.close());

  test('no retry starts once the budget is reached; the output is judged as it stands', async () => {
    h.stub.script('grader', [{ text: '{"score": "high"}' }]);
    const r = await h.run(`${CONFIG}budget:\n  max_agent_calls: 1\n`);
    expect(h.stub.hits('grader')).toBe(1);
    expect(r).toMatchObject({ status: 'completed', reason: 'exit', outputValid: false, outputErrors: ['/score: must be number'] });
  });
});
