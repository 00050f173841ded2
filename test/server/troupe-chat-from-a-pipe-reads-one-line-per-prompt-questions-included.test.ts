/**
 * `troupe chat` with its lines from a pipe (docs/cli.md, "troupe chat"): each line is read at the
 * prompt that comes next — a question's too — and written after that prompt, so the output reads as
 * the conversation; the view is plain lines; the second task continues the first run; `/exit` ends
 * the chat, exit 0, naming the thread. A `--continue` the run refuses is refused before the prompt
 * opens, with every problem, exit 1.
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { CHAT_TEXTS } from '../../src/cli/chat-lines';
import { troupe } from '../helpers/cli';
import { startHarness, type Harness } from '../helpers/runs';
import { testAddress } from '../helpers/temporal';

const BIN = path.resolve(__dirname, '..', '..', 'bin', 'troupe.js');

const SWARM = `
name: piped
agents:
  alice: { instructions: "Help.", handoffs: [bob, user] }
  bob: { instructions: "Help.", handoffs: [alice] }
collaboration:
  topology: swarm
  agents: [alice, bob]
  max_turns: 5
  termination: { any_of: [{ text_mention: DONE }] }
`;

describe('troupe chat from a pipe', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => h?.close());

  test('one line per prompt, a question answered by the next line, the second task continuing the first run', async () => {
    h.stub.script('alice', [{ toolCalls: [{ name: 'transfer_to_user', arguments: { message: 'Which one?' } }] }, { text: 'The blue one it is. DONE' }, { text: 'Painted. DONE' }]);
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'troupe-chat-pipe-')), 'role.yaml');
    fs.writeFileSync(file, SWARM);
    const chat = spawn(process.execPath, [BIN, 'chat', file], { env: { ...process.env, TEMPORAL_ADDRESS: testAddress(), TROUPE_TASK_QUEUE: h.worker.taskQueue, TROUPE_PROGRESS: '' } });
    let output = '';
    chat.stdout.on('data', (d: Buffer) => (output += d.toString()));
    chat.stderr.on('data', (d: Buffer) => (output += d.toString()));
    chat.stdin.end('pick a colour\nthe blue one\npaint it\n/exit\n');
    const code = await new Promise((resolve) => chat.on('exit', resolve));

    expect(code).toBe(0);
    const thread = /^run (\S+) starts thread \1$/m.exec(output)?.[1];
    expect(thread).toBeDefined();
    const lines = [
      `${CHAT_TEXTS.prompt}pick a colour`,
      '✋ alice asks you (r1):',
      '  │ Which one?',
      `${CHAT_TEXTS.answerPrompt}the blue one`,
      'The blue one it is. DONE',
      `${CHAT_TEXTS.prompt}paint it`,
      `run ${thread}/2 continues ${thread}`,
      'Painted. DONE',
      `${CHAT_TEXTS.prompt}/exit`,
      CHAT_TEXTS.closing(thread),
    ];
    const rows = output.split('\n');
    const at = lines.map((l) => rows.indexOf(l));
    expect(at.every((i) => i >= 0)).toBe(true);
    expect(at).toEqual([...at].sort((a, b) => a - b));
    // plain lines, stamped, no escape codes
    expect(output).toMatch(/^\d\d:\d\d:\d\d {3}\[round 1 · wave 1\] alice/m);
    expect(output).not.toContain('\u001b');
    const second = await h.client.workflow.getHandle(`${thread}/2`).result();
    expect(second).toMatchObject({ status: 'completed', finalText: 'Painted. DONE' });
    expect(h.stub.requestsFor('alice')[2].prompt).toContain('the blue one');
  }, 60_000);

  test('a --continue of a run with other agents is refused before the prompt opens, naming every problem, exit 1', async () => {
    const source = await h.start(SWARM.replace(/bob/g, 'carol'), { task: 'hello' });
    await source.result();
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'troupe-chat-pipe-')), 'role.yaml');
    fs.writeFileSync(file, SWARM);
    process.env.TROUPE_TASK_QUEUE = h.worker.taskQueue;
    try {
      const r = await troupe('chat', file, '--continue', source.workflowId);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/^cannot continue: .*"carol".*\n(.*\n)*cannot continue: .*"bob"/m);
      expect(r.stdout).not.toContain(CHAT_TEXTS.prompt);
    } finally {
      delete process.env.TROUPE_TASK_QUEUE;
    }
  });
});
