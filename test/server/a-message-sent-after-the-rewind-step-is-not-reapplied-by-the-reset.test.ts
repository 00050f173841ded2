/**
 * `troupe rewind <id> --to-step N` (docs/cli.md, "troupe rewind"): signals sent after step N are
 * not reapplied by the reset. A `message` to alice sent while step 3 was in flight reached her step 4
 * in the original run; rewound to step 2, the steps 3 and 4 run again and her prompt has no message.
 */
import type { RunResult } from '../../src/core/ending/result';
import { troupe } from '../helpers/cli';
import { startHarness, compileYaml, type Harness } from '../helpers/runs';
import { stubGate } from '../helpers/stub-llm';
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

describe('troupe rewind (replay) and the signals sent after its step', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => h?.close());

  test('a message sent after step 2 reached the original run and does not reach the steps run again', async () => {
    const gate = stubGate();
    h.stub.script('carol', [gate.hold({ text: 'carol sums up' }), { text: 'carol sums up' }]);
    const first = await h.start(compileYaml(PANEL), { task: 'plan a picnic', workflowId: uniqueWorkflowId('rewind-signal') });
    await h.stub.waitForRequests(1, (q) => q.agent === 'carol' && q.workflowId === first.workflowId);
    expect((await troupe('message', first.workflowId, 'bring umbrellas', '--to', 'alice')).code).toBe(0);
    gate.open();
    expect(await first.result()).toMatchObject({ status: 'exhausted', reason: 'max_messages', steps: 4 });
    const asked = h.stub.requests.filter((q) => q.kind === 'agent' && q.workflowId === first.workflowId);
    expect(asked.map((q) => q.agent)).toEqual(['alice', 'bob', 'carol', 'alice']);
    expect(asked[3].prompt).toContain('bring umbrellas');

    const before = h.stub.requests.length;
    const cli = await troupe('rewind', first.workflowId, '--to-step', '2');
    expect(cli).toMatchObject({ code: 0, stderr: '' });
    expect(((await h.client.workflow.getHandle(first.workflowId).result()) as RunResult)).toMatchObject({ steps: 4 });
    const rerun = h.stub.requests.slice(before).filter((q) => q.kind === 'agent');
    expect(rerun.map((q) => q.agent)).toEqual(['carol', 'alice']);
    expect(rerun[1].prompt).not.toContain('bring umbrellas');
    // the rest of alice's prompt is the original's: only the message is gone
    expect(rerun[1].prompt).toContain('carol sums up');
  });
});
