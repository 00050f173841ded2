import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { startHarness, waitForStatus, type Harness } from '../helpers/runs';
import { startTroupe, troupe } from '../helpers/cli';
import { uniqueWorkflowId } from '../helpers/temporal';

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

function writeConfig(yaml: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'troupe-hitl-'));
  const file = path.join(dir, 'role.yaml');
  fs.writeFileSync(file, yaml);
  return file;
}

const LOOP = `
name: hitl-loop
agents:
  planner: { instructions: "Plan.", tools: [signal] }
  builder: { instructions: "Build." }
collaboration:
  topology: review-loop
  agents: [planner, builder]
  max_iterations: 2
`;

describe('signal tool: need_approval / need_clarification / blocked', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
    process.env.TROUPE_TASK_QUEUE = h.worker.taskQueue;
  });
  afterAll(async () => {
    delete process.env.TROUPE_TASK_QUEUE;
    await h?.close();
  });
  beforeEach(() => h.stub.reset());

  test('need_approval holds routing and the next wave until `troupe approve`, then the held result flows on', async () => {
    h.stub.script('planner', [{ toolCalls: [ask('need_approval', 'drop the legacy API?')] }, { text: 'plan: drop legacy API' }]);
    const handle = await h.start(CONFIG);
    // planner's result is recorded and nothing is in flight: had routing gone on, builder would be
    // in the frontier (or in flight) of this same workflow task
    const s = await waitForStatus(handle, (st) => st.phase === 'awaiting_human' && st.steps === 1 && st.inFlight.length === 0);
    expect(s.pending).toEqual([expect.objectContaining({ id: 'r1', kind: 'approval', agent: 'planner', summary: 'drop the legacy API?' })]);
    expect(s.frontier).toEqual([]);
    expect(h.stub.hits('builder')).toBe(0);

    expect((await troupe('approve', handle.workflowId, '--note', 'yes, drop it')).code).toBe(0);
    const r = await handle.result();
    expect(r).toMatchObject({ status: 'completed', reason: 'exit', finalAgent: 'builder' });
    expect(h.stub.hits('builder')).toBe(1);
    expect(h.stub.requestsFor('builder')[0].prompt).toContain('plan: drop legacy API');
    expect(r.signals).toEqual([expect.objectContaining({ type: 'need_approval', source: 'planner' })]);
  });

  test('need_clarification + `troupe answer` → the answer reaches the asking agent on its next dispatch', async () => {
    h.stub.script('planner', [{ toolCalls: [ask('need_clarification', 'which database?')] }, { text: 'plan v1' }, { text: 'plan v2' }]);
    const handle = await h.start(LOOP);
    const s = await waitForStatus(handle, (st) => st.phase === 'awaiting_human');
    expect(s.pending).toEqual([expect.objectContaining({ id: 'r1', kind: 'clarification', agent: 'planner', summary: 'which database?' })]);
    expect((await troupe('answer', handle.workflowId, 'use PostgreSQL')).code).toBe(0);
    const r = await handle.result();
    expect(r).toMatchObject({ status: 'exhausted', reason: 'max_iterations' });
    expect(h.stub.requestsFor('builder')[0].prompt).toContain('plan v1');
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

  test('blocked opens a request of kind blocked: `troupe run` shows it with the commands, and `troupe approve` routes the held result on', async () => {
    h.stub.script('planner', [{ toolCalls: [ask('blocked', 'no credentials for the staging database')] }, { text: 'plan: migrate staging' }]);
    const id = uniqueWorkflowId('blocked');
    const run = startTroupe('run', writeConfig(`${CONFIG}task: "Migrate staging"\n`), '--id', id);
    await run.waitForStdout(`reject:  troupe reject ${id} --request r1`);
    const handle = h.client.workflow.getHandle(id);
    const s = await waitForStatus(handle, (st) => st.phase === 'awaiting_human' && st.steps === 1 && st.inFlight.length === 0);
    expect(s.pending).toEqual([
      expect.objectContaining({ id: 'r1', kind: 'blocked', agent: 'planner', summary: 'no credentials for the staging database' }),
    ]);
    expect(s.frontier).toEqual([]);
    expect(h.stub.hits('builder')).toBe(0);
    const shown = run.stdout();
    expect(shown).toContain('  ✋ waiting for a human: r1 (blocked) planner — no credentials for the staging database\n');
    expect(shown).toContain(`     answer:  troupe answer ${id} "<your answer>" --request r1\n`);
    expect(shown).toContain(`     approve: troupe approve ${id} --request r1 [--note "..."]\n`);
    expect(shown).toContain(`     reject:  troupe reject ${id} --request r1 --reason "..."\n`);

    const approved = await troupe('approve', id, '--note', 'credentials are in the vault');
    // without --by, the decision is recorded as the OS user's
    const me = os.userInfo().username;
    expect(approved).toMatchObject({ code: 0, stdout: `approve (r1) by ${me} to ${id}: applied to r1: planner's result goes on, and planner gets the text in its next input\n` });
    const r = await run.done;
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('\ncompleted: builder took the exit edge after 1 round, 2 agent calls');
    expect(h.stub.hits('planner')).toBe(2);
    expect(h.stub.hits('builder')).toBe(1);
    expect(h.stub.requestsFor('builder')[0].prompt).toContain('plan: migrate staging');
    const result = await handle.result();
    expect(result).toMatchObject({ status: 'completed', reason: 'exit', finalAgent: 'builder' });
    expect(result.signals).toEqual([expect.objectContaining({ type: 'blocked', source: 'planner' })]);
    expect(result.decisions).toEqual([
      { requestId: 'r1', request: 'blocked', agent: 'planner', kind: 'approve', by: me, at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/), text: 'credentials are in the vault' },
    ]);
  });

  test('blocked + `troupe answer` routes the held result and the answer reaches the blocked agent on its next dispatch', async () => {
    h.stub.script('planner', [{ toolCalls: [ask('blocked', 'which region?')] }, { text: 'plan v1' }, { text: 'plan v2' }]);
    const handle = await h.start(LOOP);
    const s = await waitForStatus(handle, (st) => st.phase === 'awaiting_human');
    expect(s.pending).toEqual([expect.objectContaining({ id: 'r1', kind: 'blocked', agent: 'planner' })]);
    expect((await troupe('answer', handle.workflowId, 'use eu-west-1')).code).toBe(0);
    const r = await handle.result();
    expect(r).toMatchObject({ status: 'exhausted', reason: 'max_iterations' });
    expect(h.stub.requestsFor('builder')[0].prompt).toContain('plan v1');
    expect(h.stub.requestsFor('planner')[2].prompt).toContain('use eu-west-1');
    expect(h.stub.requestsFor('builder')[0].prompt).not.toContain('use eu-west-1');
  });

  test('blocked + `troupe reject` re-dispatches the blocked agent alone with the reason; its held result goes nowhere', async () => {
    h.stub.script('planner', [{ toolCalls: [ask('blocked', 'cannot reach prod')] }, { text: 'plan against prod' }, { text: 'plan against staging' }]);
    const handle = await h.start(CONFIG);
    const s = await waitForStatus(handle, (st) => st.phase === 'awaiting_human');
    expect(s.pending).toEqual([expect.objectContaining({ id: 'r1', kind: 'blocked' })]);
    expect((await troupe('reject', handle.workflowId, '--reason', 'use staging instead')).code).toBe(0);
    const r = await handle.result();
    expect(r).toMatchObject({ status: 'completed', reason: 'exit', finalText: 'builder reply 1' });
    expect(h.stub.hits('planner')).toBe(3);
    expect(h.stub.requestsFor('planner')[2].prompt).toContain('use staging instead');
    expect(h.stub.hits('builder')).toBe(1);
    expect(h.stub.requestsFor('builder')[0].prompt).toContain('plan against staging');
    expect(h.stub.requestsFor('builder')[0].prompt).not.toContain('plan against prod');
  });
});
