/**
 * Following a run whose worker writes no progress records (`core/observe/progress.ts`): a bundle
 * without troupe's record interceptor, whose run answers the `follow` Update `recording: false`, and
 * a build older than the Update, which refuses it. The follower then reads the progress contract by
 * query: it long-polls the run's history only to learn that the run moved, and asks the `progress`
 * query then — so the queries the worker serves for one followed run are at most the workflow tasks
 * it completed, never the elapsed time divided by 400 ms (what polling cost); the steps, the calls
 * and the status all come from that one query (no `status`, no `transcript`, no label of the history
 * read back); and a run that waits for a human costs no query at all while it waits. Queries are
 * counted on the worker by an interceptor. (With the records: `a-followed-run-writes-progress-…`.)
 */
import { Client } from '@temporalio/client';
import { bundleWorkflowCode, DefaultLogger } from '@temporalio/worker';
import { followRun, type FollowEvent } from '../../src/client';
import type { RunProgress } from '../../src/core/observe/progress';
import { progressQuery } from '../../src/contract';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { COUNT_QUERIES_MODULE, queryCounter } from '../helpers/query-count';
import { decidePending, startHarness, type Harness } from '../helpers/runs';
import { patchedRelease } from '../helpers/patched-release';
import { defaultWorkflowsPath } from '../helpers/temporal';

const LOOP = `
name: followed
agents:
  writer: { instructions: "Write." }
  critic: { instructions: "Critique." }
collaboration:
  topology: review-loop
  agents: [writer, critic]
  termination:
    any_of:
      - max_iterations: 3
`;

const APPROVAL = `
name: followed-approval
agents:
  writer: { instructions: "Write." }
collaboration:
  topology: pipeline
  agents: [writer]
approval:
  before_exit: true
`;

/** Queries served, by workflow id and query name. */
const { sinks, count } = queryCounter();

describe('following a run', () => {
  let h: Harness;
  beforeAll(async () => {
    const workflowBundle = await bundleWorkflowCode({
      workflowsPath: defaultWorkflowsPath(),
      workflowInterceptorModules: [COUNT_QUERIES_MODULE],
      logger: new DefaultLogger('WARN'),
    });
    h = await startHarness({ workerOptions: { workflowBundle, sinks } });
  });
  afterAll(async () => h?.close());
  beforeEach(() => h.stub.reset());

  test('costs at most one progress query per workflow task, not one per 400 ms', async () => {
    // each reply takes a second, so the run lasts several seconds with few changes
    h.stub.script('writer', [{ text: 'draft', delayMs: 1_000 }]);
    h.stub.script('critic', [{ text: 'critique', delayMs: 1_000 }]);
    const handle = await h.start(LOOP);
    const events: FollowEvent[] = [];
    const began = Date.now();
    const result = await followRun(handle, (e) => events.push(e));
    const elapsed = Date.now() - began;
    expect(result).toMatchObject({ status: 'exhausted', reason: 'max_iterations', steps: 6 });
    // the run's start comes before anything it did (docs/library.md)
    expect(events[0]).toMatchObject({ kind: 'started', runId: handle.firstExecutionRunId });
    expect(events.filter((e) => e.kind === 'step').map((e) => e.kind === 'step' && `${e.step.step} ${e.step.agent}`)).toEqual([
      '1 writer',
      '2 critic',
      '3 writer',
      '4 critic',
      '5 writer',
      '6 critic',
    ]);

    let tasks = 0;
    for (const e of (await handle.fetchHistory()).events ?? []) if (e.workflowTaskCompletedEventAttributes) tasks += 1;
    const asked = count(handle.workflowId, 'progress');
    // one per completed workflow task at most, plus the first and the final answer's tries
    expect(asked).toBeGreaterThan(0);
    expect(asked).toBeLessThanOrEqual(tasks + 3);
    // polling every 400 ms would have asked at least this often
    expect(elapsed).toBeGreaterThan(6_000);
    expect(asked).toBeLessThan(elapsed / 400);
    // one channel: nothing else was asked
    expect(count(handle.workflowId, 'status')).toBe(0);
    expect(count(handle.workflowId, 'transcript')).toBe(0);
    console.log(`followed run: ${elapsed} ms, ${tasks} workflow tasks, ${asked} progress queries served`);
  });

  test('steps, calls and statuses come from the progress query: each step as the transcript records it, each agent call as it starts and ends', async () => {
    // replies slower than the least gap between queries, so each call is seen running
    h.stub.respond(() => ({ text: 'reply', delayMs: 600 }));
    const handle = await h.start(LOOP);
    const events: FollowEvent[] = [];
    const result = await followRun(handle, (e) => events.push(e));
    expect(result).toMatchObject({ status: 'exhausted', steps: 6 });
    const steps = events.flatMap((e) => (e.kind === 'step' ? [e.step] : []));
    // the worker's own transcript (a query on the closed run, replayed) holds the very same entries
    expect(steps).toEqual(await handle.query('transcript'));
    const calls = events.flatMap((e) => (e.kind === 'call' ? [e] : []));
    expect(calls.filter((c) => c.state === 'started').map((c) => c.agent)).toEqual(['writer', 'critic', 'writer', 'critic', 'writer', 'critic']);
    // every call seen starting is seen ending, under its id
    expect(calls.filter((c) => c.state === 'finished').map((c) => c.id).sort()).toEqual(calls.filter((c) => c.state === 'started').map((c) => c.id).sort());
    const statuses = events.flatMap((e) => (e.kind === 'status' ? [e.status] : []));
    expect(statuses.some((s) => s.phase === 'running' && s.inFlight.includes('writer'))).toBe(true);
    expect(statuses[statuses.length - 1]).toMatchObject({ phase: 'finished', steps: 6, final: { status: 'exhausted' } });
  });

  test('the progress query: a counter that only rises, typed calls, the steps after a cursor, and any argument read safely', async () => {
    // the second critic reply is slow, so the run is mid-way when it is asked
    h.stub.script('critic', [{ text: 'critique' }, { text: 'critique', delayMs: 3_000 }]);
    const handle = await h.start(LOOP);
    await h.stub.waitForRequests(2, 'critic');
    const first: RunProgress = await handle.query(progressQuery, 0);
    expect(first.steps.map((s) => s.step)).toEqual([1, 2, 3]);
    expect(first.calls).toEqual([expect.objectContaining({ kind: 'agent', agent: 'critic', label: 'critic · round 1 · wave 4 · iteration 2' })]);
    expect(first.status).toMatchObject({ phase: 'running', release: expect.stringMatching(/^\d+\.\d+\.\d+$/), inFlight: ['critic'], steps: 3 });
    expect((await handle.query(progressQuery, 2)).steps.map((s) => s.step)).toEqual([3]);
    // a query's argument is anyone's input: what is not a whole step number reads as none
    for (const odd of ['x', -1, 1e300, 2.5, null]) {
      const answer = await handle.query(progressQuery, odd as unknown as number);
      expect(answer.steps.map((s) => s.step)).toEqual([1, 2, 3]);
      expect(answer.seq).toBe(first.seq);
    }
    await handle.result();
    const last: RunProgress = await handle.query(progressQuery, 6);
    expect(last.seq).toBeGreaterThan(first.seq);
    expect(last).toMatchObject({ steps: [], calls: [], status: { phase: 'finished' } });
    // a follower that joins the run mid-way gets every step from the first
    const joined: number[] = [];
    await followRun(handle, (e) => e.kind === 'step' && joined.push(e.step.step));
    expect(joined).toEqual([1, 2, 3, 4, 5, 6]);
  });

  test('a run waiting for a human costs no query while it waits', async () => {
    const handle = await h.start(APPROVAL);
    const id = handle.workflowId;
    let waiting: () => void = () => undefined;
    const awaiting = new Promise<void>((resolve) => (waiting = resolve));
    const followed = followRun(handle, (e) => {
      if (e.kind === 'phase' && e.status.phase === 'awaiting_human') waiting();
    });
    await awaiting;
    const before = count(id, 'status');
    // the time under test: three quiet seconds in which nothing moves
    await new Promise((r) => setTimeout(r, 3_000));
    expect(count(id, 'status')).toBe(before);
    await decidePending(handle, { kind: 'approve', by: 'alice' });
    const result = await followed;
    expect(result.status).toBe('completed');
    expect(result.decisions).toEqual([expect.objectContaining({ requestId: 'r1', by: 'alice' })]);
  });
});

describe('following a run on a build older than the follow Update', () => {
  let h: Harness;
  let release: string;
  beforeAll(async () => {
    // the build before progress records: no handler for `follow`, so the run refuses it
    release = patchedRelease('no-follow', (runTs) =>
      `import { setHandler as unsetHandler } from '@temporalio/workflow';\nimport { followUpdate } from '../contract';\n${runTs.replace('  installHandlers(run);\n', '  installHandlers(run);\n  unsetHandler(followUpdate, undefined);\n')}`,
    );
    const workflowBundle = await bundleWorkflowCode({
      workflowsPath: path.join(release, 'src', 'workflows'),
      workflowInterceptorModules: [COUNT_QUERIES_MODULE],
      logger: new DefaultLogger('WARN'),
    });
    h = await startHarness({ workerOptions: { workflowBundle, sinks } });
  });
  afterAll(async () => {
    await h?.close();
    if (release) fs.rmSync(release, { recursive: true, force: true });
  });

  test('the follower is refused once and follows by query: every step, no Update in the history', async () => {
    h.stub.respond(() => ({ text: 'reply', delayMs: 300 }));
    const handle = await h.start(LOOP);
    // the follower's client counts the Updates it sends
    let updates = 0;
    const counted = new Client({
      connection: h.client.connection,
      namespace: h.client.options.namespace,
      interceptors: { workflow: [{ startUpdate: (input, next) => (updates++, next(input)) }] },
    });
    const steps: number[] = [];
    const result = await followRun(counted.workflow.getHandle(handle.workflowId, handle.firstExecutionRunId), (e) => e.kind === 'step' && steps.push(e.step.step));
    expect(result).toMatchObject({ status: 'exhausted', steps: 6 });
    expect(steps).toEqual([1, 2, 3, 4, 5, 6]);
    expect(updates).toBe(1);
    const events = (await handle.fetchHistory()).events ?? [];
    expect(events.filter((e) => e.workflowExecutionUpdateAcceptedEventAttributes)).toEqual([]);
    const tasks = events.filter((e) => e.workflowTaskCompletedEventAttributes).length;
    const asked = count(handle.workflowId, 'progress');
    expect(asked).toBeGreaterThan(0);
    expect(asked).toBeLessThanOrEqual(tasks + 3);
  });
});
