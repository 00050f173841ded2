/**
 * `troupe rewind <id> --to-step N` (docs/cli.md, "troupe rewind"): Temporal's workflow reset to
 * the workflow task after step N's result — a new run of the same workflow id whose steps after N run
 * again with the prompts they had, the original run kept and listed; and a bad step refused, located,
 * exit 1, with nothing reset.
 */
import { followRun, listRuns } from '../../src/client';
import { PROGRESS_RECORD_KEY } from '../../src/core/observe/progress';
import type { RunResult } from '../../src/core/ending/result';
import { troupe } from '../helpers/cli';
import { startHarness, compileYaml, type Harness } from '../helpers/runs';
import { uniqueWorkflowId } from '../helpers/temporal';

const PANEL = `
name: panel
agents:
  alice: { instructions: "Propose." }
  bob: { instructions: "Challenge." }
  carol: { instructions: "Summarize." }
collaboration:
  topology: round-robin
  agents: [alice, bob, carol]
  max_iterations: 5
  termination:
    any_of:
      - max_messages: 4
`;

/** The workflow's executions, newest first (visibility is eventually consistent: wait for `count`); of this graph only, so another test's encrypted runs are never decoded. */
async function executions(h: Harness, id: string, count: number) {
  for (;;) {
    const runs = (await listRuns(h.client, { graph: 'panel' }, 200)).runs.filter((r) => r.workflowId === id);
    if (runs.length >= count) return runs;
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe('troupe rewind (replay)', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => h?.close());

  test('rewinding to step 2 runs steps 3 and 4 again with their prompts; the original run is kept and listed', async () => {
    // carol says the same each time, so alice's prompt after her is the same in both runs
    h.stub.script('carol', [{ text: 'carol sums up' }]);
    const first = await h.start(compileYaml(PANEL), { task: 'plan a picnic', workflowId: uniqueWorkflowId('rewind') });
    const original = await first.result();
    expect(original).toMatchObject({ status: 'exhausted', reason: 'max_messages', steps: 4 });
    const asked = h.stub.requests.filter((q) => q.kind === 'agent' && q.workflowId === first.workflowId);
    expect(asked.map((q) => q.agent)).toEqual(['alice', 'bob', 'carol', 'alice']);

    const before = h.stub.requests.length;
    const cli = await troupe('rewind', first.workflowId, '--to-step', '2');
    expect(cli.stderr).toBe('');
    expect(cli.code).toBe(0);
    expect(cli.stdout).toMatch(new RegExp(`^rewound ${first.workflowId} to after step 2: a new run \\S+ runs the 2 steps after it again \\(the original run ${first.firstExecutionRunId} stays in its history\\)`));

    const again = await h.client.workflow.getHandle(first.workflowId).result() as RunResult;
    expect(again).toMatchObject({ status: 'exhausted', reason: 'max_messages', steps: 4 });
    const rerun = h.stub.requests.slice(before).filter((q) => q.kind === 'agent');
    expect(rerun.map((q) => q.agent)).toEqual(['carol', 'alice']);
    expect(rerun.map((q) => q.prompt)).toEqual(asked.slice(2).map((q) => q.prompt));

    // both executions are listed; the original's result is as it was
    const runs = await executions(h, first.workflowId, 2);
    expect(runs.map((r) => r.runId)).toContain(first.firstExecutionRunId);
    expect(runs).toHaveLength(2);
    const kept = (await h.client.workflow.getHandle(first.workflowId, first.firstExecutionRunId).result()) as RunResult;
    expect(kept.steps).toBe(4);
    expect(kept.output).toEqual(original.output);
  });

  test('a followed run, as `troupe run` follows it, rewinds too: the probe replays its progress records', async () => {
    h.stub.script('carol', [{ text: 'carol sums up' }]);
    const first = await h.start(compileYaml(PANEL), { task: 'plan a walk', workflowId: uniqueWorkflowId('rewind-followed') });
    const steps: number[] = [];
    await followRun(first, (e) => e.kind === 'step' && steps.push(e.step.step));
    expect(steps).toEqual([1, 2, 3, 4]);
    const history = (await first.fetchHistory()).events ?? [];
    expect(history.some((e) => e.workflowPropertiesModifiedEventAttributes?.upsertedMemo?.fields?.[PROGRESS_RECORD_KEY])).toBe(true);
    const cli = await troupe('rewind', first.workflowId, '--to-step', '2');
    expect(cli.stderr).toBe('');
    expect(cli.code).toBe(0);
    const again = (await h.client.workflow.getHandle(first.workflowId).result()) as RunResult;
    expect(again).toMatchObject({ status: 'exhausted', reason: 'max_messages', steps: 4 });
  });

  test('a bad step is refused, located, exit 1, and nothing is reset', async () => {
    const first = await h.start(compileYaml(PANEL), { task: 'plan', workflowId: uniqueWorkflowId('rewind-bad') });
    await first.result();
    const zero = await troupe('rewind', first.workflowId, '--to-step', '0');
    expect(zero).toMatchObject({ code: 1, stdout: '' });
    expect(zero.stderr.trim()).toBe("cannot rewind: --to-step 0: no step 0; the run's steps are 1 to 4 (`troupe transcript` shows them)");
    const beyond = await troupe('rewind', first.workflowId, '--to-step', '9');
    expect(beyond.code).toBe(1);
    expect(beyond.stderr.trim()).toBe("cannot rewind: --to-step 9: no step 9; the run's steps are 1 to 4 (`troupe transcript` shows them)");
    const last = await troupe('rewind', first.workflowId, '--to-step', '4');
    expect(last.code).toBe(1);
    expect(last.stderr.trim()).toBe("cannot rewind: --to-step 4: step 4 is the run's last step: nothing would run again");
    const word = await troupe('rewind', first.workflowId, '--to-step', 'two');
    expect(word.code).toBe(1);
    expect(word.stderr.trim()).toBe('cannot rewind: --to-step: "two" is not a step number (steps are numbered from 1, as `troupe transcript` shows them)');
    const desc = await h.client.workflow.getHandle(first.workflowId).describe();
    expect(desc.runId).toBe(first.firstExecutionRunId);
  });

  test('a running run is reset only when confirmed: refused without a terminal and without --yes, reset with --yes', async () => {
    h.stub.script('carol', [{ hang: true }]);
    const first = await h.start(compileYaml(PANEL), { task: 'plan', workflowId: uniqueWorkflowId('rewind-running') });
    await h.stub.waitForRequests(1, (q) => q.agent === 'carol' && q.workflowId === first.workflowId);
    const refused = await troupe('rewind', first.workflowId, '--to-step', '1');
    expect(refused.code).toBe(1);
    expect(refused.stderr.trim()).toBe(`cannot rewind: ${first.workflowId} is still running: a rewind resets it (its running child teams are cancelled); confirm, or pass --yes`);
    expect((await h.client.workflow.getHandle(first.workflowId).describe()).runId).toBe(first.firstExecutionRunId);

    h.stub.script('carol', [{ text: 'carol sums up' }]);
    const done = await troupe('rewind', first.workflowId, '--to-step', '1', '--yes');
    expect(done.code).toBe(0);
    const again = (await h.client.workflow.getHandle(first.workflowId).result()) as RunResult;
    expect(again).toMatchObject({ status: 'exhausted', reason: 'max_messages', steps: 4 });
    // the original run was ended by the reset, not by troupe
    const original = await h.client.workflow.getHandle(first.workflowId, first.firstExecutionRunId).describe();
    expect(original.status.name).toBe('TERMINATED');
  });
});
