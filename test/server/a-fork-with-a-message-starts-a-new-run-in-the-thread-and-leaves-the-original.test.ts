/**
 * `troupe rewind <id> --to-step N --message TEXT` (docs/cli.md, "troupe rewind"): a new run in
 * the run's thread from the team state after step N, rebuilt by the round machine from the recorded
 * history; the message is a note of the next agent's first dispatch; the original run's result and
 * history are left as they were.
 */
import { listRuns } from '../../src/client';
import type { RunResult } from '../../src/core/ending/result';
import { troupe } from '../helpers/cli';
import { startHarness, compileYaml, type Harness } from '../helpers/runs';
import { uniqueWorkflowId } from '../helpers/temporal';

const PANEL = `
name: panel
agents:
  alice: { instructions: "Propose." }
  bob: { instructions: "Challenge." }
  carol: { instructions: "Summarize." }
collaboration:
  topology: round-robin
  agents: [alice, bob, carol]
  max_iterations: 5
  termination:
    any_of:
      - max_messages: 4
`;

describe('troupe rewind --message (fork)', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => h?.close());

  test('a fork after step 1 is a new run of the thread; bob goes first with the message; the original is unchanged', async () => {
    const first = await h.start(compileYaml(PANEL), { task: 'plan a picnic', workflowId: uniqueWorkflowId('fork') });
    const original = await first.result();
    expect(original.steps).toBe(4);
    const eventsBefore = (await first.fetchHistory()).events!.length;

    const before = h.stub.requests.length;
    const cli = await troupe('rewind', first.workflowId, '--to-step', '1', '--message', 'keep it under 20 euros');
    expect(cli.stderr).toBe('');
    expect(cli.code).toBe(0);
    const forkId = `${first.workflowId}/2`;
    expect(cli.stdout).toContain(`forked ${first.workflowId} after step 1 into a new run of its thread: ${forkId}`);

    const fork = (await h.client.workflow.getHandle(forkId).result()) as RunResult;
    expect(fork).toMatchObject({ status: 'exhausted', reason: 'max_messages', steps: 4 });
    const asked = h.stub.requests.slice(before).filter((q) => q.kind === 'agent');
    expect(asked.map((q) => q.agent)).toEqual(['bob', 'carol', 'alice', 'bob']);
    // bob's first dispatch: the thread as it was after step 1, then the message
    const bob = asked[0].prompt;
    expect(bob).toContain('plan a picnic');
    expect(bob).toContain('alice reply 1');
    expect(bob).not.toContain('bob reply 1');
    expect(bob.indexOf('alice reply 1')).toBeLessThan(bob.indexOf('keep it under 20 euros'));
    // only its first dispatch carries it
    expect(asked[3].prompt).not.toContain('keep it under 20 euros');
    expect(fork.teamState).toMatchObject({ threadId: first.workflowId, threadUsage: { runs: 2 } });

    const thread = await listRuns(h.client, { thread: first.workflowId });
    expect(thread.runs.map((r) => r.workflowId)).toEqual([first.workflowId, forkId]);
    // the original: the same result, the same history, the same one execution
    const desc = await h.client.workflow.getHandle(first.workflowId).describe();
    expect(desc.runId).toBe(first.firstExecutionRunId);
    expect((await first.fetchHistory()).events!.length).toBe(eventsBefore);
    expect(await first.result()).toEqual(original);
  });

  test('--to names the agent of the message; an unknown one is refused with did-you-mean, nothing started', async () => {
    const first = await h.start(compileYaml(PANEL), { task: 'plan', workflowId: uniqueWorkflowId('fork-to') });
    await first.result();
    const wrong = await troupe('rewind', first.workflowId, '--to-step', '2', '--message', 'hi', '--to', 'carl');
    expect(wrong.code).toBe(1);
    expect(wrong.stderr.trim()).toBe('cannot rewind: --to: the run has no agent "carl" (did you mean "carol"?)');
    expect((await listRuns(h.client, { thread: first.workflowId })).runs).toHaveLength(1);

    const before = h.stub.requests.length;
    const cli = await troupe('rewind', first.workflowId, '--to-step', '2', '--message', 'wrap up in one line', '--to', 'alice');
    expect(cli.code).toBe(0);
    await h.client.workflow.getHandle(`${first.workflowId}/2`).result();
    const asked = h.stub.requests.slice(before).filter((q) => q.kind === 'agent');
    expect(asked.map((q) => q.agent)).toEqual(['carol', 'alice', 'bob', 'carol']);
    expect(asked[0].prompt).not.toContain('wrap up in one line');
    expect(asked[1].prompt).toContain('wrap up in one line');
  });
});
