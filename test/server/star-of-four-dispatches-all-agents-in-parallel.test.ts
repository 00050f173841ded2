import { startHarness, type Harness } from '../helpers/runs';

describe('star of 4 specialists', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => h?.close());

  test('all 4 requests are in flight at once (one wave, truly parallel)', async () => {
    for (const a of ['frontend', 'backend', 'database', 'security']) {
      h.stub.script(a, [{ text: `${a} findings`, delayMs: 1000 }]);
    }
    const result = await h.run(`
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
    expect(h.stub.maxConcurrent()).toBe(4);
    expect(result.status).toBe('completed');
    expect(result.reason).toBe('exit');
    expect(result.finalAgent).toBe('frontend,backend,database,security');
    expect(result.finalText).toContain('## backend\n\nbackend findings');
    expect(result.steps).toBe(4);
  });
});
