/**
 * The loop cap and every termination condition are evaluated before each wave, on every path: an
 * approval that routes a held result along a back edge cannot start another iteration past the cap.
 */
import { troupe } from '../helpers/cli';
import { startHarness, waitForStatus, type Harness } from '../helpers/runs';

describe('approvals and the loop cap', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => h?.close());

  test('max_iterations 1: approving the critic held result ends the run at the cap; the writer runs once', async () => {
    h.stub.script('critic', [{ toolCalls: [{ name: 'signal', arguments: { type: 'need_approval', summary: 'send back for a rewrite?' } }] }, { text: 'needs work' }]);
    const handle = await h.start(`
name: capped-approval
agents:
  writer: { instructions: "Write." }
  critic: { instructions: "Critique.", tools: [signal] }
collaboration:
  topology: review-loop
  agents: [writer, critic]
  max_iterations: 1
`);
    await waitForStatus(handle, (s) => s.phase === 'awaiting_human');
    expect((await troupe('approve', handle.workflowId)).code).toBe(0);
    const r = await handle.result();
    expect(r).toMatchObject({ status: 'exhausted', reason: 'max_iterations', iterations: { 'critic,writer': 1 }, steps: 2 });
    expect(h.stub.hits('writer')).toBe(1);
  });
});
