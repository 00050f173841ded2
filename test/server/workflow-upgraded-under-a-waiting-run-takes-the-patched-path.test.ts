/**
 * Upgrading the workflow code under a live run (docs/operating.md, "Upgrading the workflow"). A run
 * starts on today's workflow code and waits for approval; its worker is replaced by one built from a
 * copy of `src/` with a change guarded by `patched()`; the approval arrives, and the run completes on
 * the new worker with the new behaviour from the patch point on. The same change made without the
 * guard, at a point the run has already passed, cannot replay: the upgraded worker's workflow tasks
 * fail with a nondeterminism error, the run waits (nothing is lost), and rolling the worker back lets
 * it finish.
 */
import { defaultPayloadConverter } from '@temporalio/client';
import type { temporal } from '@temporalio/proto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { createActivities } from '../../src/activities';
import { sendSignal } from '../../src/client';
import { troupe } from '../helpers/cli';
import { patchedRelease, RUN_END_ANCHOR } from '../helpers/patched-release';
import { startHarness, waitForStatus, type Harness } from '../helpers/runs';
import { replayHistory, startWorker, type RunningWorker } from '../helpers/temporal';


const CONFIG = `
name: upgrade
agents:
  writer: { instructions: "Write." }
collaboration:
  topology: pipeline
  agents: [writer]
approval:
  before_exit: true
`;

const UPGRADE_PATCH = 'troupe-upgrade-test';
const UPGRADED_WARNING = 'finished by the upgraded workflow';


/**
 * A copy of `src/` with one change to the run workflow, and the path of its workflows module. The
 * copy resolves packages from this repository's node_modules.
 */
const copies: string[] = [];

function sourceWith(name: string, edit: (runTs: string) => string): string {
  const root = patchedRelease(name, edit);
  copies.push(root);
  return path.join(root, 'src', 'workflows');
}

/** The upgrade done right: a new warning at the end, behind `patched()`. */
const patchedSource = () =>
  sourceWith('patched', (ts) =>
    ts
      .replace(RUN_END_ANCHOR, `${RUN_END_ANCHOR}\n  if (patched('${UPGRADE_PATCH}')) warn(state, '${UPGRADED_WARNING}');`)
      .replace("  continueAsNew,\n", '  continueAsNew,\n  patched,\n'),
  );

/** The upgrade done wrong: a new timer at the run's start, where every run has already been. */
const unguardedSource = () =>
  sourceWith('unguarded', (ts) =>
    ts
      .replace('  installHandlers(run);\n', '  installHandlers(run);\n  await sleep(1);\n')
      .replace("  continueAsNew,\n", '  continueAsNew,\n  sleep,\n'),
  );

/** The patch id a `patched()` marker event records, if the event is one. */
function patchIdOf(e: temporal.api.history.v1.IHistoryEvent): string | undefined {
  const payload = e.markerRecordedEventAttributes?.details?.['patch-data']?.payloads?.[0];
  return payload ? (defaultPayloadConverter.fromPayload(payload) as { id: string }).id : undefined;
}

describe('upgrading the workflow under a run that waits for approval', () => {
  let h: Harness;
  const extra: RunningWorker[] = [];
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => {
    for (const w of extra) await w.stop().catch(() => undefined);
    await h?.close();
    for (const root of copies) fs.rmSync(root, { recursive: true, force: true });
  });
  beforeEach(() => h.stub.reset());

  const activities = () => createActivities({ baseUrl: h.stub.url, apiKey: 'test-key', env: {} });
  const workerFrom = async (workflowsPath: string) => {
    const w = await startWorker({ activities: activities(), workflowsPath, taskQueue: h.worker.taskQueue });
    extra.push(w);
    return w;
  };

  test('a patched() change: the approval arrives on the new worker and the run finishes with the new behaviour', async () => {
    const upgraded = patchedSource();
    h.stub.script('writer', [{ text: 'draft v1' }]);
    const handle = await h.start(CONFIG);
    await waitForStatus(handle, (s) => s.phase === 'awaiting_human');

    await h.worker.stop();
    const next = await workerFrom(upgraded);
    expect((await troupe('approve', handle.workflowId)).code).toBe(0);
    const r = await handle.result();
    expect(r).toMatchObject({ status: 'completed', reason: 'exit', finalText: 'draft v1' });
    expect(r.warnings).toContain(UPGRADED_WARNING);
    expect(h.stub.hits('writer')).toBe(1);

    // the history now holds the patch's marker after the approval (an Update), and replays on the new code
    const history = await handle.fetchHistory();
    const events = history.events ?? [];
    const approved = events.findIndex((e) => e.workflowExecutionUpdateAcceptedEventAttributes);
    const marker = events.findIndex((e) => patchIdOf(e) === UPGRADE_PATCH);
    expect(approved).toBeGreaterThan(0);
    expect(marker).toBeGreaterThan(approved);
    await replayHistory(history, handle.workflowId, upgraded);
    await next.stop();
    await h.restartWorker();
  });

  test('the same kind of change without patched(), where the run has already been, stops the run until the old worker is back', async () => {
    const unguarded = unguardedSource();
    h.stub.script('writer', [{ text: 'draft v2' }]);
    const handle = await h.start(CONFIG);
    const waiting = await waitForStatus(handle, (s) => s.phase === 'awaiting_human');

    await h.worker.stop();
    const wrong = await workerFrom(unguarded);
    // (`troupe approve` would refuse: it reads the pending requests first, and no query can be
    // answered while the worker cannot replay the run; the signal itself is accepted by the server)
    await sendSignal(handle, 'approve', { requestId: 'r1', digest: waiting.pending[0].digest });
    const deadline = Date.now() + 30_000;
    let failure = '';
    while (!failure && Date.now() < deadline) {
      const events = (await handle.fetchHistory()).events ?? [];
      failure = events.flatMap((e) => (e.workflowTaskFailedEventAttributes ? [e.workflowTaskFailedEventAttributes.failure?.message ?? ''] : []))[0] ?? '';
      if (!failure) await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(failure).toContain('Nondeterminism');
    expect((await handle.describe()).status.name).toBe('RUNNING');

    // roll back: the old code replays the history, the approval is already there, the run finishes
    await wrong.stop();
    await h.restartWorker();
    const r = await handle.result();
    expect(r).toMatchObject({ status: 'completed', reason: 'exit', finalText: 'draft v2' });
    expect(r.warnings).not.toContain(UPGRADED_WARNING);
    expect(h.stub.hits('writer')).toBe(1);
  });
});
