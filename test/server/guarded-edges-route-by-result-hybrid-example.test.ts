import * as fs from 'node:fs';
import * as path from 'node:path';
import { startHarness, type Harness } from '../helpers/runs';

const HYBRID = fs.readFileSync(path.resolve(__dirname, '..', '..', 'examples', 'hybrid.yaml'), 'utf8');

describe('`when`-guarded edges (examples/hybrid.yaml)', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => h?.close());
  beforeEach(() => h.stub.reset());

  test('the tester sends failing tests back to the coder, then exits when they pass', async () => {
    h.stub.script('coder', [{ text: 'fix v1' }, { text: 'fix v2' }]);
    h.stub.script('tester', [{ text: 'FAIL: 1h30m gives 90' }, { text: 'PASS: all 4 tests' }]);
    const r = await h.run(HYBRID);
    expect(r).toMatchObject({ status: 'completed', reason: 'exit', finalAgent: 'tester', finalText: 'PASS: all 4 tests' });
    expect([h.stub.hits('planner'), h.stub.hits('coder'), h.stub.hits('tester')]).toEqual([1, 2, 2]);
    expect(r.iterations).toEqual({ 'coder,tester': 1 });
    expect(h.stub.requestsFor('coder')[1].prompt).toContain('FAIL: 1h30m gives 90');
  });

  test('a guard that keeps holding is stopped by the loop cap', async () => {
    h.stub.script('tester', [{ text: 'FAIL again' }]);
    const r = await h.run(HYBRID);
    expect(r).toMatchObject({ status: 'exhausted', reason: 'max_iterations' });
    expect(h.stub.hits('tester')).toBe(4);
  });
});
