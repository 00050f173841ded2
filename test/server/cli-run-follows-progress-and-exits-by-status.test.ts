import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { decidePending, startHarness, waitForStatus, type Harness } from '../helpers/runs';
import { startTroupe, troupe } from '../helpers/cli';

function writeConfig(yaml: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'troupe-cli-'));
  const file = path.join(dir, 'role.yaml');
  fs.writeFileSync(file, yaml);
  return file;
}

const LOOP = (termination: string) => `
name: cli-run
task: "Write about tides"
agents:
  writer: { instructions: "Write." }
  critic: { instructions: "Critique." }
collaboration:
  topology: review-loop
  agents: [writer, critic]
  termination:
    any_of:
${termination}
`;

describe('troupe run', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
    process.env.TROUPE_TASK_QUEUE = h.worker.taskQueue;
  });
  afterAll(async () => {
    delete process.env.TROUPE_TASK_QUEUE;
    await h?.close();
  });
  beforeEach(() => h.stub.reset());

  test('--json prints the RunResult as one JSON line and exits 0 when completed', async () => {
    h.stub.script('critic', [{ text: 'score: 90' }]);
    const file = writeConfig(LOOP('      - result_matches: { agent: critic, score_gte: 85 }'));
    const r = await troupe('run', file, '--json');
    expect(r.code).toBe(0);
    const lines = r.stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0])).toMatchObject({ status: 'completed', reason: 'result_match', finalAgent: 'critic' });
    expect(r.stderr).toContain('[round 1 · wave 1] writer');
  });

  test('follows progress, prints a distinct final line, exits 2 when exhausted', async () => {
    const file = writeConfig(LOOP('      - max_iterations: 2'));
    const r = await troupe('run', file, '--task', 'Other task', '--id', `cli-${Date.now()}`);
    expect(r.code).toBe(2);
    expect(r.stdout).toContain('[round 1 · wave 4] critic');
    expect(r.stdout).toMatch(
      /\nexhausted: loop critic,writer reached 2 after 1 round, 4 agent calls \(\d+ tokens\); raise collaboration\.max_iterations \(or the max_iterations condition\) to allow more iterations\n/,
    );
    expect(h.stub.requestsFor('writer')[0].prompt).toContain('Other task');
  });

  test('status, transcript and result read a finished run', async () => {
    h.stub.script('critic', [{ text: 'score: 99' }]);
    const file = writeConfig(LOOP('      - result_matches: { agent: critic, score_gte: 85 }'));
    const id = `cli-inspect-${Date.now()}`;
    expect((await troupe('run', file, '--id', id, '--detach')).code).toBe(0);
    const result = await troupe('result', id, '--json');
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ workflowId: id, status: 'completed' });
    const transcript = await troupe('transcript', id, '--json');
    const steps = JSON.parse(transcript.stdout);
    expect(steps.map((s: { agent: string }) => s.agent)).toEqual(['writer', 'critic']);
    expect(steps[1]).toMatchObject({ round: 1, wave: 2, text: 'score: 99' });
    const status = await troupe('status', id);
    expect(status.stdout).toContain(`run ${id}: finished — completed/result_match`);
    const missing = await troupe('status', 'no-such-run');
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('no run with id no-such-run');
  });

  test('shows when the run waits for a human and the exact command to answer it', async () => {
    const file = writeConfig(`
name: cli-approve
task: t
agents:
  writer: { instructions: "Write." }
collaboration:
  topology: pipeline
  agents: [writer]
approval:
  before_exit: true
`);
    const id = `cli-approve-${Date.now()}`;
    const running = startTroupe('run', file, '--id', id);
    await running.waitForStdout(`troupe approve ${id} --request r1`);
    const handle = h.client.workflow.getHandle(id);
    await waitForStatus(handle, (s) => s.phase === 'awaiting_human');
    expect(running.stdout()).toContain(`  ✋ waiting for a human: r1 (before_exit) writer — approve the final result of writer: writer reply 1\n`);
    expect(running.stdout()).not.toContain('answer:');
    await decidePending(handle, { kind: 'approve' });
    const r = await running.done;
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('\ncompleted: writer took the exit edge');
  });

  const SCORED = (maxRetries: number) => `
name: cli-scored
task: "Grade the essay"
agents:
  grader: { instructions: "Reply with JSON {score: number}." }
collaboration:
  topology: pipeline
  agents: [grader]
output:
  schema: { type: object, properties: { score: { type: number } }, required: [score] }
  max_retries: ${maxRetries}
`;
  const usage = { prompt_tokens: 10, completion_tokens: 5 };

  test('a completed run whose output never matches its schema exits 2 and prints the output errors after the final line', async () => {
    h.stub.script('grader', [{ text: '{"score": "high"}', usage }]);
    const r = await troupe('run', writeConfig(SCORED(1)));
    expect(r.code).toBe(2);
    expect(h.stub.hits('grader')).toBe(2);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines.slice(-6)).toEqual([
      '',
      'completed with an invalid output: grader took the exit edge after 1 round, 2 agent calls (30 tokens); the final result does not match output.schema (errors below)',
      '',
      '{"score": "high"}',
      '',
      'output error: /score: must be number',
    ]);
  });

  test('the same graph exits 0 with no output errors once a retry matches the schema', async () => {
    h.stub.script('grader', [{ text: '{"score": "high"}', usage }, { text: '{"score": 91}', usage }]);
    const r = await troupe('run', writeConfig(SCORED(1)), '--json');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ status: 'completed', outputValid: true, output: { score: 91 } });
    expect(r.stdout + r.stderr).not.toContain('output error:');
  });

  test('config errors exit 1 with located messages and nothing is started', async () => {
    const file = writeConfig('name: bad\nagents:\n  a: { instructions: x }\ncollaboration:\n  topology: pipeline\n  agents: [a, ghost]\n');
    const r = await troupe('run', file);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/role\.yaml:6:\d+ collaboration\.agents\[1\]/);
  });

  test('an unreachable Temporal exits 1 with a clear message', async () => {
    const file = writeConfig(LOOP('      - max_iterations: 1'));
    const saved = process.env.TEMPORAL_ADDRESS;
    const r = await (async () => {
      const { main } = await import('../../src/cli/main');
      process.env.TEMPORAL_ADDRESS = '127.0.0.1:1';
      let err = '';
      const write = process.stderr.write.bind(process.stderr);
      process.stderr.write = ((c: string) => ((err += c), true)) as typeof process.stderr.write;
      try {
        return { code: await main(['run', file]), err };
      } finally {
        process.stderr.write = write;
        process.env.TEMPORAL_ADDRESS = saved;
      }
    })();
    expect(r.code).toBe(1);
    expect(r.err).toContain('cannot reach Temporal at 127.0.0.1:1');
  });
});
