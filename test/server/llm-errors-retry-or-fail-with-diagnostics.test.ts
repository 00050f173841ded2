import { startHarness, type Harness } from '../helpers/runs';

const ONE = `
name: solo
agents:
  writer: { instructions: "Write." }
collaboration:
  topology: pipeline
  agents: [writer]
`;

const TWO = `
name: two
agents:
  writer: { instructions: "Write." }
  critic: { instructions: "Critique." }
collaboration:
  topology: pipeline
  agents: [writer, critic]
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

  test('400 → 1 hit, failed/fatal_error with status, request id and the provider message', async () => {
    h.stub.script('writer', [{ status: 400, errorMessage: "Invalid value for 'temperature': must be <= 2" }]);
    const r = await h.run(ONE);
    expect(r).toMatchObject({ status: 'failed', reason: 'fatal_error' });
    expect(h.stub.hits('writer')).toBe(1);
    const id = h.stub.requestsFor('writer')[0].id;
    expect(r.diagnostics).toMatchObject({
      status: 400,
      requestId: id,
      agent: 'writer',
      message: "Invalid value for 'temperature': must be <= 2",
    });
    expect(r.reasonText).toContain(id);
  });

  test('404 model not found → 1 hit, failed/fatal_error with the request id; the run keeps no result', async () => {
    h.stub.script('writer', [
      {
        status: 404,
        errorMessage: 'The model `gpt-nope` does not exist or you do not have access to it.',
        errorCode: 'model_not_found',
      },
    ]);
    const r = await h.run(ONE.replace('name: solo', 'name: solo\nmodel: { name: gpt-nope }'));
    expect(r).toMatchObject({ status: 'failed', reason: 'fatal_error', steps: 0, results: {} });
    expect(h.stub.hits('writer')).toBe(1);
    expect(h.stub.requestsFor('writer')[0].model).toBe('gpt-nope');
    const id = h.stub.requestsFor('writer')[0].id;
    expect(r.diagnostics).toMatchObject({ status: 404, requestId: id, agent: 'writer' });
    expect(r.diagnostics?.message).toContain('gpt-nope');
    expect(r.reasonText).toContain(id);
  });

  test('500 three times mid-run → failed/activity_failed after 3 hits, earlier results kept', async () => {
    h.stub.script('writer', [{ text: 'draft ok' }]);
    h.stub.script('critic', [{ status: 503, errorMessage: 'overloaded' }]);
    const r = await h.run(TWO);
    expect(r).toMatchObject({ status: 'failed', reason: 'activity_failed', steps: 1 });
    expect(h.stub.hits('critic')).toBe(3);
    expect(r.results.writer.text).toBe('draft ok');
    expect(r.diagnostics).toMatchObject({ status: 503, agent: 'critic', requestId: h.stub.requestsFor('critic')[2].id });
  });

  test('a failure keeps the results completed before it', async () => {
    h.stub.script('writer', [{ text: 'draft ok' }]);
    h.stub.script('critic', [{ status: 403, errorMessage: 'forbidden' }]);
    const r = await h.run(TWO);
    expect(r).toMatchObject({ status: 'failed', reason: 'fatal_error' });
    expect(r.results.writer.text).toBe('draft ok');
    expect(r.steps).toBe(1);
  });
});
