import { startHarness, type Harness } from '../helpers/runs';

describe('custom flow with two entries joining', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => h?.close());

  test('scanner and parser run in wave 1; analyzer is dispatched once with both outputs', async () => {
    h.stub.script('scanner', [{ text: 'SCAN: 3 open ports' }]);
    h.stub.script('parser', [{ text: 'PARSE: config has 2 secrets' }]);
    h.stub.script('analyzer', [{ text: 'ANALYSIS combined' }]);
    h.stub.script('reporter', [{ text: 'REPORT done' }]);
    const result = await h.run(`
name: scan
agents:
  scanner: { instructions: "Scan." }
  parser: { instructions: "Parse." }
  analyzer: { instructions: "Analyze." }
  reporter: { instructions: "Report." }
collaboration:
  flow:
    - parent -> scanner
    - parent -> parser
    - scanner -> analyzer
    - parser -> analyzer
    - analyzer -> reporter
    - reporter -> parent
`);
    expect(result).toMatchObject({ status: 'completed', reason: 'exit', finalAgent: 'reporter' });
    expect(h.stub.hits('analyzer')).toBe(1);
    const prompt = h.stub.requestsFor('analyzer')[0].prompt;
    expect(prompt).toContain('SCAN: 3 open ports');
    expect(prompt).toContain('PARSE: config has 2 secrets');
    expect(h.stub.maxConcurrent((r) => r.agent === 'scanner' || r.agent === 'parser')).toBeGreaterThanOrEqual(1);
  });
});
