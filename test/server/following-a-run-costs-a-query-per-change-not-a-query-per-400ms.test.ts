/**
 * Following a run long-polls its history and queries the worker only when the history cannot tell
 * what changed: the `status` queries the worker serves for one followed run are at most the number
 * of changes, never the elapsed time divided by 400 ms (what polling cost); a plain run's steps are
 * read from its history, so it costs no query when followed from its start and one when joined
 * mid-way; and a run that waits for a human costs no query at all while it waits. Queries are
 * counted on the worker by an interceptor.
 */
import { bundleWorkflowCode, DefaultLogger, type InjectedSinks } from '@temporalio/worker';
import { followRun, type FollowEvent } from '../../src/client';
import type { QueryCountSinks } from '../fixtures/count-queries-interceptor';
import { RunHistoryWatch } from '../../src/run-history';
import { startHarness, type Harness } from '../helpers/runs';
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
const served = new Map<string, Record<string, number>>();
const count = (id: string, name: string) => served.get(id)?.[name] ?? 0;

describe('following a run', () => {
  let h: Harness;
  beforeAll(async () => {
    const workflowBundle = await bundleWorkflowCode({
      workflowsPath: defaultWorkflowsPath(),
      workflowInterceptorModules: [require.resolve('../fixtures/count-queries-interceptor')],
      logger: new DefaultLogger('WARN'),
    });
    const sinks: InjectedSinks<QueryCountSinks> = {
      queries: {
        served: {
          fn: (info, name) => {
            const byName = served.get(info.workflowId) ?? {};
            byName[name] = (byName[name] ?? 0) + 1;
            served.set(info.workflowId, byName);
          },
          callDuringReplay: false,
        },
      },
    };
    h = await startHarness({ workerOptions: { workflowBundle, sinks } });
  });
  afterAll(async () => h?.close());
  beforeEach(() => h.stub.reset());

  test('costs about one status query per workflow task, not one per 400 ms', async () => {
    // each reply takes a second, so the run lasts several seconds with few changes
    h.stub.script('writer', [{ text: 'draft', delayMs: 1_000 }]);
    h.stub.script('critic', [{ text: 'critique', delayMs: 1_000 }]);
    const handle = await h.start(LOOP);
    const events: FollowEvent[] = [];
    const began = Date.now();
    const result = await followRun(handle, (e) => events.push(e));
    const elapsed = Date.now() - began;
    expect(result).toMatchObject({ status: 'exhausted', reason: 'max_iterations', steps: 6 });
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
    const status = count(handle.workflowId, 'status');
    // one per completed workflow task at most, plus the final snapshot's tries
    expect(status).toBeLessThanOrEqual(tasks + 3);
    // polling every 400 ms would have asked at least this often (and the transcript each time)
    expect(elapsed).toBeGreaterThan(6_000);
    expect(status).toBeLessThan(elapsed / 400);
    // the transcript is asked for only when steps were added
    expect(count(handle.workflowId, 'transcript')).toBeLessThanOrEqual(status);
    console.log(`followed run: ${elapsed} ms, ${tasks} workflow tasks, ${status} status and ${count(handle.workflowId, 'transcript')} transcript queries served`);
  });

  test('steps are read from the history as the transcript records them: a plain run followed from its start costs no query', async () => {
    const handle = await h.start(LOOP);
    const events: FollowEvent[] = [];
    const result = await followRun(handle, (e) => events.push(e));
    expect(result).toMatchObject({ status: 'exhausted', steps: 6 });
    const steps = events.flatMap((e) => (e.kind === 'step' ? [e.step] : []));
    // the worker's own transcript (a query on the closed run, replayed) holds the very same entries
    expect(steps).toEqual(await handle.query('transcript'));
    // the first snapshot is built from the graph and task, the rest from the history, the end from
    // the RunResult: the worker was never asked
    expect(count(handle.workflowId, 'status')).toBe(0);
    expect(count(handle.workflowId, 'transcript')).toBe(1); // the assertion's own, above
    const statuses = events.flatMap((e) => (e.kind === 'status' ? [e.status] : []));
    expect(statuses[0]).toMatchObject({ phase: 'running', round: 1, wave: 1, steps: 0, inFlight: ['writer'] });
    expect(statuses[statuses.length - 1]).toMatchObject({ phase: 'finished', steps: 6, final: { status: 'exhausted' } });
    expect(events.filter((e) => e.kind === 'call' && e.state === 'started').map((e) => e.kind === 'call' && e.agent)).toEqual([
      'writer',
      'critic',
      'writer',
      'critic',
      'writer',
      'critic',
    ]);
  });

  test('the version the SDK records at the start is no news for a follower: a page of a plain run mid-way needs no snapshot', async () => {
    // the second critic reply is slow, so the run is mid-way when the page is read
    h.stub.script('critic', [{ text: 'critique' }, { text: 'critique', delayMs: 2_000 }]);
    const handle = await h.start(LOOP);
    await h.stub.waitForRequests(2, 'critic');
    const watch = new RunHistoryWatch(h.client.workflow, handle.workflowId, handle.firstExecutionRunId);
    const news = await watch.next();
    // the page holds the run's start: its version marker and the SDK's TemporalChangeVersion upsert
    const history = await handle.fetchHistory();
    expect(history.events?.some((e) => e.upsertWorkflowSearchAttributesEventAttributes?.searchAttributes?.indexedFields?.TemporalChangeVersion)).toBe(true);
    expect(news).toMatchObject({ closed: false, irregular: false });
    expect(news.steps.map((s) => s.step)).toEqual([1, 2, 3]);
    // a follower that joins the run mid-way asks the worker once, for the snapshot it starts from
    const steps: number[] = [];
    await followRun(handle, (e) => e.kind === 'step' && steps.push(e.step.step));
    expect(steps).toEqual([1, 2, 3, 4, 5, 6]);
    expect(count(handle.workflowId, 'status')).toBe(1);
    expect(count(handle.workflowId, 'transcript')).toBe(0);
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
    await handle.signal('approve', { by: 'alice' });
    const result = await followed;
    expect(result.status).toBe('completed');
    expect(result.decisions).toEqual([expect.objectContaining({ requestId: 'r1', by: 'alice' })]);
  });
});
