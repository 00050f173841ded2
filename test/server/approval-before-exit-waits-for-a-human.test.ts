import { startHarness, waitForStatus, type Harness } from '../helpers/runs';
import { troupe } from '../helpers/cli';

const CONFIG = `
name: approved
agents:
  writer: { instructions: "Write." }
  editor: { instructions: "Edit." }
collaboration:
  topology: pipeline
  agents: [writer, editor]
approval:
  before_exit: true
`;

describe('approval.before_exit', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => h?.close());
  beforeEach(() => h.stub.reset());

  test('the run waits with the pending request in `status`; `troupe approve` completes it', async () => {
    h.stub.script('editor', [{ text: 'final essay v1' }]);
    const handle = await h.start(CONFIG);
    const s = await waitForStatus(handle, (st) => st.phase === 'awaiting_human');
    expect(s.pending).toEqual([
      expect.objectContaining({ id: 'r1', kind: 'before_exit', agent: 'editor', summary: expect.stringContaining('final essay v1') }),
    ]);
    const shown = await troupe('status', handle.workflowId);
    expect(shown.stdout).toContain(`troupe approve ${handle.workflowId} --request r1`);

    // the time under test: the human takes 3 s, which must not count as active time
    await new Promise((r) => setTimeout(r, 3000));
    expect((await waitForStatus(handle, () => true)).activeMs).toBeLessThan(2000);
    const ok = await troupe('approve', handle.workflowId, '--note', 'looks good');
    expect(ok.code).toBe(0);
    const r = await handle.result();
    expect(r).toMatchObject({ status: 'completed', reason: 'exit', finalText: 'final essay v1', rounds: 1 });
    expect(h.stub.hits('editor')).toBe(1);
    // the wait for the human stopped the active clock (budgets and timeouts do not run while waiting)
    expect(r.activeMs).toBeLessThan(2000);
  });

  test('`troupe reject --reason` feeds the reason to the exit agent and the graph continues', async () => {
    h.stub.script('editor', [{ text: 'final essay v1' }, { text: 'final essay v2 with sources' }]);
    const handle = await h.start(CONFIG);
    await waitForStatus(handle, (st) => st.pending.some((p) => p.id === 'r1'));
    expect((await troupe('reject', handle.workflowId, '--reason', 'cite sources')).code).toBe(0);

    await waitForStatus(handle, (st) => st.pending.some((p) => p.id === 'r2'));
    const second = h.stub.requestsFor('editor')[1];
    expect(second.prompt).toContain('cite sources');
    expect(h.stub.hits('writer')).toBe(1);
    expect((await troupe('approve', handle.workflowId, '--request', 'r2')).code).toBe(0);
    const r = await handle.result();
    expect(r).toMatchObject({ status: 'completed', finalText: 'final essay v2 with sources', rounds: 2 });
  });

  test('a decision naming no pending request exits 1 listing the pending ids; the run keeps waiting', async () => {
    const handle = await h.start(CONFIG);
    await waitForStatus(handle, (st) => st.phase === 'awaiting_human');
    const bad = await troupe('approve', handle.workflowId, '--request', 'r9');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('request r9 is not pending');
    expect(bad.stderr).toContain('r1');
    expect((await troupe('approve', handle.workflowId)).code).toBe(0);
    expect((await handle.result()).status).toBe('completed');
  });
});
