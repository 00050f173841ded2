import { startHarness, waitForStatus, type Harness } from '../helpers/runs';
import { troupe } from '../helpers/cli';
import { stubGate } from '../helpers/stub-llm';
import { statusQuery } from '../../src/contract';

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

  test('`troupe message --to writer` sent during the writer\'s call skips the critic\'s wave and reaches only the writer, on its next dispatch', async () => {
    // the writer's first reply is held until the message is in, so the next wave (the critic) is known
    const gate = stubGate();
    h.stub.script('writer', [gate.hold({ text: 'draft' }), { text: 'draft' }]);
    const handle = await h.start(LOOP);
    await h.stub.waitForRequests(1, 'writer');
    expect((await troupe('message', handle.workflowId, 'focus on the conclusion', '--to', 'writer')).code).toBe(0);
    gate.open();
    await handle.result();
    const writer = h.stub.requestsFor('writer').map((q) => q.prompt);
    const critic = h.stub.requestsFor('critic').map((q) => q.prompt);
    expect([writer.length, critic.length]).toEqual([3, 3]);
    expect(writer.map((p) => p.includes('focus on the conclusion'))).toEqual([false, true, false]);
    expect(critic.some((p) => p.includes('focus on the conclusion'))).toBe(false);
  });

  test('`troupe message` without --to, sent while wave 1 is in flight, reaches every agent of wave 2 and no agent after', async () => {
    const gate = stubGate();
    h.stub.script('planner', [gate.hold({ text: 'plan' })]);
    const handle = await h.start(`
name: fanout
agents:
  planner: { instructions: "Plan." }
  front: { instructions: "Front." }
  back: { instructions: "Back." }
  reviewer: { instructions: "Review." }
  publisher: { instructions: "Publish." }
collaboration:
  flow:
    - parent -> planner
    - planner -> front
    - planner -> back
    - front -> reviewer
    - back -> reviewer
    - reviewer -> publisher
    - publisher -> parent
`);
    await h.stub.waitForRequests(1, 'planner');
    const during = await waitForStatus(handle, (s) => s.inFlight.includes('planner'));
    expect(during).toMatchObject({ wave: 1, steps: 0 });
    expect((await troupe('message', handle.workflowId, 'use TypeScript everywhere')).code).toBe(0);
    gate.open();
    const r = await handle.result();
    expect(r).toMatchObject({ status: 'completed', reason: 'exit', steps: 5 });

    const prompts = (agent: string) => h.stub.requestsFor(agent).map((q) => q.prompt);
    const reached = (agent: string) => prompts(agent).some((p) => p.includes('use TypeScript everywhere'));
    expect(prompts('front')).toHaveLength(1);
    expect(prompts('back')).toHaveLength(1);
    expect(reached('front')).toBe(true);
    expect(reached('back')).toBe(true);
    expect(reached('planner')).toBe(false);
    expect(reached('reviewer')).toBe(false);
    expect(reached('publisher')).toBe(false);
  });

  test('a malformed signal payload leaves the run running with a warning', async () => {
    const gate = stubGate();
    h.stub.script('writer', [gate.hold({ text: 'draft' }), { text: 'draft' }]);
    const handle = await h.start(LOOP);
    await h.stub.waitForRequests(1, 'writer');
    await handle.signal('message', { txt: 'typo field' });
    await handle.signal('reject', 'not an object');
    await handle.signal('approve', { requestId: 'r77' });
    const s = await waitForStatus(handle, (st) => st.warnings.length >= 3);
    expect(s).toMatchObject({ phase: 'running', inFlight: ['writer'], pending: [] });
    gate.open();
    const r = await handle.result();
    expect(r).toMatchObject({ status: 'exhausted', reason: 'max_iterations', steps: 6 });
    expect(r.warnings).toEqual([
      expect.stringMatching(/^ignored malformed message signal: /),
      expect.stringMatching(/^ignored malformed reject signal: /),
      'ignored approve signal: request r77 is not pending (pending: none)',
    ]);
    expect(h.stub.requests.some((q) => q.prompt.includes('typo field'))).toBe(false);
    expect((await handle.query(statusQuery)).phase).toBe('finished');
  });
});
