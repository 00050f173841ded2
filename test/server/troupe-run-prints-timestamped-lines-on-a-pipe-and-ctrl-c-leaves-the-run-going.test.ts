/**
 * `troupe run` as a child process whose stdout is a pipe prints plain timestamped lines (one per
 * step, tool call, wait, decision, warning and end) with no escape codes, then the final line as
 * before; `troupe status --watch` follows a run the same way. Ctrl+C (SIGINT) while following exits
 * 130 with a message that the run goes on and the commands to see or cancel it — and it does go on.
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { decidePending, startHarness, waitForStatus, type Harness } from '../helpers/runs';
import { startTroupe } from '../helpers/cli';
import { testAddress } from '../helpers/temporal';
import { gateDigest } from '../../src/core/humans/digest';

const BIN = path.resolve(__dirname, '..', '..', 'bin', 'troupe.js');

const CONFIG = `
name: piped
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

const STAMP = /^\d\d:\d\d:\d\d /;

function writeConfig(yaml: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'troupe-pipe-'));
  const file = path.join(dir, 'role.yaml');
  fs.writeFileSync(file, yaml);
  return file;
}

/** `troupe <argv>` as a child process with stdout and stderr piped. */
function spawnTroupe(h: Harness, argv: string[]) {
  const env: NodeJS.ProcessEnv = { ...process.env, TEMPORAL_ADDRESS: testAddress(), TROUPE_TASK_QUEUE: h.worker.taskQueue };
  delete env.TROUPE_PROGRESS;
  const child = spawn(process.execPath, [BIN, ...argv], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    child,
    stdout: () => stdout,
    stderr: () => stderr,
    exited,
    async waitForStdout(text: string, timeoutMs = 60_000) {
      const deadline = Date.now() + timeoutMs;
      while (!stdout.includes(text)) {
        if (child.exitCode !== null || Date.now() > deadline) throw new Error(`stdout never showed ${JSON.stringify(text)}:\n${stdout}${stderr}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    },
  };
}

describe('troupe run on a pipe', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => h?.close());
  beforeEach(() => h.stub.reset());

  test('prints timestamped lines with no escape codes, then the final line and text', async () => {
    h.stub.script('editor', [{ text: 'tides rise and fall' }]);
    const id = `piped-${Date.now()}`;
    const run = spawnTroupe(h, ['run', writeConfig(CONFIG), '--id', id]);
    await run.waitForStdout(`approve: troupe approve ${id} --request r1`);
    await decidePending(h.client.workflow.getHandle(id), { kind: 'approve', by: 'alice' });
    expect(await run.exited).toBe(0);
    const out = run.stdout();
    expect(out).not.toContain('\u001b');
    const lines = out.trimEnd().split('\n');
    const progress = lines.slice(2, lines.indexOf(''));
    expect(lines[0]).toBe(`started run ${id} on task queue ${h.worker.taskQueue}`);
    // the run's page in the Web UI, derived for the local test server (docs/operating.md, "The Temporal UI")
    expect(lines[1]).toMatch(new RegExp(`^Web UI: http://127\\.0\\.0\\.1:\\d+/namespaces/default/workflows/${id}$`));
    for (const line of progress) expect(line).toMatch(STAMP);
    const unstamped = progress.map((l) => l.replace(STAMP, ''));
    expect(unstamped).toEqual([
      expect.stringMatching(/^ {2}\[round 1 · wave 1\] writer \(\d+ tok, #[0-9a-f]{12}\) writer reply 1$/),
      expect.stringMatching(/^ {2}\[round 1 · wave 2\] editor \(\d+ tok, #[0-9a-f]{12}\) tides rise and fall$/),
      '  ✋ waiting for a human: r1 (before_exit) editor — approve the final result of editor: tides rise and fall',
      `     digest:  ${gateDigest({ kind: 'before_exit', requestId: 'r1', agent: 'editor', tool: '', text: 'tides rise and fall' })}`,
      `     approve: troupe approve ${id} --request r1 [--note "..."]`,
      `     reject:  troupe reject ${id} --request r1 --reason "..."`,
      expect.stringMatching(/^ {2}✓ r1 \(before_exit\) editor approved by alice at \d{4}-/),
      '  ■ run ended: completed (exit)',
    ]);
    expect(lines.slice(lines.indexOf(''))).toEqual([
      '',
      expect.stringMatching(/^completed: editor took the exit edge after 1 round, 2 agent calls \(\d+ tokens\)$/),
      '',
      'tides rise and fall',
    ]);
  }, 120_000);

  test('troupe status --watch follows a running run to its end', async () => {
    h.stub.script('editor', [{ text: 'tides rise and fall' }]);
    const handle = await h.start(CONFIG);
    await waitForStatus(handle, (s) => s.phase === 'awaiting_human');
    const watch = startTroupe('status', handle.workflowId, '--watch');
    await watch.waitForStdout(`approve: troupe approve ${handle.workflowId} --request r1`);
    await decidePending(handle, { kind: 'approve' });
    const r = await watch.done;
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^\d\d:\d\d:\d\d {3}✋ waiting for a human: r1 \(before_exit\) editor/m);
    expect(r.stdout).toContain('\ncompleted: editor took the exit edge after 1 round, 2 agent calls');
  });

  test('troupe status --watch of an unknown id exits 1 saying so', async () => {
    const r = await startTroupe('status', 'no-such-run', '--watch').done;
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('no run with id no-such-run');
  });

  test('Ctrl+C stops following with exit 130, says the run goes on and how to see or cancel it', async () => {
    h.stub.script('writer', [{ text: 'draft', delayMs: 1_000 }]);
    const id = `interrupted-${Date.now()}`;
    const run = spawnTroupe(h, ['run', writeConfig(CONFIG), '--id', id]);
    await run.waitForStdout('] writer (');
    run.child.kill('SIGINT');
    expect(await run.exited).toBe(130);
    expect(run.stderr()).toContain(
      `stopped following ${id}; the run goes on.\n  see it:     troupe status ${id}\n  cancel it:  troupe cancel ${id}\n`,
    );
    // the run went on without its follower, to the wait for a human
    const handle = h.client.workflow.getHandle(id);
    const s = await waitForStatus(handle, (st) => st.phase === 'awaiting_human');
    expect(s.steps).toBe(2);
    await handle.cancel();
  }, 120_000);
});
