/**
 * `troupe run` on a terminal draws one live view and redraws it in place: captured at two moments
 * of a real run (an agent at work, then a wait for a human), the screen shows one current view, not
 * a growing log; the agent's elapsed time ticks between changes; the run ends with the final status
 * line and text under the last frame. The terminal is a real pseudo-terminal (tmux).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { decidePending, startHarness, type Harness } from '../helpers/runs';
import { testAddress } from '../helpers/temporal';
import { hasTmux, openTerminal, type Terminal } from '../helpers/terminal';

const BIN = path.resolve(__dirname, '..', '..', 'bin', 'troupe.js');
const ROOT = path.resolve(__dirname, '..', '..');

const CONFIG = `
name: live
task: "Write about tides"
agents:
  writer: { instructions: "Write." }
  editor: { instructions: "Edit." }
collaboration:
  topology: pipeline
  agents: [writer, editor]
approval:
  before_exit: true
`;

const tmuxMissing = !hasTmux();
if (tmuxMissing) console.warn('tmux is not installed: the live-view test in a pseudo-terminal is skipped (apt-get install tmux)');

/** Rows of the screen that start a frame of the live view for run `id`. */
const headers = (screen: string[], id: string) => screen.filter((row) => row.startsWith(`troupe · ${id} (live) · `));
const writerRow = (screen: string[]) => screen.find((row) => row.startsWith('  ▸ writer  '));

(tmuxMissing ? describe.skip : describe)('the live view of troupe run', () => {
  let h: Harness;
  let term: Terminal | undefined;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => {
    term?.close();
    await h?.close();
  });

  test('redraws one view in place at two moments, ticks, and ends with the final line', async () => {
    // the writer takes 4 s, so the view is caught with it at work
    h.stub.script('writer', [{ text: 'tides rise', delayMs: 4_000 }]);
    h.stub.script('editor', [{ text: 'tides rise and fall' }]);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'troupe-live-'));
    const file = path.join(dir, 'role.yaml');
    fs.writeFileSync(file, CONFIG);
    const id = `live-${Date.now()}`;
    term = openTerminal([process.execPath, BIN, 'run', file, '--id', id], {
      cwd: ROOT,
      env: { TEMPORAL_ADDRESS: testAddress(), TROUPE_TASK_QUEUE: h.worker.taskQueue },
      unset: ['CI', 'TROUPE_PROGRESS'],
    });

    // moment 1: the writer at work; its elapsed time ticks while nothing else changes
    const first = await term.waitFor((s) => writerRow(s) !== undefined, 'the writer at work', 60_000);
    expect(headers(first, id)).toHaveLength(1);
    expect(first.join('\n')).toContain('round 1 · wave 1 · 0 steps');
    const ticked = await term.waitFor((s) => writerRow(s) !== undefined && writerRow(s) !== writerRow(first), "the writer's elapsed time ticking");
    expect(headers(ticked, id)).toHaveLength(1);

    // moment 2: the wait for a human, with the command that answers it, in the same single view
    const waiting = await term.waitFor((s) => s.some((row) => row.includes(`approve: troupe approve ${id} --request r1`)), 'the pending request');
    expect(headers(waiting, id)).toHaveLength(1);
    expect(headers(waiting, id)[0]).toContain('· awaiting_human ·');
    expect(writerRow(waiting)).toBeUndefined();
    expect(waiting.join('\n')).toContain('round 1 · wave 2 · 2 steps');
    expect(waiting).toContain('  ✋ waiting for a human: r1 (before_exit) editor — approve the final result of editor: tides rise and fall');

    await decidePending(h.client.workflow.getHandle(id), { kind: 'approve', by: 'alice' });
    const end = await term.waitFor((s) => s.some((row) => row.startsWith('[exit ')), 'the command ending');
    const text = end.join('\n');
    expect(headers(end, id)).toHaveLength(1);
    expect(headers(end, id)[0]).toContain('· finished ·');
    expect(text).toContain('\ncompleted: editor took the exit edge after 1 round, 2 agent calls');
    expect(text).toContain('\ntides rise and fall\n');
    expect(end[end.length - 1]).toBe('[exit 0]');
  }, 120_000);
});
