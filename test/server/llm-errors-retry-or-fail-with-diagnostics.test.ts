import { startHarness, type Harness } from '../helpers/runs';

const ONE = `
name: solo
agents:
  writer: { instructions: "Write." }
collaboration:
  topology: pipeline
  agents: [writer]
`;

describe('LLM errors and Temporal retries', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => h?.close());
  beforeEach(() => h.stub.reset());

  test('500, 500, 200 → 3 stub hits and success', async () => {
    h.stub.script('writer', [{ status: 500 }, { status: 500 }, { text: 'finally' }]);
    const r = await h.run(ONE);
    expect(r).toMatchObject({ status: 'completed', reason: 'exit', finalText: 'finally' });
    expect(h.stub.hits('writer')).toBe(3);
  });

  test('500 three times → failed/activity_failed with diagnostics', async () => {
    h.stub.script('writer', [{ status: 500, errorMessage: 'upstream exploded' }]);
    const r = await h.run(ONE);
    expect(r).toMatchObject({ status: 'failed', reason: 'activity_failed' });
    expect(h.stub.hits('writer')).toBe(3);
    expect(r.diagnostics).toMatchObject({ status: 500, agent: 'writer' });
    expect(r.diagnostics?.requestId).toMatch(/^req_\d+$/);
  });

  test('401 → 1 hit, failed/fatal_error with the request id in diagnostics', async () => {
    h.stub.script('writer', [{ status: 401, errorMessage: 'Incorrect API key provided' }]);
    const r = await h.run(ONE);
    expect(r).toMatchObject({ status: 'failed', reason: 'fatal_error' });
    expect(h.stub.hits('writer')).toBe(1);
    const id = h.stub.requestsFor('writer')[0].id;
    expect(r.diagnostics).toMatchObject({ status: 401, requestId: id, agent: 'writer' });
    expect(r.reasonText).toContain(id);
  });

  test('a failure keeps the results completed before it', async () => {
    h.stub.script('writer', [{ text: 'draft ok' }]);
    h.stub.script('critic', [{ status: 403, errorMessage: 'forbidden' }]);
    const r = await h.run(`
name: two
agents:
  writer: { instructions: "Write." }
  critic: { instructions: "Critique." }
collaboration:
  topology: pipeline
  agents: [writer, critic]
`);
    expect(r).toMatchObject({ status: 'failed', reason: 'fatal_error' });
    expect(r.results.writer.text).toBe('draft ok');
    expect(r.steps).toBe(1);
  });
});
