import { startHarness, waitForStatus, type Harness } from '../helpers/runs';
import { troupe } from '../helpers/cli';
import { statusQuery } from '../../src/workflows/messages';

const LOOP = `
name: chat
agents:
  writer: { instructions: "Write." }
  critic: { instructions: "Critique." }
collaboration:
  topology: review-loop
  agents: [writer, critic]
  max_iterations: 3
`;

describe('message and malformed signals', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => h?.close());
  beforeEach(() => h.stub.reset());

  test('`troupe message --to critic` reaches only the critic, on its next dispatch', async () => {
    h.stub.script('writer', [{ text: 'draft', delayMs: 800 }]);
    const handle = await h.start(LOOP);
    await h.stub.waitForRequests(1, 'writer');
    expect((await troupe('message', handle.workflowId, 'focus on the conclusion', '--to', 'critic')).code).toBe(0);
    await handle.result();
    const critic = h.stub.requestsFor('critic').map((q) => q.prompt);
    const writer = h.stub.requestsFor('writer').map((q) => q.prompt);
    expect(critic[0]).toContain('focus on the conclusion');
    expect(critic.slice(1).some((p) => p.includes('focus on the conclusion'))).toBe(false);
    expect(writer.some((p) => p.includes('focus on the conclusion'))).toBe(false);
  });

  test('`troupe message` without --to reaches every agent of the next wave only', async () => {
    h.stub.script('planner', [{ text: 'plan', delayMs: 800 }]);
    const handle = await h.start(`
name: fanout
agents:
  planner: { instructions: "Plan." }
  front: { instructions: "Front." }
  back: { instructions: "Back." }
collaboration:
  flow: [parent -> planner, planner -> front, planner -> back, front -> parent, back -> parent]
`);
    await h.stub.waitForRequests(1, 'planner');
    expect((await troupe('message', handle.workflowId, 'use TypeScript everywhere')).code).toBe(0);
    const r = await handle.result();
    expect(r.status).toBe('completed');
    expect(h.stub.requestsFor('front')[0].prompt).toContain('use TypeScript everywhere');
    expect(h.stub.requestsFor('back')[0].prompt).toContain('use TypeScript everywhere');
    expect(h.stub.requestsFor('planner')[0].prompt).not.toContain('use TypeScript everywhere');
  });

  test('a malformed signal payload leaves the run running with a warning', async () => {
    h.stub.script('writer', [{ text: 'draft', delayMs: 800 }]);
    const handle = await h.start(LOOP);
    await h.stub.waitForRequests(1, 'writer');
    await handle.signal('message', { txt: 'typo field' });
    await handle.signal('reject', 'not an object');
    await handle.signal('approve', { requestId: 'r7' });
    const s = await waitForStatus(handle, (st) => st.warnings.length >= 3);
    expect(s.phase).not.toBe('finished');
    const r = await handle.result();
    expect(r).toMatchObject({ status: 'exhausted', reason: 'max_iterations' });
    expect(r.warnings.join('\n')).toMatch(/ignored malformed message signal/);
    expect(r.warnings.join('\n')).toMatch(/request r7 is not pending/);
    expect((await handle.query(statusQuery)).phase).toBe('finished');
  });
});
