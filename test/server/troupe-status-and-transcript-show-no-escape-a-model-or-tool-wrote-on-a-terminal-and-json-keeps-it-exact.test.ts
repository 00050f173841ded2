/**
 * Model and tool text is untrusted, and it reaches a terminal through `troupe status` (a pending
 * handoff's question, the warning naming a tool the model made up) and `troupe transcript` (a step's
 * text, a tool's result). A run whose model writes OSC 52 (a clipboard write), a window title and
 * CSI sequences (clear the screen, move the cursor, colour), in 7-bit and C1 form, waits for a human;
 * in a real terminal (tmux, set to accept a program's clipboard writes as a buffer) both commands
 * show every word and no escape: the clipboard and the pane title stay untouched, no colour is set
 * and the screen is not cleared. Piped, the plain output is printable too; `--json` keeps each text
 * exact, with what a terminal would act on escaped (docs/cli.md, "What reaches your terminal").
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { printable } from '../../src/core/text/printable';
import { troupe } from '../helpers/cli';
import { waitForStatus } from '../helpers/runs';
import { testAddress } from '../helpers/temporal';
import { hasTmux, openTerminal, type Terminal } from '../helpers/terminal';
import { startToolsHarness, type ToolsHarness } from '../helpers/tools';

const BIN = path.resolve(__dirname, '..', '..', 'bin', 'troupe.js');
const ROOT = path.resolve(__dirname, '..', '..');

const OSC52 = '\u001b]52;c;cHduZWQ=\u0007';
const TITLE = '\u001b]2;pwned-title\u0007';
const CSI = '\u001b[2J\u001b[H\u001b[31m';
const C1_CSI = '\u009b32m';
const HOSTILE_TOOL = `ghost${OSC52}${CSI}`;
const QUESTION = `Which invoice do you mean?${OSC52}${TITLE}${CSI} Say the number.`;
const TEXT = `Before the question.${TITLE}${OSC52}${CSI}red text${C1_CSI}after\nsecond line \u202ereversed`;
const SHOUTED = `loud${OSC52}`;

const CONFIG = `
name: hostile-text
agents:
  alice: { instructions: "Talk.", tools: [shout], handoffs: [user] }
collaboration:
  topology: pipeline
  agents: [alice]
`;

/** Characters a terminal acts on or reorders: C0 controls but the newline, DEL, C1, bidirectional controls. */
// eslint-disable-next-line no-control-regex
const ACTED_ON = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

describe('troupe status and troupe transcript of a run whose model wrote escapes', () => {
  let t: ToolsHarness;
  let term: Terminal | undefined;
  let id: string;
  beforeAll(async () => {
    if (!hasTmux()) throw new Error('tmux is needed for this terminal test (apt-get install tmux)');
    t = await startToolsHarness();
    t.h.stub.script('alice', [
      { toolCalls: [{ name: HOSTILE_TOOL, arguments: {} }, { name: 'shout', arguments: { text: SHOUTED, times: 1 } }] },
      { text: TEXT, toolCalls: [{ name: 'transfer_to_user', arguments: { message: QUESTION } }] },
    ]);
    const handle = await t.h.start(CONFIG);
    id = handle.workflowId;
    await waitForStatus(handle, (s) => s.phase === 'awaiting_human' && s.pending.length === 1);
  });
  afterAll(async () => {
    term?.close();
    await t?.close();
  });

  test('on a terminal: every word, no clipboard write, no title, no colour, no cleared screen', async () => {
    const file = path.join(t.dir, 'both.sh');
    fs.writeFileSync(file, `"${process.execPath}" "${BIN}" status "${id}"\necho "--- transcript ---"\n"${process.execPath}" "${BIN}" transcript "${id}"\n`);
    term = openTerminal(['sh', file], {
      cwd: ROOT,
      env: { TEMPORAL_ADDRESS: testAddress(), TROUPE_TASK_QUEUE: t.h.worker.taskQueue },
      columns: 200,
      rows: 80,
      config: ['set -s set-clipboard on'],
    });
    const screen = (await term.waitFor((s) => s.some((row) => row.startsWith('[exit ')), 'both commands ending', 60_000)).join('\n');
    expect(screen).toContain('[exit 0]');
    // nothing cleared or moved the screen: the first line is still the status's first line
    expect(screen.split('\n')[0]).toBe(`run ${id}: awaiting_human`);
    expect(screen).toContain('waiting for a human: r1 (handoff) alice — Which invoice do you mean? Say the number.');
    expect(screen).toMatch(/⚠ agent alice: the model called ghost, which it was not offered/);
    expect(screen).toContain('--- transcript ---');
    expect(screen).toContain('Before the question.red textafter');
    expect(screen).toContain('second line reversed');
    expect(screen).toContain('→ user: Which invoice do you mean? Say the number.');
    // the call's arguments are shown as JSON, where an escape is inert text; its result is printable
    expect(screen).toContain('↳ shout({"text":"loud\\u001b]52;c;cHduZWQ=\\u0007","times":1})');
    expect(screen).toMatch(/→ LOUD$/m);
    expect(screen).not.toContain('pwned');
    // no buffer from an OSC 52, no pane title from an OSC 2, no colour in the pane
    expect(term.tmux('list-buffers')).toBe('');
    expect(term.tmux('display', '-p', '#{pane_title}')).not.toContain('pwned');
    // eslint-disable-next-line no-control-regex
    expect(term.tmux('capture-pane', '-p', '-e', '-t', 'cli')).not.toMatch(/\u001b\[[0-9;]*3[12]m/);

    // the terminal does act on these when a program writes them: the checks above can fail
    term.tmux('new-window', '-d', `printf '\\033]52;c;cHduZWQ=\\007'; sleep 30`);
    for (const deadline = Date.now() + 10_000; term.tmux('list-buffers') === '' && Date.now() < deadline; ) await new Promise((r) => setTimeout(r, 50));
    expect(term.tmux('list-buffers')).toContain('pwned');
  }, 120_000);

  test('piped, the plain output is printable; --json keeps every text exact, with what a terminal acts on escaped', async () => {
    for (const command of ['status', 'transcript']) {
      const plain = await troupe(command, id);
      expect(plain.code).toBe(0);
      expect(plain.stdout).toBe(printable(plain.stdout));
      expect(plain.stdout).not.toMatch(ACTED_ON);
    }
    const status = await troupe('status', id, '--json');
    expect(status.stdout).not.toMatch(ACTED_ON);
    const view = JSON.parse(status.stdout);
    expect(view.pending[0]).toMatchObject({ id: 'r1', kind: 'handoff', summary: QUESTION });
    expect(view.warnings).toEqual(expect.arrayContaining([expect.stringContaining(HOSTILE_TOOL)]));
    const transcript = await troupe('transcript', id, '--json');
    expect(transcript.stdout).not.toMatch(ACTED_ON);
    const [step] = JSON.parse(transcript.stdout);
    expect(step).toMatchObject({ agent: 'alice', text: TEXT, handoff: { to: 'user', message: QUESTION } });
    expect(step.tools).toEqual(expect.arrayContaining([expect.objectContaining({ tool: 'shout', result: SHOUTED.toUpperCase() })]));
  });
});
