/**
 * No decision is ever dropped, nor applied twice (docs/semantics.md, "Humans in the loop"). A
 * `status` query can be answered from a workflow task that later fails (a worker killed mid-task),
 * so a human can see and approve request r1 before the result that opens it is committed; on the
 * task's retry, the decision and that result arrive in one activation, the decision first. These
 * tests build exactly that history: workflow tasks and activities run on separate workers; the
 * workflow worker stops while the model call that will open r1 is in flight; the call completes,
 * the approval for r1 is sent (naming the digest r1 shows, as a human who saw it would:
 * docs/semantics.md, "Gates"), and a new workflow worker receives both in one workflow task.
 *
 * - As an Update (what `troupe approve` and the library send): its validator finds r1 not open yet
 *   and refuses it (`not_open_yet`) before anything enters the history; asked again, once the
 *   task that opens r1 completed, it is applied, once, and the gated tool runs once.
 * - As a signal (what an older client sends): it is kept until r1 opens, then applied. With
 *   TROUPE_RECORD_HISTORIES=1 this history is kept as a fixture
 *   (test/fixtures/histories/v0.3/decision-overtakes-its-request.json) that the replay test replays
 *   on every run.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { temporal } from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import { createActivities } from '../../src/activities';
import { approve, decideRequest, sendSignal, startRun, type RunHandle } from '../../src/client';
import { gateDigest } from '../../src/core/humans/digest';
import { startStubLlm, stubGate, type StubLlm } from '../helpers/stub-llm';
import { compileYaml } from '../helpers/compile';
import { connectClient, connectNative, replayHistory, startWorker, testAddress, testNamespace, uniqueTaskQueue, uniqueWorkflowId, type RunningWorker, type TestClient } from '../helpers/temporal';
import { openTools } from '../../src/worker';
import { SERVER_TOOLS } from '../helpers/tools';
import type { ToolRegistry } from '../../src/tools';

const EventType = temporal.api.enums.v1.EventType;
const FIXTURE = path.resolve(__dirname, '..', 'fixtures', 'histories', 'v0.3', 'decision-overtakes-its-request.json');

const ROLE = `
name: overtaken
agents:
  ops: { instructions: "Deploy.", tools: [append_line] }
collaboration:
  topology: pipeline
  agents: [ops]
approval:
  tools: [append_line]
`;

let stub: StubLlm;
let tc: TestClient;
let tools: ToolRegistry;
let dir: string;

beforeAll(async () => {
  stub = await startStubLlm();
  tc = await connectClient();
  dir = fs.mkdtempSync(path.join(require('node:os').tmpdir(), 'troupe-overtake-'));
  const file = path.join(dir, 'tools.yaml');
  fs.writeFileSync(file, `modules: [${JSON.stringify(SERVER_TOOLS)}]\n`);
  tools = await openTools(file);
});

afterAll(async () => {
  await tools?.close();
  await tc?.close();
  await stub?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** Where the race is set up: r1's result completed, no workflow worker, and `decide` sends the approval of r1; then a workflow worker comes. */
async function raceTheResult(name: string, decide: (handle: RunHandle, digest: string) => Promise<void>): Promise<{ handle: RunHandle; digest: string; deployed: string }> {
  const activities = createActivities({ baseUrl: stub.url, apiKey: 'test-key', env: {}, tools });
  const taskQueue = uniqueTaskQueue('overtake');
  // activities only: it completes the model call while no workflow worker is there
  const activityConnection = await connectNative();
  const activityWorker = await Worker.create({ connection: activityConnection, namespace: testNamespace(), taskQueue, activities });
  const activityRun = activityWorker.run();
  // workflow tasks (and the run-start local activity) only
  const workflowWorker = (): Promise<RunningWorker> => startWorker({ taskQueue, activities, workerOptions: { enableNonLocalActivities: false } });
  let first: RunningWorker | undefined = await workflowWorker();
  let second: RunningWorker | undefined;
  try {
    const deployed = path.join(dir, `${name}.txt`);
    const gate = stubGate();
    const asked = stub.hits('ops');
    stub.script('ops', [gate.hold({ toolCalls: [{ name: 'append_line', arguments: { file: deployed, line: 'v2' } }] }), { text: 'deployed' }]);
    const handle = await startRun(tc.client, { role: compileYaml(ROLE), task: 'deploy v2', taskQueue, workflowId: uniqueWorkflowId(`overtake-${name}`) });
    await stub.waitForRequests(asked + 1, 'ops');

    await first.stop();
    first = undefined;
    gate.open();
    const completed = async () =>
      ((await handle.fetchHistory()).events ?? []).some((e) => e.eventType === EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED);
    while (!(await completed())) await new Promise((r) => setTimeout(r, 50));
    // r1 is not open yet: the human saw it, with its digest, from a task that never committed
    const digest = gateDigest({ kind: 'tool_call', requestId: 'r1', agent: 'ops', tool: 'append_line', text: JSON.stringify({ file: deployed, line: 'v2' }) });
    const decided = decide(handle, digest);

    second = await workflowWorker();
    await decided;
    const r = await handle.result();
    expect(r).toMatchObject({ status: 'completed', finalText: 'deployed', warnings: [] });
    expect(r.decisions).toEqual([expect.objectContaining({ requestId: 'r1', request: 'tool_call', kind: 'approve', by: 'ana', digest })]);
    expect(r.decisions[0]).not.toHaveProperty('refused');
    expect(fs.readFileSync(deployed, 'utf8')).toBe('v2\n');
    return { handle, digest, deployed };
  } finally {
    await first?.stop();
    await second?.stop();
    activityWorker.shutdown();
    await activityRun;
    await activityConnection.close();
  }
}

/** The history's events of `type`, by index. */
const indexesOf = (events: temporal.api.history.v1.IHistoryEvent[], type: temporal.api.enums.v1.EventType) =>
  events.flatMap((e, i) => (e.eventType === type ? [i] : []));

test('an approve Update delivered in the activation that opens its request is refused as not open yet, then applied once', async () => {
  const answers: unknown[] = [];
  const { handle } = await raceTheResult('update', async (h, digest) => {
    // the first answer as it is: the run has not opened r1 when the Update reaches it
    answers.push(await decideRequest(h, { id: 'r1', digest }, { kind: 'approve', by: 'ana' }, { notOpenYetMs: 0 }));
    // asked again (the library does it for a short while): r1 is open now
    answers.push(await approve(h, { id: 'r1', digest }, { by: 'ana' }));
  });
  expect(answers).toEqual([
    {
      outcome: 'refused',
      refusal: { code: 'not_open_yet', requestId: 'r1', reason: 'request r1 is not pending: it is not open yet (pending: none)' },
      text: 'refused: request r1 is not pending: it is not open yet (pending: none)',
    },
    expect.objectContaining({ outcome: 'applied', next: "ops's call of append_line runs", text: "applied to r1: ops's call of append_line runs" }),
  ]);

  // the history holds one accepted Update, after the task that opened r1; the refused one left nothing
  const events = (await handle.fetchHistory()).events ?? [];
  const completedAt = indexesOf(events, EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED)[0];
  const accepted = indexesOf(events, EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED);
  expect(accepted).toHaveLength(1);
  expect(indexesOf(events, EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_COMPLETED)).toHaveLength(1);
  expect(indexesOf(events, EventType.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED)).toHaveLength(0);
  const taskAfterResult = indexesOf(events, EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED).find((i) => i > completedAt) as number;
  expect(accepted[0]).toBeGreaterThan(taskAfterResult);
  await replayHistory({ events }, handle.workflowId);
});

test('an approve signal of an older client delivered in the activation that opens its request runs the gated call', async () => {
  const { handle } = await raceTheResult('signal', (h, digest) => sendSignal(h, 'approve', { requestId: 'r1', by: 'ana', digest }));

  // the history is the race: the result and the signal precede one and the same workflow task
  const history = await handle.fetchHistory();
  const events = history.events ?? [];
  const completedAt = events.findIndex((e) => e.eventType === EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED);
  const signalAt = events.findIndex((e) => e.eventType === EventType.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED);
  const nextTask = events.findIndex((e, i) => i > completedAt && e.eventType === EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED);
  expect(completedAt).toBeGreaterThan(0);
  expect(signalAt).toBeGreaterThan(completedAt);
  expect(signalAt).toBeLessThan(nextTask);
  await replayHistory(history, handle.workflowId);
  if (process.env.TROUPE_RECORD_HISTORIES) {
    fs.mkdirSync(path.dirname(FIXTURE), { recursive: true });
    fs.writeFileSync(
      FIXTURE,
      execFileSync(process.env.TEMPORAL_TEST_CLI!, ['workflow', 'show', '--workflow-id', handle.workflowId, '--address', testAddress(), '--output', 'json']),
    );
  }
});
