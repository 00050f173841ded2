import { startHarness, waitForStatus, type Harness } from '../helpers/runs';
import { stubGate } from '../helpers/stub-llm';

describe('custom flow with two entries joining', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => h?.close());

  test('scanner and parser are in flight together in wave 1; analyzer is dispatched once, after both, with both outputs', async () => {
    const scannerGate = stubGate();
    const parserGate = stubGate();
    h.stub.script('scanner', [scannerGate.hold({ text: 'SCAN: 3 open ports' })]);
    h.stub.script('parser', [parserGate.hold({ text: 'PARSE: config has 2 secrets' })]);
    h.stub.script('analyzer', [{ text: 'ANALYSIS combined' }]);
    h.stub.script('reporter', [{ text: 'REPORT done' }]);
    const handle = await h.start(`
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
    // both replies are held: a sequential dispatch would never send the second request
    const branch = (r: { agent: string }) => r.agent === 'scanner' || r.agent === 'parser';
    await h.stub.waitForRequests(2, branch);
    expect(h.stub.inFlight(branch)).toBe(2);
    const during = await waitForStatus(handle, (s) => s.inFlight.length === 2);
    expect([...during.inFlight].sort()).toEqual(['parser', 'scanner']);
    expect(during.wave).toBe(1);

    // one branch finishing alone does not dispatch the join
    scannerGate.open();
    const [scanner] = h.stub.requestsFor('scanner');
    await h.stub.waitFor(() => scanner.endedAt !== undefined);
    const half = await waitForStatus(handle, (s) => !s.inFlight.includes('scanner'));
    expect(half.inFlight).toEqual(['parser']);
    expect(h.stub.hits('analyzer')).toBe(0);
    parserGate.open();

    const result = await handle.result();
    expect(result).toMatchObject({ status: 'completed', reason: 'exit', finalAgent: 'reporter', steps: 4 });
    expect(h.stub.hits('analyzer')).toBe(1);
    const [analyzer] = h.stub.requestsFor('analyzer');
    expect(analyzer.prompt).toContain('SCAN: 3 open ports');
    expect(analyzer.prompt).toContain('PARSE: config has 2 secrets');
    expect(analyzer.startedAt).toBeGreaterThanOrEqual(h.stub.requestsFor('parser')[0].endedAt!);
    expect(h.stub.requestsFor('reporter')[0].prompt).toContain('ANALYSIS combined');
  });
});
