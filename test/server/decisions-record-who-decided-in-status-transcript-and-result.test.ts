/**
 * Who decided: `troupe reject|approve --by NAME` is recorded on the decision, and `troupe status`,
 * `troupe transcript` and the RunResult show it; a decision sent without `by` (a client older than
 * `--by`) still decides the request and is kept without a name.
 */
import { startHarness, waitForStatus, type Harness } from '../helpers/runs';
import { troupe } from '../helpers/cli';
import type { TranscriptStep } from '../../src/core/state/state';

const CONFIG = `
name: decided
agents:
  writer: { instructions: "Write." }
collaboration:
  topology: pipeline
  agents: [writer]
approval:
  before_exit: true
`;

describe('decisions say who decided', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => h?.close());
  beforeEach(() => h.stub.reset());

  test('--by is recorded and shown by status, transcript and the RunResult', async () => {
    h.stub.script('writer', [{ text: 'draft one' }, { text: 'draft two' }]);
    const handle = await h.start(CONFIG);
    const id = handle.workflowId;
    const first = await waitForStatus(handle, (s) => s.pending.some((p) => p.id === 'r1'));
    const { digest } = first.pending[0];
    const rejected = await troupe('reject', id, '--reason', 'needs a title', '--by', 'alice');
    expect(rejected).toMatchObject({ code: 0, stdout: `reject (r1, ${digest}) by alice to ${id}: applied to r1: a new round starts at writer with the reason\n` });

    const waiting = await waitForStatus(handle, (s) => s.pending.some((p) => p.id === 'r2'));
    expect(waiting.decisions).toEqual([
      { requestId: 'r1', request: 'before_exit', agent: 'writer', kind: 'reject', by: 'alice', at: expect.any(String), text: 'needs a title', digest },
    ]);
    const status = await troupe('status', id);
    expect(status.stdout).toMatch(/\n {2}✗ r1 \(before_exit\) writer rejected by alice at \d{4}-\d\d-\d\dT[\d:.]+Z — needs a title\n/);

    // a payload without `by` (older clients): the decision still counts, without a name
    await handle.signal('approve', { requestId: 'r2', digest: waiting.pending[0].digest });
    const r = await handle.result();
    expect(r.status).toBe('completed');
    expect(r.decisions.map((d) => [d.requestId, d.kind, d.by])).toEqual([
      ['r1', 'reject', 'alice'],
      ['r2', 'approve', undefined],
    ]);
    expect(Date.parse(r.decisions[0].at)).toBeLessThanOrEqual(Date.parse(r.decisions[1].at));

    const transcript = JSON.parse((await troupe('transcript', id, '--json')).stdout) as TranscriptStep[];
    expect(transcript.map((s) => (s.kind === 'decision' ? `decision ${s.decision?.requestId} by ${s.decision?.by ?? '-'}` : `${s.step} ${s.agent}`))).toEqual([
      '1 writer',
      'decision r1 by alice',
      '2 writer',
      'decision r2 by -',
    ]);
    const printed = await troupe('transcript', id);
    expect(printed.stdout).toContain('✗ r1 (before_exit) writer rejected by alice at ');
    expect(printed.stdout).toContain('✓ r2 (before_exit) writer approved by an unnamed sender at ');
  });
});
