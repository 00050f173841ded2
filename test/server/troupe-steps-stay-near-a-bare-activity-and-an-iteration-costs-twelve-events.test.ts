/**
 * The CI guard of BENCHMARKS.md's B1 and B2, sized for a test run: a review loop and the bench's
 * floor workflow (bench/floor: the same requests, each a bare activity) run side by side on the
 * test server, and the guard fails when a troupe step's p50 passes 1.5 × the floor's, or when an
 * iteration of the loop costs more than its 12 history events. Ratios only, measured in the same
 * test from the server's own timestamps, with a margin wide enough for a loaded 2-core machine.
 * It also counts, exactly, the promises each workflow creates per step while its history replays:
 * the SDK captures a stack trace for every promise a workflow creates, and a troupe step costs the
 * workflow as many promises as the floor's `await` of a bare activity does, give or take one
 * (CHANGELOG.md, 0.2.0, "Performance, change by change"). And it holds the bundle to what makes its steps cheap: troupe's
 * code compiled for ES2022 and JSON encoded natively (`bundleOptions` in src/worker.ts).
 */
import { promiseHooks } from 'node:v8';
import { Worker } from '@temporalio/worker';
import type { History } from '../../bench/lib/history';
import { activitySteps, iterations } from '../../bench/lib/history';
import type { RecordedRequest } from '../../bench/lib/stub-client';
import { createFloorActivities } from '../../bench/floor/activities';
import { percentile } from '../../bench/lib/stats';
import { startHarness, type Harness } from '../helpers/runs';
import { getWorkflowBundle, startWorker, uniqueWorkflowId, type RunningWorker } from '../helpers/temporal';

/** A troupe step's p50 at most this × the floor's (BENCHMARKS.md measures 1.08–1.22 on the tuned server). */
const STEP_RATIO_LIMIT = 1.5;
/** B2: history events per review-loop iteration (2 activities, each 3 events and its workflow task's 3). */
const EVENTS_PER_ITERATION = 12;
const ITERATIONS = 30;
const ROUNDS = 2;
/**
 * A troupe step may create at most this many promises more than a floor step. Counted while
 * replaying: 9.7 against the floor's 9.5, and 17.7 before a one-agent wave was dispatched from the
 * round loop itself (`src/workflows/run.ts`, with the one dispatch body of `src/workflows/dispatch.ts`).
 */
const EXTRA_PROMISES_PER_STEP = 1;

const loop = (iterations: number) => `
name: guard
agents:
  writer: { instructions: "Write the essay." }
  critic: { instructions: "Critique the essay." }
collaboration:
  topology: review-loop
  agents: [writer, critic]
  max_iterations: ${iterations}
`;

/** Intervals between consecutive schedulings of the activities of a history (server clock, ms). */
function stepIntervals(history: History, activityType: string): number[] {
  const steps = activitySteps(history).filter((s) => s.activityType === activityType);
  return steps.slice(1).map((s, i) => s.scheduledMs - steps[i].scheduledMs);
}

/**
 * The promises a workflow creates while `history` replays, per activity it schedules. The replayer
 * runs the workflow in this thread, so a promise hook here sees it; the workflow's promises are
 * those of its own realm, not this one's.
 */
async function promisesPerStep(history: History, workflowsPath?: string): Promise<number> {
  const workflowBundle = await getWorkflowBundle(workflowsPath);
  let created = 0;
  const stop = promiseHooks.onInit((promise) => {
    if (promise.constructor !== Promise) created++;
  });
  try {
    await Worker.runReplayHistory({ workflowBundle }, history);
  } finally {
    stop();
  }
  const steps = (history.events ?? []).filter((e) => e.activityTaskScheduledEventAttributes).length;
  return created / steps;
}

describe('the CI guard of troupe against a bare activity', () => {
  let h: Harness;
  let floor: RunningWorker;
  let requests: RecordedRequest[] = [];
  let lastTroupe: History | undefined;
  let lastFloor: History | undefined;
  beforeAll(async () => {
    h = await startHarness();
    floor = await startWorker({
      workflowsPath: require.resolve('../../bench/floor/workflows'),
      activities: createFloorActivities(h.stub.url, () => requests),
    });
  });
  afterAll(async () => {
    await floor?.stop();
    await h?.close();
  });

  const runFloor = async (steps: number): Promise<History> => {
    const handle = await h.client.workflow.start('floorLoop', {
      taskQueue: floor.taskQueue,
      workflowId: uniqueWorkflowId('floor'),
      args: [{ steps, mode: 'activity' }],
    });
    await handle.result();
    return handle.fetchHistory();
  };
  const runTroupe = async (iterations: number): Promise<History> => {
    const handle = await h.start(loop(iterations));
    await handle.result();
    return handle.fetchHistory();
  };

  test(`a troupe step's p50 stays within ${STEP_RATIO_LIMIT} × the floor's, and every iteration costs ${EVENTS_PER_ITERATION} events`, async () => {
    // warm-up: both workflows loaded and cached; the floor replays troupe's own requests
    await runTroupe(5);
    requests = h.stub.requests.map((r) => ({ agent: r.agent, body: r.body }));
    await runFloor(10);

    const troupeSteps: number[] = [];
    const floorSteps: number[] = [];
    let last: History | undefined;
    let floorHistory: History | undefined;
    for (let round = 0; round < ROUNDS; round++) {
      last = await runTroupe(ITERATIONS);
      troupeSteps.push(...stepIntervals(last, 'callAgent'));
      floorHistory = await runFloor(2 * ITERATIONS);
      floorSteps.push(...stepIntervals(floorHistory, 'floorCall'));
    }
    const ratio = percentile(troupeSteps, 50) / percentile(floorSteps, 50);
    console.log(`step p50: troupe ${percentile(troupeSteps, 50).toFixed(2)} ms, floor ${percentile(floorSteps, 50).toFixed(2)} ms, ratio ${ratio.toFixed(2)}`);
    expect(troupeSteps).toHaveLength(ROUNDS * (2 * ITERATIONS - 1));
    expect(ratio).toBeLessThanOrEqual(STEP_RATIO_LIMIT);

    const events = iterations(last!, 'writer').map((i) => i.events);
    expect(events).toHaveLength(ITERATIONS - 1);
    expect(new Set(events)).toEqual(new Set([EVENTS_PER_ITERATION]));

    lastTroupe = last;
    lastFloor = floorHistory;
  });

  test(`a troupe step creates at most ${EXTRA_PROMISES_PER_STEP} promise more than a floor step`, async () => {
    const troupe = await promisesPerStep(lastTroupe ?? (await runTroupe(ITERATIONS)));
    const floorPerStep = await promisesPerStep(lastFloor ?? (await runFloor(2 * ITERATIONS)), require.resolve('../../bench/floor/workflows'));
    console.log(`promises per step while replaying: troupe ${troupe.toFixed(2)}, floor ${floorPerStep.toFixed(2)}`);
    expect(floorPerStep).toBeGreaterThan(1);
    expect(troupe).toBeLessThanOrEqual(floorPerStep + EXTRA_PROMISES_PER_STEP);
  });

  test("the workflow bundle runs troupe's code as ES2022, with troupe's payload converter", async () => {
    const { code } = await getWorkflowBundle();
    // swc's object-spread helpers, in every module of troupe's when the SDK's ES2017 target compiles it
    expect(code).not.toMatch(/function _object_spread(_props)?\(/);
    expect(code).toContain('class NativeJsonPayloadConverter');
  });
});
