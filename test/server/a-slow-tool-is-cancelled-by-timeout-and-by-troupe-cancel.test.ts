/**
 * A tool that would run for a minute is cancelled when the run's `timeout_ms` fires and when the user
 * cancels the run: its `AbortSignal` fires, and the run ends with the right reason within a second or
 * two of the cancel.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { startTroupe, troupe } from '../helpers/cli';
import { startToolsHarness, type ToolsHarness } from '../helpers/tools';

const ROLE = (extra: string) => `
name: slow-tool
agents:
  waiter: { instructions: "Wait.", tools: [wait_for_cancel] }
collaboration:
  topology: pipeline
  agents: [waiter]
${extra}`;

async function until(pred: () => boolean, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!pred()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('cancelling a running tool', () => {
  let t: ToolsHarness;
  beforeAll(async () => {
    t = await startToolsHarness();
  });
  afterAll(async () => t?.close());
  beforeEach(() => t.h.stub.reset());

  test('timeout_ms fires: the tool is aborted and the run ends exhausted/timeout promptly', async () => {
    const dir = t.folder('timeout');
    t.h.stub.script('waiter', [{ toolCalls: [{ name: 'wait_for_cancel', arguments: { dir } }] }]);
    const r = await t.h.run(ROLE('  termination:\n    any_of:\n      - timeout_ms: 1500\n'));
    expect(r).toMatchObject({ status: 'exhausted', reason: 'timeout' });
    await until(() => fs.existsSync(path.join(dir, 'aborted')));
    const started = Number(fs.readFileSync(path.join(dir, 'started'), 'utf8'));
    const aborted = Number(fs.readFileSync(path.join(dir, 'aborted'), 'utf8'));
    expect(aborted - started).toBeLessThan(1500 + 3000);
  });

  test('troupe cancel: the tool is aborted and the run ends cancelled/user_abort', async () => {
    const dir = t.folder('cancel');
    t.h.stub.script('waiter', [{ toolCalls: [{ name: 'wait_for_cancel', arguments: { dir } }] }]);
    const handle = await t.h.start(ROLE(''));
    await until(() => fs.existsSync(path.join(dir, 'started')));
    const cancelledAt = Date.now();
    expect((await troupe('cancel', handle.workflowId)).code).toBe(0);
    const r = await handle.result();
    expect(r).toMatchObject({ status: 'cancelled', reason: 'user_abort' });
    await until(() => fs.existsSync(path.join(dir, 'aborted')));
    expect(Number(fs.readFileSync(path.join(dir, 'aborted'), 'utf8')) - cancelledAt).toBeLessThan(2000);
  });

  test('a follower sees the running tool, labelled tool · agent, from the history; then the cancel', async () => {
    const dir = t.folder('followed');
    t.h.stub.script('waiter', [{ toolCalls: [{ name: 'wait_for_cancel', arguments: { dir } }] }]);
    const handle = await t.h.start(ROLE(''));
    const watch = startTroupe('status', handle.workflowId, '--watch');
    await watch.waitForStdout('⚙ wait_for_cancel · waiter');
    expect(watch.stdout()).toMatch(/^\d\d:\d\d:\d\d {3}⚙ wait_for_cancel · waiter$/m);
    expect((await troupe('cancel', handle.workflowId)).code).toBe(0);
    const r = await watch.done;
    expect(r.code).toBe(2);
    expect(r.stdout).toContain('■ run ended: cancelled (user_abort)');
  });
});
