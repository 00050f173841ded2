/**
 * The operator's view (docs/operating.md): every activity and wait carries a summary the Temporal UI
 * shows, each run has a static summary and details and live current details, and troupe's search
 * attributes let `troupe list` find runs by graph, status and a waiting human. A server without the
 * attributes runs troupe just the same, and `troupe list` falls back to the memo.
 */
import { defaultPayloadConverter, type WorkflowHandle } from '@temporalio/client';
import type { temporal } from '@temporalio/proto';
import { RUN_STATUSES } from '../../src/core/ending/reasons';
import { listRuns, type RunListing } from '../../src/client/find-runs';
import type { DevServer } from '../../src/dev/temporal-server';
import { SEARCH_KEYS } from '../../src/contract';
import { troupe, troupeAt } from '../helpers/cli';
import { startHarness, waitForStatus, type Harness } from '../helpers/runs';
import { startDedicatedServer } from '../helpers/temporal';

const LOOP = `
name: ui-review
agents:
  writer: { instructions: "Write." }
  critic: { instructions: "Review. End with score: N." }
collaboration:
  topology: review-loop
  agents: [writer, critic]
  max_iterations: 3
  termination:
    any_of:
      - result_matches: { agent: critic, score_gte: 85 }
      - converged: { agent: writer }
`;

/** The summaries of the history's scheduled activities and started timers, in order. */
async function summaries(handle: WorkflowHandle): Promise<{ activities: string[]; timers: string[] }> {
  const history = await handle.fetchHistory();
  const decode = (e: temporal.api.history.v1.IHistoryEvent) =>
    e.userMetadata?.summary ? String(defaultPayloadConverter.fromPayload(e.userMetadata.summary)) : '(none)';
  const events = history.events ?? [];
  return {
    activities: events.filter((e) => e.activityTaskScheduledEventAttributes).map(decode),
    timers: events.filter((e) => e.timerStartedEventAttributes).map(decode),
  };
}

/** The current details the UI shows (the SDK's built-in metadata query). */
async function currentDetails(handle: WorkflowHandle): Promise<string> {
  const meta = await handle.query<{ currentDetails?: string }>('__temporal_workflow_metadata');
  return meta.currentDetails ?? '';
}

/** `troupe list ... --json`, until `done` holds for its rows (visibility is eventually consistent). */
async function listUntil(args: string[], done: (rows: RunListing[]) => boolean): Promise<RunListing[]> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const r = await troupe('list', ...args, '--json');
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const rows = JSON.parse(r.stdout) as RunListing[];
    if (done(rows) || Date.now() > deadline) return rows;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

describe('the Temporal UI tells the story of a run', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => h?.close());
  beforeEach(() => h.stub.reset());

  test('each call is labelled by agent, round, wave and iteration; the judge by the agent it reads; the run has a summary, details and a final status line', async () => {
    h.stub.script('critic', [{ text: 'score: 60' }, { text: 'score: 90' }]);
    const handle = await h.start(LOOP, { task: 'Write a haiku about autumn leaves' });
    const result = await handle.result();
    expect(result).toMatchObject({ status: 'completed', reason: 'result_match' });

    const { activities } = await summaries(handle);
    expect(activities).toEqual([
      'writer · round 1 · wave 1 · iteration 1',
      'judge · writer',
      'critic · round 1 · wave 2 · iteration 1',
      'writer · round 1 · wave 3 · iteration 2',
      'judge · writer',
      'critic · round 1 · wave 4 · iteration 2',
    ]);

    const described = await handle.describe();
    expect(await described.staticSummary()).toBe('ui-review (topology review-loop): Write a haiku about autumn leaves');
    const details = await described.staticDetails();
    expect(details).toContain('```mermaid\nflowchart TD');
    expect(details).toContain('- any of: critic score ≥ 85; writer converged');
    expect(details).toContain('loops are capped at 3 iterations per round');

    const current = await currentDetails(handle);
    expect(current.split('\n')[0]).toMatch(/^\*\*completed: critic score 90 >= 85 after 1 round, 4 agent calls/);
    expect(current).toContain('| iterations critic ↔ writer | 2 of 3 |');
    expect(described.typedSearchAttributes.get(SEARCH_KEYS.status)).toBe('completed');
    expect(described.typedSearchAttributes.get(SEARCH_KEYS.reason)).toBe('result_match');
    expect(described.typedSearchAttributes.get(SEARCH_KEYS.graph)).toBe('ui-review');
  });

  test('a run waiting for a human: its current details give the command, TroupeWaiting finds it, and the wait is a labelled timer', async () => {
    const config = `
name: ui-approval
agents:
  writer: { instructions: "Write." }
collaboration:
  topology: pipeline
  agents: [writer]
approval:
  before_exit: true
`;
    const handle = await h.start(config);
    await waitForStatus(handle, (s) => s.phase === 'awaiting_human');
    const details = await currentDetails(handle);
    expect(details.split('\n')[0]).toBe('**waiting for a human**');
    expect(details).toContain(`\`troupe approve ${handle.workflowId} --request r1\``);
    expect(details).toContain('| running | — |');

    const waiting = await listUntil(['--graph', 'ui-approval', '--waiting'], (rows) => rows.some((r) => r.workflowId === handle.workflowId));
    expect(waiting.map((r) => r.workflowId)).toEqual([handle.workflowId]);
    expect(waiting[0]).toMatchObject({ graph: 'ui-approval', status: 'running', waiting: true });

    expect((await troupe('approve', handle.workflowId)).code).toBe(0);
    expect(await handle.result()).toMatchObject({ status: 'completed' });
    const { timers } = await summaries(handle);
    expect(timers).toEqual(['waiting for a human: r1 before_exit (writer)']);
    const after = await listUntil(['--graph', 'ui-approval', '--waiting'], (rows) => rows.length === 0);
    expect(after).toEqual([]);
  });

  test('`troupe list --status exhausted` finds exactly the exhausted runs of a batch', async () => {
    const graph = `ui-batch-${Date.now().toString(36)}`;
    const config = `
name: ${graph}
agents:
  a: { instructions: "Go." }
  b: { instructions: "Go." }
collaboration:
  topology: round-robin
  agents: [a, b]
  termination:
    any_of:
      - text_mention: DONE
      - max_messages: 3
`;
    h.stub.respond((req) => (req.prompt.includes('finish at once') ? { text: 'DONE' } : undefined));
    const tasks = ['keep going 1', 'finish at once 1', 'keep going 2', 'finish at once 2', 'keep going 3'];
    const handles = await Promise.all(tasks.map((task) => h.start(config, { task })));
    const results = await Promise.all(handles.map((x) => x.result()));
    const exhausted = handles.filter((_, i) => results[i].status === 'exhausted').map((x) => x.workflowId).sort();
    expect(exhausted).toHaveLength(3);
    expect(results.filter((r) => r.status === 'completed')).toHaveLength(2);

    const rows = await listUntil(['--graph', graph, '--status', 'exhausted'], (r) => r.length >= exhausted.length);
    expect(rows.map((r) => r.workflowId).sort()).toEqual(exhausted);
    expect(rows.every((r) => r.status === 'exhausted' && r.reason === 'max_messages' && r.graph === graph && !r.waiting)).toBe(true);

    const table = await troupe('list', '--graph', graph);
    expect(table.code).toBe(0);
    expect(table.stdout.split('\n')[0]).toMatch(/^RUN\s+GRAPH\s+STATUS\s+REASON\s+WAITING\s+STARTED$/);
    expect(table.stdout.trim().split('\n')).toHaveLength(1 + tasks.length);
  });

  test('`troupe list` refuses a status troupe does not have', async () => {
    const r = await troupe('list', '--status', 'done');
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`--status must be running or one of ${RUN_STATUSES.join(', ')}`);
  });
});

describe('a server without troupe search attributes', () => {
  let server: DevServer;
  let h: Harness;
  beforeAll(async () => {
    server = await startDedicatedServer({}, { searchAttributes: [] });
    h = await startHarness({ address: server.address });
  });
  afterAll(async () => {
    await h?.close();
    await server?.stop();
  });

  test('runs complete normally, keep their status in the memo, and `troupe list` finds them from it', async () => {
    h.stub.script('critic', [{ text: 'score: 95' }]);
    const handle = await h.start(LOOP);
    expect(await handle.result()).toMatchObject({ status: 'completed', reason: 'result_match' });
    const described = await handle.describe();
    expect(described.typedSearchAttributes.get(SEARCH_KEYS.status)).toBeUndefined();
    expect(described.memo).toMatchObject({ troupeStatus: 'completed', troupeReason: 'result_match', troupeGraph: 'ui-review' });

    const list = await listRuns(h.client, { graph: 'ui-review', status: 'completed' });
    expect(list.indexed).toBe(false);
    expect(list.runs.map((r) => r.workflowId)).toEqual([handle.workflowId]);

    const cli = await troupeAt(server.address, 'list', '--status', 'completed');
    expect(cli.code).toBe(0);
    expect(cli.stderr).toContain("troupe's search attributes are not registered in this namespace");
    expect(cli.stdout).toContain(handle.workflowId);
  });
});
