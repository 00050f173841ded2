import { startHarness, type Harness } from '../helpers/runs';
import { stubGate } from '../helpers/stub-llm';

describe('star of 4 specialists', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => h?.close());

  test('all 4 requests are in flight at once (one wave, truly parallel)', async () => {
    // every reply is held until all four requests have arrived: a sequential dispatch never gets there
    const gate = stubGate();
    for (const a of ['frontend', 'backend', 'database', 'security']) {
      h.stub.script(a, [gate.hold({ text: `${a} findings` })]);
    }
    const handle = await h.start(`
name: audit
agents:
  frontend: { instructions: "Review the frontend." }
  backend: { instructions: "Review the backend." }
  database: { instructions: "Review the database." }
  security: { instructions: "Review security." }
collaboration:
  topology: star
  agents: [frontend, backend, database, security]
`);
    await h.stub.waitForRequests(4);
    expect(h.stub.inFlight()).toBe(4);
    gate.open();
    const result = await handle.result();
    expect(h.stub.maxConcurrent()).toBe(4);
    expect(result.status).toBe('completed');
    expect(result.reason).toBe('exit');
    expect(result.finalAgent).toBe('frontend,backend,database,security');
    expect(result.finalText).toContain('## backend\n\nbackend findings');
    expect(result.steps).toBe(4);
  });
});
