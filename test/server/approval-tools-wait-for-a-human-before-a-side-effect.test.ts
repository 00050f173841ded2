/**
 * `approval.tools` makes a matching call wait for a human: the run shows `awaiting_human` with the
 * tool and its arguments, `troupe status` prints the commands, and the clocks stop. `troupe reject
 * --reason` does not run the call and the model gets `Rejected by a human: <reason>`; `troupe
 * approve` runs it.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { troupe } from '../helpers/cli';
import { waitForStatus } from '../helpers/runs';
import { startToolsHarness, type ToolsHarness } from '../helpers/tools';

const ROLE = `
name: guarded-side-effects
agents:
  publisher: { instructions: "Publish.", tools: [append_line] }
collaboration:
  topology: pipeline
  agents: [publisher]
approval:
  tools: [append_*]
`;

describe('approval.tools', () => {
  let t: ToolsHarness;
  beforeAll(async () => {
    t = await startToolsHarness();
  });
  afterAll(async () => t?.close());
  beforeEach(() => t.h.stub.reset());

  test('reject: nothing is written and the model gets the reason; approve: the line is written', async () => {
    const file = path.join(t.folder('approvals'), 'published.txt');
    const call = { name: 'append_line', arguments: { file, line: 'release 1.0' } };
    t.h.stub.script('publisher', [{ toolCalls: [call] }, { toolCalls: [call] }, { text: 'published after approval' }]);
    const handle = await t.h.start(ROLE);

    const first = await waitForStatus(handle, (s) => s.phase === 'awaiting_human');
    expect(first.pending).toEqual([
      expect.objectContaining({ id: 'r1', kind: 'tool_call', agent: 'publisher', payload: { tool: 'append_line', arguments: JSON.stringify(call.arguments) } }),
    ]);
    const status = await troupe('status', handle.workflowId);
    expect(status.stdout).toContain('r1 (tool_call) publisher');
    expect(status.stdout).toContain(`reject:  troupe reject ${handle.workflowId} --request r1 --reason`);
    const activeWhileWaiting = first.activeMs;

    expect((await troupe('reject', handle.workflowId, '--reason', 'not on a Friday')).code).toBe(0);
    const second = await waitForStatus(handle, (s) => s.phase === 'awaiting_human' && s.pending[0]?.id === 'r2');
    expect(fs.existsSync(file)).toBe(false);
    expect(t.h.stub.requestsFor('publisher')[1].messages.at(-1)).toMatchObject({ role: 'tool', content: 'Rejected by a human: not on a Friday' });
    // the clock stood still while the human thought about r1
    expect(second.activeMs - activeWhileWaiting).toBeLessThan(1000);

    expect((await troupe('approve', handle.workflowId)).code).toBe(0);
    const r = await handle.result();
    expect(r).toMatchObject({ status: 'completed', finalText: 'published after approval' });
    expect(fs.readFileSync(file, 'utf8')).toBe('release 1.0\n');
    expect(r.usage.toolCalls?.total).toBe(1);
  });
});
