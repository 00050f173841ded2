/**
 * `troupe run` on a terminal shows what a streaming agent is writing (docs/observability.md, "Live
 * output"): under the agent's line, the last line of its text so far, which grows from one frame
 * to the next, with its character count on the agent's line; escape sequences the model writes
 * (a cleared screen, a window title, a colour) are not passed to the terminal; once the call ends
 * the text is gone from the view and the reply is the final text. A real pseudo-terminal (tmux).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { startHarness, type Harness } from '../helpers/runs';
import { testAddress } from '../helpers/temporal';
import { hasTmux, openTerminal, type Terminal } from '../helpers/terminal';

const BIN = path.resolve(__dirname, '..', '..', 'bin', 'troupe.js');
const ROOT = path.resolve(__dirname, '..', '..');

const CONFIG = `
name: live-text
task: "Write about tides"
agents:
  writer: { instructions: "Write." }
collaboration:
  topology: pipeline
  agents: [writer]
`;

/** Words that arrive over about 8 s, with escape sequences a hostile model might send among them. */
const REPLY =
  'The tide comes in \u001b[2J\u001b[Hslowly \u001b]0;pwned\u0007over the flats, \u001b[31mred\u001b[0m under a low moon, ' +
  Array.from({ length: 40 }, (_, i) => `wave${i + 1}`).join(' ') +
  ' and then it turns.';

const tmuxMissing = !hasTmux();
if (tmuxMissing) console.warn('tmux is not installed: the live-text test in a pseudo-terminal is skipped (apt-get install tmux)');

const writerRow = (screen: string[]) => screen.findIndex((row) => row.startsWith('  ▸ writer  '));
/** The row under the writer's line that shows its text, if any. */
const textRow = (screen: string[]) => {
  const at = writerRow(screen);
  return at >= 0 && screen[at + 1]?.startsWith('    │ ') ? screen[at + 1] : undefined;
};

(tmuxMissing ? describe.skip : describe)('the live view and a streaming agent', () => {
  let h: Harness;
  let term: Terminal | undefined;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => {
    term?.close();
    await h?.close();
  });

  test('shows the growing last line of its text under the agent, without the escapes the model sent', async () => {
    h.stub.script('writer', [{ text: REPLY, stream: { chunkChars: 6, chunkDelayMs: 120 } }]);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'troupe-live-text-'));
    const file = path.join(dir, 'role.yaml');
    fs.writeFileSync(file, CONFIG);
    const id = `live-text-${Date.now()}`;
    term = openTerminal([process.execPath, BIN, 'run', file, '--id', id], {
      cwd: ROOT,
      env: { TEMPORAL_ADDRESS: testAddress(), TROUPE_TASK_QUEUE: h.worker.taskQueue },
      unset: ['CI', 'TROUPE_PROGRESS'],
      columns: 100,
    });

    const first = await term.waitFor((s) => textRow(s) !== undefined, "the writer's text under its line", 60_000);
    expect(first[writerRow(first)]).toMatch(/^ {2}▸ writer {2}\d+\.\ds · \d+ chars$/);
    const grown = await term.waitFor((s) => textRow(s) !== undefined && textRow(s) !== textRow(first) && /wave\d/.test(textRow(s)!), 'the text growing');
    const shown = textRow(grown)!;
    expect(shown.length).toBeLessThanOrEqual(99);
    // one view, never cleared or overwritten by what the model wrote
    expect(grown.filter((row) => row.startsWith(`troupe · ${id} (live-text) · `))).toHaveLength(1);
    expect(grown.join('\n')).not.toContain('pwned');
    expect(grown.join('\n')).not.toMatch(/\[(2J|H|31m|0m)/);

    const end = await term.waitFor((s) => s.some((row) => row.startsWith('[exit ')), 'the command ending');
    expect(end[end.length - 1]).toBe('[exit 0]');
    expect(textRow(end)).toBeUndefined();
    expect(end.join('\n')).toContain('and then it turns.');
  }, 120_000);
});
