/**
 * `troupe chat` in a real terminal (tmux), against the dev server, a worker and the HTTP stub
 * (docs/cli.md, "troupe chat"):
 *
 * - a swarm whose agent transfers to the user twice in one run: both questions are asked at the
 *   prompt and answered there; the second line typed continues the first run as `<thread>/2`, with
 *   the first run's thread in its prompt; a gated tool call is shown whole, with its digest, and
 *   approved at the prompt (the decision names that digest, and the call runs); `/exit` names the
 *   thread;
 * - Ctrl+C at the prompt only says how to leave; at a question or during a call it stops the run
 *   (`cancelled/user_stop`) and the prompt comes back once it ended; twice cancels it
 *   (`cancelled/user_abort`); Ctrl+D ends the chat.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { listRuns } from '../../src/client';
import { CHAT_TEXTS } from '../../src/cli/chat-lines';
import type { RunResult } from '../../src/core/ending/result';
import { testAddress } from '../helpers/temporal';
import { hasTmux, openTerminal, type Terminal } from '../helpers/terminal';
import { startToolsHarness, type ToolsHarness } from '../helpers/tools';

const BIN = path.resolve(__dirname, '..', '..', 'bin', 'troupe.js');
const ROOT = path.resolve(__dirname, '..', '..');

const DESK = (name: string) => `
name: ${name}
agents:
  alice: { instructions: "Help the customer.", handoffs: [bob, user], tools: [append_line] }
  bob: { instructions: "Help.", handoffs: [alice] }
collaboration:
  topology: swarm
  agents: [alice, bob]
  max_turns: 10
  termination: { any_of: [{ text_mention: DONE }] }
approval:
  tools: [append_*]
`;

const transferToUser = (message: string) => ({ toolCalls: [{ name: 'transfer_to_user', arguments: { message } }] });

const tmuxMissing = !hasTmux();
if (tmuxMissing) console.warn('tmux is not installed: the troupe chat test in a pseudo-terminal is skipped (apt-get install tmux)');

/** The prompt is back: the screen's last row is it (tmux trims its trailing space). */
const atPrompt = (prompt: string) => (s: string[]) => (s.at(-1) ?? '').startsWith(prompt.trimEnd());

(tmuxMissing ? describe.skip : describe)('troupe chat in a terminal', () => {
  let t: ToolsHarness;
  let term: Terminal | undefined;
  beforeAll(async () => {
    t = await startToolsHarness();
  });
  afterEach(() => {
    term?.close();
    term = undefined;
  });
  afterAll(async () => t?.close());
  beforeEach(() => t.h.stub.reset());

  /** Open `troupe chat` on a role file of `yaml`, at its first prompt. */
  async function chat(yaml: string): Promise<Terminal> {
    const file = path.join(t.folder(`chat-${Date.now()}`), 'role.yaml');
    fs.writeFileSync(file, yaml);
    term = openTerminal([process.execPath, BIN, 'chat', file], {
      cwd: ROOT,
      env: { TEMPORAL_ADDRESS: testAddress(), TROUPE_TASK_QUEUE: t.h.worker.taskQueue },
      unset: ['CI', 'TROUPE_PROGRESS'],
      columns: 200,
      rows: 40,
    });
    await term.waitFor(atPrompt(CHAT_TEXTS.prompt), 'the first prompt', 60_000);
    return term;
  }

  /** Type `text` and Enter. */
  const type = (tm: Terminal, text: string) => {
    tm.tmux('send-keys', '-t', 'cli', '-l', text);
    tm.tmux('send-keys', '-t', 'cli', 'Enter');
  };
  /** Everything the terminal printed so far, the scrolled-off rows too. */
  const everything = (tm: Terminal) => tm.tmux('capture-pane', '-p', '-S', '-', '-t', 'cli');
  const result = (id: string): Promise<RunResult> => t.h.client.workflow.getHandle(id).result();

  test('two questions answered and a gated call approved at the prompt; the second line continues the thread; /exit names it', async () => {
    const file = path.join(t.folder('mail'), 'note.txt');
    const call = { name: 'append_line', arguments: { file, line: 'refund mailed for INV-7' } };
    t.h.stub.script('alice', [
      transferToUser('Which invoice do you mean?'),
      transferToUser('Which month was it charged?'),
      { text: 'Refunded INV-7 for May. DONE' },
      { toolCalls: [call] },
      { text: 'Mailed the refund note. DONE' },
    ]);
    const tm = await chat(DESK(`chatdesk${Date.now()}`));

    type(tm, 'I was charged twice');
    const asked = await tm.waitFor((s) => s.includes('✋ alice asks you (r1):') && atPrompt(CHAT_TEXTS.answerPrompt)(s), 'the first question at the prompt', 60_000);
    expect(asked).toContain('  │ Which invoice do you mean?');
    const thread = /^run (\S+) starts thread \1$/m.exec(everything(tm))?.[1];
    expect(thread).toBeDefined();

    type(tm, 'INV-7');
    await tm.waitFor((s) => s.includes('✋ alice asks you (r2):') && atPrompt(CHAT_TEXTS.answerPrompt)(s), 'the second question at the prompt');
    expect(tm.screen()).toContain('  │ Which month was it charged?');
    type(tm, 'May');
    await tm.waitFor((s) => s.includes('Refunded INV-7 for May. DONE') && atPrompt(CHAT_TEXTS.prompt)(s), 'the final text, then the prompt');
    const first = await result(thread!);
    expect(first).toMatchObject({ status: 'completed', reason: 'text_mention', finalText: 'Refunded INV-7 for May. DONE' });
    expect(first.decisions?.map((d) => [d.requestId, d.kind, d.text])).toEqual([
      ['r1', 'answer', 'INV-7'],
      ['r2', 'answer', 'May'],
    ]);

    // the second line continues the first run: `<thread>/2`, the first run's thread in its prompt
    type(tm, 'and mail me a note');
    const gate = await tm.waitFor((s) => s.includes('✋ alice waits for your decision (r1, tool_call):') && atPrompt(CHAT_TEXTS.yesOrNoPrompt)(s), 'the gated call at the prompt');
    expect(everything(tm)).toContain(`run ${thread}/2 continues ${thread}`);
    expect(gate).toContain('  append_line will receive exactly:');
    expect(gate).toContain(`  │   "file": ${JSON.stringify(file)},`);
    expect(gate).toContain('  │   "line": "refund mailed for INV-7"');
    const digest = gate.map((row) => /^ {2}digest: {2}(sha256:[0-9a-f]+)$/.exec(row)?.[1]).find(Boolean);
    expect(digest).toBeDefined();
    expect(fs.existsSync(file)).toBe(false);
    const continued = t.h.stub.requestsFor('alice')[3].prompt as string;
    // the new task closes the thread (the prompt names it on top too)
    const order = [
      ...['I was charged twice', 'Which invoice do you mean?', 'INV-7', 'Which month was it charged?', 'May', 'Refunded INV-7 for May. DONE'].map((s) => continued.indexOf(s)),
      continued.lastIndexOf('and mail me a note'),
    ];
    expect(order.every((at) => at >= 0)).toBe(true);
    expect(order).toEqual([...order].sort((a, b) => a - b));

    type(tm, 'y');
    await tm.waitFor((s) => s.includes('Mailed the refund note. DONE') && atPrompt(CHAT_TEXTS.prompt)(s), 'the second final text, then the prompt');
    const second = await result(`${thread}/2`);
    expect(second).toMatchObject({ status: 'completed', reason: 'text_mention' });
    // what was approved is what ran: the decision names the digest shown, and the line was written
    expect(second.decisions).toEqual([expect.objectContaining({ requestId: 'r1', request: 'tool_call', kind: 'approve', digest })]);
    expect(fs.readFileSync(file, 'utf8')).toBe('refund mailed for INV-7\n');

    type(tm, '/exit');
    const end = await tm.waitFor((s) => s.some((row) => row.startsWith('[exit ')), 'the chat ending');
    expect(end).toContain(CHAT_TEXTS.closing(thread));
    expect(end.at(-1)).toBe('[exit 0]');
    if (process.env.TROUPE_CHAT_SCREEN) fs.writeFileSync(process.env.TROUPE_CHAT_SCREEN, everything(tm));
    const runs = await listRuns(t.h.client, { thread: thread! });
    expect(runs.runs.map((r) => r.workflowId)).toEqual([thread, `${thread}/2`]);
  }, 180_000);

  test('Ctrl+C at a question or during a call stops the run and the prompt comes back once it ended; twice cancels it; Ctrl+D ends the chat', async () => {
    t.h.stub.script('alice', [transferToUser('Shall I wait?'), { text: 'a slow reply', delayMs: 4_000 }, { text: 'never sent', delayMs: 120_000 }]);
    const tm = await chat(DESK(`chatstop${Date.now()}`));
    const atWork = (s: string[]) => s.some((row) => row.startsWith('  ▸ alice  '));

    // at the prompt, with no run, Ctrl+C only says how to leave
    tm.tmux('send-keys', '-t', 'cli', 'C-c');
    await tm.waitFor((s) => s.includes(CHAT_TEXTS.atPrompt) && atPrompt(CHAT_TEXTS.prompt)(s), 'the reminder, then the prompt');

    // at a question: the run is stopped, the question left
    type(tm, 'ask me something');
    await tm.waitFor(atPrompt(CHAT_TEXTS.answerPrompt), 'the question', 60_000);
    const thread = /^run (\S+) starts thread \1$/m.exec(everything(tm))?.[1];
    expect(thread).toBeDefined();
    tm.tmux('send-keys', '-t', 'cli', 'C-c');
    await tm.waitFor((s) => s.includes(CHAT_TEXTS.stopping(thread!)), 'the stop said');
    const left = await tm.waitFor(atPrompt(CHAT_TEXTS.prompt), 'the prompt back after the run ended');
    expect(left.join('\n')).toMatch(/^cancelled: stopped on request/m);
    expect(await result(thread!)).toMatchObject({ status: 'cancelled', reason: 'user_stop', steps: 1 });

    // during a model call: the call finishes, then the run ends and the prompt comes back
    type(tm, 'take your time');
    await tm.waitFor((s) => s.includes(`run ${thread}/2 continues ${thread}`) && atWork(s), 'alice at work');
    tm.tmux('send-keys', '-t', 'cli', 'C-c');
    await tm.waitFor((s) => s.includes(CHAT_TEXTS.stopping(`${thread}/2`)), 'the stop said');
    await tm.waitFor(atPrompt(CHAT_TEXTS.prompt), 'the prompt back after the run ended');
    expect(everything(tm).match(/^cancelled: stopped on request/gm)).toHaveLength(2);
    // the prompt came back once the run had ended, with alice's call finished first
    expect(await result(`${thread}/2`)).toMatchObject({ status: 'cancelled', reason: 'user_stop', steps: 1 });

    type(tm, 'again, slowly');
    await tm.waitFor((s) => s.includes(`run ${thread}/3 continues ${thread}/2`) && atWork(s), 'the second run at work');
    tm.tmux('send-keys', '-t', 'cli', 'C-c');
    await tm.waitFor((s) => s.includes(CHAT_TEXTS.stopping(`${thread}/3`)), 'the stop said');
    tm.tmux('send-keys', '-t', 'cli', 'C-c');
    await tm.waitFor((s) => s.includes(CHAT_TEXTS.cancelling(`${thread}/3`)), 'the cancel said');
    const cancelled = await tm.waitFor(atPrompt(CHAT_TEXTS.prompt), 'the prompt back after the cancel');
    expect(cancelled.join('\n')).toMatch(/^cancelled: workflow cancelled/m);
    expect(await result(`${thread}/3`)).toMatchObject({ status: 'cancelled', reason: 'user_abort' });

    tm.tmux('send-keys', '-t', 'cli', 'C-d');
    const end = await tm.waitFor((s) => s.some((row) => row.startsWith('[exit ')), 'the chat ending');
    expect(end).toContain(CHAT_TEXTS.closing(thread));
    expect(end.at(-1)).toBe('[exit 0]');
  }, 180_000);
});
