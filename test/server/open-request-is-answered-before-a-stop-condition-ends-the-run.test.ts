/**
 * A request a human must answer is never skipped by a condition that holds on the same wave: the run
 * waits for the decision (awaiting_human, the command printed by `troupe status`), applies it, and
 * only then evaluates termination. Hard limits (budgets, stop) may still end the run while it waits;
 * then the request is listed as unanswered, with a warning.
 */
import { troupe } from '../helpers/cli';
import { startHarness, waitForStatus, type Harness } from '../helpers/runs';
import { RUN_END_TEXTS } from '../../src/core/ending/texts';

const LOOP = (extra = '') => `
name: publish-loop
agents:
  writer: { instructions: "Write." }
  publisher: { instructions: "Publish; ask before publishing.", tools: [signal] }
collaboration:
  topology: review-loop
  agents: [writer, publisher]
  max_iterations: 5
  termination:
    any_of:
      - max_messages: 2
${extra}`;

const ask = { name: 'signal', arguments: { type: 'need_approval', summary: 'publish to the blog?' } };

describe('an open request and a stop condition on the same wave', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => h?.close());
  beforeEach(() => h.stub.reset());

  test('the run waits for the decision, then max_messages ends it with the decision applied', async () => {
    h.stub.script('publisher', [{ toolCalls: [ask] }, { text: 'ready to publish' }]);
    const handle = await h.start(LOOP());
    const waiting = await waitForStatus(handle, (s) => s.phase === 'awaiting_human');
    expect(waiting.pending).toEqual([expect.objectContaining({ id: 'r1', kind: 'approval', agent: 'publisher', summary: 'publish to the blog?' })]);
    expect(waiting.steps).toBe(2);

    const status = await troupe('status', handle.workflowId);
    expect(status.stdout).toContain(`approve: troupe approve ${handle.workflowId} --request r1`);

    expect((await troupe('approve', handle.workflowId, '--note', 'go')).code).toBe(0);
    const r = await handle.result();
    expect(r).toMatchObject({ status: 'exhausted', reason: 'max_messages', steps: 2 });
    // the approval routed the held result back to the writer; termination then ended the round
    expect(r.iterations).toEqual({ 'publisher,writer': 1 });
    expect(h.stub.hits('writer')).toBe(1);
    expect(r.unanswered).toBeUndefined();
  });

  test('a budget crossed on that wave ends the run at once; the request is listed as unanswered', async () => {
    h.stub.script('publisher', [{ toolCalls: [ask] }, { text: 'ready to publish' }]);
    const r = await h.run(LOOP('budget:\n  max_agent_calls: 2\n'));
    expect(r).toMatchObject({ status: 'budget_exceeded', reason: 'max_turns_exceeded' });
    expect(r.unanswered).toEqual([expect.objectContaining({ id: 'r1', kind: 'approval', agent: 'publisher' })]);
    expect(r.warnings).toContain(RUN_END_TEXTS.unanswered(['r1']));
  });

  test('`troupe stop` while the run waits ends it cancelled/user_stop with the request unanswered', async () => {
    h.stub.script('publisher', [{ toolCalls: [ask] }, { text: 'ready to publish' }]);
    const handle = await h.start(LOOP());
    await waitForStatus(handle, (s) => s.phase === 'awaiting_human');
    expect((await troupe('stop', handle.workflowId)).code).toBe(0);
    const r = await handle.result();
    expect(r).toMatchObject({ status: 'cancelled', reason: 'user_stop', unanswered: [expect.objectContaining({ id: 'r1' })] });
    expect(r.warnings).toContain(RUN_END_TEXTS.unanswered(['r1']));
  });
});
