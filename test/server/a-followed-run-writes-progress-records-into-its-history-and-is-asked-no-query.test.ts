/**
 * Following a run through its progress records (`core/observe/progress.ts`, `ProgressRecord`;
 * docs/operating.md, "Following a run from code"): the follower sends the `follow` Update once, and
 * the run then writes a record into its history at the end of each workflow task in which its
 * position changed; the follower reads them from the history it long-polls, so the worker serves it
 * no `progress` query (BENCHMARKS.md, B8). (A follower that joins a chain after its records began
 * asks the query once: `long-loop-continues-as-new-with-counters-carried.test.ts`.) The
 * queries are counted on the worker by an interceptor, next to troupe's own record interceptor, as
 * `troupe worker` bundles it.
 */
import { bundleWorkflowCode, DefaultLogger } from '@temporalio/worker';
import type { WorkflowHandle } from '@temporalio/client';
import { followRun, type FollowEvent } from '../../src/client';
import { PROGRESS_RECORD_KEY, type ProgressRecord } from '../../src/core/observe/progress';
import { bundleOptions } from '../../src/worker';
import { COUNT_QUERIES_MODULE, queryCounter } from '../helpers/query-count';
import { decidePending, startHarness, type Harness } from '../helpers/runs';
import { defaultWorkflowsPath, replayHistory } from '../helpers/temporal';

const LOOP = `
name: recorded
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
name: recorded-approval
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

type History = Awaited<ReturnType<WorkflowHandle['fetchHistory']>>;

/** What the history holds of the follow protocol: the Updates it took, its records, and its workflow tasks. */
function protocolOf(history: History, decode: (data: Uint8Array) => unknown) {
  const events = history.events ?? [];
  const records: ProgressRecord[] = [];
  let removals = 0;
  for (const e of events) {
    const field = e.workflowPropertiesModifiedEventAttributes?.upsertedMemo?.fields?.[PROGRESS_RECORD_KEY];
    if (!field) continue;
    const value = field.data && field.data.length > 0 ? decode(field.data) : null;
    if (value === null) removals += 1;
    else records.push(value as ProgressRecord);
  }
  return {
    follows: events.filter((e) => e.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.input?.name === 'follow').length,
    records,
    removals,
    tasks: events.filter((e) => e.workflowTaskCompletedEventAttributes).length,
  };
}

const json = (data: Uint8Array): unknown => JSON.parse(Buffer.from(data).toString('utf8'));

describe('a followed run writes progress records', () => {
  let h: Harness;
  beforeAll(async () => {
    const options = bundleOptions(defaultWorkflowsPath());
    const workflowBundle = await bundleWorkflowCode({
      ...options,
      workflowInterceptorModules: [...options.workflowInterceptorModules, COUNT_QUERIES_MODULE],
      logger: new DefaultLogger('WARN'),
    });
    h = await startHarness({ workerOptions: { workflowBundle, sinks } });
  });
  afterAll(async () => h?.close());
  beforeEach(() => h.stub.reset());

  test('one follow Update, a record per changed workflow task, every step, call and status from them, and no query', async () => {
    h.stub.respond(() => ({ text: 'reply', delayMs: 300 }));
    const handle = await h.start(LOOP);
    const events: FollowEvent[] = [];
    const result = await followRun(handle, (e) => events.push(e));
    expect(result).toMatchObject({ status: 'exhausted', reason: 'max_iterations', steps: 6 });
    expect(count(handle.workflowId, 'progress')).toBe(0);

    const steps = events.flatMap((e) => (e.kind === 'step' ? [e.step] : []));
    expect(steps.map((s) => `${s.step} ${s.agent}`)).toEqual(['1 writer', '2 critic', '3 writer', '4 critic', '5 writer', '6 critic']);
    const calls = events.flatMap((e) => (e.kind === 'call' ? [e] : []));
    expect(calls.filter((c) => c.state === 'started').map((c) => c.agent)).toEqual(['writer', 'critic', 'writer', 'critic', 'writer', 'critic']);
    expect(calls.filter((c) => c.state === 'finished').map((c) => c.id).sort()).toEqual(calls.filter((c) => c.state === 'started').map((c) => c.id).sort());
    const statuses = events.flatMap((e) => (e.kind === 'status' ? [e.status] : []));
    expect(statuses.some((s) => s.phase === 'running' && s.inFlight.includes('critic'))).toBe(true);
    expect(statuses[statuses.length - 1]).toMatchObject({ phase: 'finished', steps: 6, final: { status: 'exhausted' } });

    const history = await handle.fetchHistory();
    const protocol = protocolOf(history, json);
    expect(protocol.follows).toBe(1);
    // each record is removed from the memo in its own task: the history keeps it, the memo does not
    expect(protocol.removals).toBe(protocol.records.length);
    expect(protocol.records.length).toBeGreaterThanOrEqual(6);
    expect(protocol.records.length).toBeLessThanOrEqual(protocol.tasks);
    // the records chain: each one's steps follow on from the one before, and the counter rises
    let through = 0;
    let seq = -1;
    for (const r of protocol.records) {
      expect(r.from).toBe(through);
      expect(r.steps.map((s) => s.step)).toEqual(Array.from({ length: r.through - r.from }, (_, i) => r.from + i + 1));
      expect(r.seq).toBeGreaterThan(seq);
      through = r.through;
      seq = r.seq;
    }
    expect(through).toBe(6);
    // the steps are the worker's own transcript entries
    expect(steps).toEqual(await handle.query('transcript'));
    expect((await handle.describe()).memo?.[PROGRESS_RECORD_KEY]).toBeUndefined();
    // the records are commands: the history replays on the same bundle
    await replayHistory(history, handle.workflowId);

    // a second follower reads the same records from the history: every step again, and no query
    const again: number[] = [];
    await followRun(handle, (e) => e.kind === 'step' && again.push(e.step.step));
    expect(again).toEqual([1, 2, 3, 4, 5, 6]);
    expect(count(handle.workflowId, 'progress')).toBe(0);
  });

  test('a follower that joins mid-way gets every step so far in the first record', async () => {
    h.stub.script('critic', [{ text: 'critique' }, { text: 'critique', delayMs: 2_000 }]);
    const handle = await h.start(LOOP);
    await h.stub.waitForRequests(2, 'critic');
    const steps: number[] = [];
    await followRun(handle, (e) => e.kind === 'step' && steps.push(e.step.step));
    expect(steps).toEqual([1, 2, 3, 4, 5, 6]);
    expect(count(handle.workflowId, 'progress')).toBe(0);
    const first = protocolOf(await handle.fetchHistory(), json).records[0];
    expect(first).toMatchObject({ from: 0, through: 3 });
    expect(first.steps.map((s) => s.step)).toEqual([1, 2, 3]);
  });

  test('a run waiting for a human: the request comes in a record, and the wait costs nothing', async () => {
    const handle = await h.start(APPROVAL);
    const kinds: string[] = [];
    let waiting: () => void = () => undefined;
    const awaiting = new Promise<void>((resolve) => (waiting = resolve));
    const followed = followRun(handle, (e) => {
      kinds.push(e.kind);
      if (e.kind === 'request') waiting();
    });
    await awaiting;
    const tasks = protocolOf(await handle.fetchHistory(), json).tasks;
    // the time under test: quiet seconds in which nothing moves
    await new Promise((r) => setTimeout(r, 2_000));
    expect(protocolOf(await handle.fetchHistory(), json).tasks).toBe(tasks);
    await decidePending(handle, { kind: 'approve', by: 'alice' });
    const result = await followed;
    expect(result.status).toBe('completed');
    expect(kinds).toEqual(expect.arrayContaining(['request', 'decision']));
    expect(count(handle.workflowId, 'progress')).toBe(0);
  });
});
