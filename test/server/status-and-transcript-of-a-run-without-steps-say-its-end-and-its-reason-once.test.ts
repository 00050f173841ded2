/**
 * A run that fails before its first step: `troupe transcript` says it recorded no steps and how it
 * ended (exit 0), and `troupe status` says the reason once (`failed/activity_failed: agent writer …`,
 * not `failed/activity_failed: activity_failed: …`). A run still at its first call has no steps yet;
 * one terminated from outside says so.
 */
import { troupe } from '../helpers/cli';
import { startHarness, waitForStatus, type Harness } from '../helpers/runs';

const ONE = `
name: solo
agents:
  writer: { instructions: "Write." }
collaboration:
  topology: pipeline
  agents: [writer]
`;

describe('a run without steps', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => h?.close());
  beforeEach(() => h.stub.reset());

  test.each([
    ['activity_failed', { status: 500, errorMessage: 'upstream exploded' }, 'agent writer failed after 3 attempts: '],
    ['fatal_error', { status: 401, errorMessage: 'Incorrect API key provided' }, 'agent writer got HTTP 401'],
  ])('failed/%s: transcript says it recorded no steps and why, status says the reason once', async (reason, step, detail) => {
    h.stub.script('writer', [step]);
    const handle = await h.start(ONE);
    const id = handle.workflowId;
    const result = await handle.result();
    expect(result).toMatchObject({ status: 'failed', reason, steps: 0 });
    expect(result.reasonText.startsWith(`${reason}: ${detail}`)).toBe(true);
    const end = `failed/${reason}: ${result.reasonText.slice(reason.length + 2)}`;

    expect(await troupe('transcript', id)).toEqual({ code: 0, stdout: `run ${id} recorded no steps (${end})\n`, stderr: '' });
    expect(JSON.parse((await troupe('transcript', id, '--json')).stdout)).toEqual([]);

    const status = await troupe('status', id);
    expect(status.code).toBe(0);
    expect(status.stdout.split('\n')[0]).toBe(`run ${id}: finished — ${end}`);
    expect(status.stdout).not.toContain(`${reason}: ${reason}`);
  });

  test('a run at its first call has no steps yet; terminated, it recorded none', async () => {
    h.stub.script('writer', [{ hang: true }]);
    const handle = await h.start(ONE);
    const id = handle.workflowId;
    await waitForStatus(handle, (s) => s.inFlight.length > 0);
    expect(await troupe('transcript', id)).toEqual({ code: 0, stdout: `run ${id} has no steps yet\n`, stderr: '' });
    await handle.terminate('test');
    expect(await troupe('transcript', id)).toEqual({ code: 0, stdout: `run ${id} recorded no steps (workflow terminated)\n`, stderr: '' });
  });
});
