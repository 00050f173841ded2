import { startHarness, waitForStatus, type Harness } from '../helpers/runs';
import { troupe } from '../helpers/cli';

const CONFIG = `
name: hitl
agents:
  planner: { instructions: "Plan; ask a human when unsure.", tools: [signal] }
  builder: { instructions: "Build the plan." }
collaboration:
  topology: pipeline
  agents: [planner, builder]
`;

const ask = (type: string, summary: string) => ({ name: 'signal', arguments: { type, summary } });

describe('signal tool: need_approval / need_clarification', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => h?.close());
  beforeEach(() => h.stub.reset());

  test('need_approval holds routing and the next wave until `troupe approve`, then the held result flows on', async () => {
    h.stub.script('planner', [{ toolCalls: [ask('need_approval', 'drop the legacy API?')] }, { text: 'plan: drop legacy API' }]);
    const handle = await h.start(CONFIG);
    const s = await waitForStatus(handle, (st) => st.phase === 'awaiting_human');
    expect(s.pending).toEqual([expect.objectContaining({ id: 'r1', kind: 'approval', agent: 'planner', summary: 'drop the legacy API?' })]);
    await new Promise((r) => setTimeout(r, 500));
    expect(h.stub.hits('builder')).toBe(0);

    expect((await troupe('approve', handle.workflowId, '--note', 'yes, drop it')).code).toBe(0);
    const r = await handle.result();
    expect(r).toMatchObject({ status: 'completed', reason: 'exit', finalAgent: 'builder' });
    expect(h.stub.hits('builder')).toBe(1);
    expect(h.stub.requestsFor('builder')[0].prompt).toContain('plan: drop legacy API');
    expect(r.signals).toEqual([expect.objectContaining({ type: 'need_approval', source: 'planner' })]);
  });

  test('need_clarification + `troupe answer` → the answer reaches the asking agent on its next dispatch', async () => {
    const config = `
name: hitl-loop
agents:
  planner: { instructions: "Plan.", tools: [signal] }
  builder: { instructions: "Build." }
collaboration:
  topology: review-loop
  agents: [planner, builder]
  max_iterations: 2
`;
    h.stub.script('planner', [{ toolCalls: [ask('need_clarification', 'which database?')] }, { text: 'plan v1' }, { text: 'plan v2' }]);
    const handle = await h.start(config);
    await waitForStatus(handle, (st) => st.phase === 'awaiting_human');
    expect((await troupe('answer', handle.workflowId, 'use PostgreSQL')).code).toBe(0);
    const r = await handle.result();
    expect(r).toMatchObject({ status: 'exhausted', reason: 'max_iterations' });
    expect(h.stub.requestsFor('planner')[2].prompt).toContain('use PostgreSQL');
  });

  test('reject re-dispatches the asking agent alone with the reason', async () => {
    h.stub.script('planner', [{ toolCalls: [ask('need_approval', 'delete prod data?')] }, { text: 'risky plan' }, { text: 'safe plan' }]);
    const handle = await h.start(CONFIG);
    await waitForStatus(handle, (st) => st.phase === 'awaiting_human');
    expect((await troupe('reject', handle.workflowId, '--reason', 'never touch prod')).code).toBe(0);
    const r = await handle.result();
    expect(r.status).toBe('completed');
    expect(h.stub.requestsFor('planner')[2].prompt).toContain('never touch prod');
    expect(h.stub.requestsFor('builder')[0].prompt).toContain('safe plan');
    expect(h.stub.requestsFor('builder')[0].prompt).not.toContain('risky plan');
  });
});
