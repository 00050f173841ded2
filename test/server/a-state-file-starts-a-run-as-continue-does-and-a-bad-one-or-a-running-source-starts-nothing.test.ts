/**
 * Saving and loading a team (docs/semantics.md, "Teams that go on"), through the real CLI, worker,
 * dev server and HTTP stub:
 *
 * - `troupe state ID --out F` then `troupe run role.yaml --state F --task T` gives the continued
 *   run the same first prompt as `troupe run role.yaml --continue ID --task T`;
 * - an unknown version (naming `version`), a schema error (naming the field) and a state over its
 *   bound (naming its largest part) are refused, exit 1, nothing started;
 * - continuing a run that is still running is refused, exit 1, nothing started;
 * - `troupe list --thread T` lists a thread's runs oldest first, and `troupe transcript --thread T`
 *   prints each run's steps after a line where the run began.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { WorkflowNotFoundError } from '@temporalio/client';
import { listRuns } from '../../src/client';
import { CONTINUE_TEXTS } from '../../src/client/team-state';
import { CLI_RUN_TEXTS } from '../../src/cli/run-texts';
import { TEAM_STATE_TEXTS, type TeamState } from '../../src/core/state/team-state';
import { troupe } from '../helpers/cli';
import { startHarness, waitForStatus, compileYaml, type Harness } from '../helpers/runs';
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
      - text_mention: DONE
`;

describe('a team state saved to a file and loaded, from the CLI', () => {
  let h: Harness;
  let dir: string;
  let role: string;
  beforeAll(async () => {
    h = await startHarness();
    process.env.TROUPE_TASK_QUEUE = h.worker.taskQueue;
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'troupe-state-'));
    role = path.join(dir, 'panel.yaml');
    fs.writeFileSync(role, PANEL);
  });
  afterAll(async () => {
    delete process.env.TROUPE_TASK_QUEUE;
    fs.rmSync(dir, { recursive: true, force: true });
    await h?.close();
  });
  beforeEach(() => h.stub.reset());

  /** A first run of the panel: alice, then bob's DONE ends it with carol next. */
  async function firstRun(task = 'plan a picnic'): Promise<{ id: string; state: TeamState }> {
    h.stub.script('bob', [{ text: 'bob says DONE for now' }, {}]);
    const handle = await h.start(compileYaml(PANEL), { task, workflowId: uniqueWorkflowId('panel') });
    const r = await handle.result();
    expect(r).toMatchObject({ status: 'completed', reason: 'text_mention', steps: 2 });
    return { id: handle.workflowId, state: r.teamState! };
  }

  /**
   * Nothing started from `thread`: no second run in it, and no model call of any run but the source
   * (a running source's own hanging call may be attempted again meanwhile on a loaded machine).
   */
  async function nothingStarted(thread: string, requestsBefore: number): Promise<void> {
    expect(h.stub.requests.slice(requestsBefore).filter((q) => q.workflowId !== thread)).toEqual([]);
    const err = await h.client.workflow.getHandle(`${thread}/2`).describe().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WorkflowNotFoundError);
    expect((await listRuns(h.client, { thread })).runs.map((r) => r.workflowId)).toEqual([thread]);
  }

  test('troupe state --out then run --state starts with the same first prompt as run --continue', async () => {
    const { id, state } = await firstRun();
    const file = path.join(dir, 'state.json');
    const saved = await troupe('state', id, '--out', file);
    expect(saved).toMatchObject({ code: 0 });
    expect(saved.stderr).toContain(CLI_RUN_TEXTS.stateWritten(id, file, 3));
    expect(JSON.parse(fs.readFileSync(file, 'utf8'))).toEqual(state);

    h.stub.script('carol', [{ text: 'carol: DONE, cake included' }, { text: 'carol: DONE, cake included' }]);
    const before = h.stub.requests.length;
    const loaded = await troupe('run', role, '--state', file, '--task', 'and bring cake');
    expect(loaded.code).toBe(0);
    const continued = await troupe('run', role, '--continue', id, '--task', 'and bring cake');
    expect(continued.code).toBe(0);
    // one agent call each, carol's (the cursor): the same messages, word for word
    const calls = h.stub.requests.slice(before).filter((q) => q.kind === 'agent');
    expect(calls.map((q) => q.agent)).toEqual(['carol', 'carol']);
    expect(calls[0].messages).toEqual(calls[1].messages);
    expect(calls[0].prompt).toContain('plan a picnic');
    expect(calls[0].prompt).toContain('bob says DONE for now');
    // both are runs of the thread: continuing a run twice forks it
    const thread = await listRuns(h.client, { thread: id });
    expect(thread.runs.map((r) => r.workflowId)).toEqual([id, `${id}/2`, `${id}/3`]);
  });

  test('an unknown version, a schema error and a state over its bound are refused naming the field or the part, exit 1, nothing started', async () => {
    const { id, state } = await firstRun();
    const before = h.stub.requests.length;
    const tryFile = async (name: string, doc: unknown) => {
      const file = path.join(dir, name);
      fs.writeFileSync(file, JSON.stringify(doc));
      const r = await troupe('run', role, '--state', file, '--task', 'go on');
      expect(r.code).toBe(1);
      return r.stderr;
    };

    expect(await tryFile('v2.json', { ...state, version: 2 })).toContain(CLI_RUN_TEXTS.cannotContinue(TEAM_STATE_TEXTS.version(2)));
    const wrongType = structuredClone(state) as unknown as { thread: Array<{ text: unknown }>; contexts: Record<string, { own: unknown }> };
    wrongType.thread[1].text = 42;
    wrongType.contexts.bob.own = 'not a list';
    const schema = await tryFile('schema.json', wrongType);
    expect(schema).toMatch(/cannot continue: thread\.1\.text: /);
    expect(schema).toMatch(/cannot continue: contexts\.bob\.own: /);
    const big = structuredClone(state);
    big.contexts.carol.own = ['x'.repeat(1100 * 1024)];
    expect(await tryFile('big.json', big)).toMatch(/cannot continue: the team state takes 110\d KiB, over its 1024 KiB bound; its largest part is contexts\.carol \(110\d KiB\)/);
    await nothingStarted(id, before);
  });

  test('continuing a run that is still running is refused, exit 1, nothing started', async () => {
    h.stub.script('alice', [{ hang: true }]);
    const source = await h.start(compileYaml(PANEL), { task: 'plan', workflowId: uniqueWorkflowId('panel') });
    await waitForStatus(source, (s) => s.inFlight.includes('alice'));
    const before = h.stub.requests.length;
    const r = await troupe('run', role, '--continue', source.workflowId, '--task', 'go on');
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(CLI_RUN_TEXTS.cannotContinue(CONTINUE_TEXTS.running(source.workflowId)));
    expect((await troupe('state', source.workflowId)).code).toBe(1);
    await nothingStarted(source.workflowId, before);
    await source.cancel();
    await source.result();
  });

  test('troupe list --thread lists a thread oldest first; troupe transcript --thread marks where each run began', async () => {
    const { id } = await firstRun('plan a picnic');
    h.stub.script('carol', [{ text: 'carol wraps up: DONE' }]);
    expect((await troupe('run', role, '--continue', id, '--task', 'and bring cake')).code).toBe(0);

    const listed = await troupe('list', '--thread', id);
    expect(listed.code).toBe(0);
    const rows = listed.stdout.trimEnd().split('\n').slice(1).map((l) => l.split(/\s+/)[0]);
    expect(rows).toEqual([id, `${id}/2`]);

    const t = await troupe('transcript', '--thread', id);
    expect(t.code).toBe(0);
    const lines = t.stdout.split('\n');
    const began = lines.flatMap((l, i) => (l.startsWith('── run ') ? [[i, l] as const] : []));
    expect(began.map(([, l]) => l)).toEqual([expect.stringMatching(new RegExp(`^── run ${id} began .* \\(completed/text_mention\\) ──$`)), expect.stringMatching(new RegExp(`^── run ${id}/2 began .* \\(completed/text_mention\\) ──$`))]);
    // each run's steps follow its line: alice and bob, then carol
    const steps = (from: number, to: number) => lines.slice(from, to).filter((l) => l.startsWith('#')).map((l) => l.split(' ')[6]);
    expect(steps(began[0][0], began[1][0])).toEqual(['alice', 'bob']);
    expect(steps(began[1][0], lines.length)).toEqual(['carol']);
  });
});
