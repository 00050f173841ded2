/**
 * No decision is ever dropped (docs/semantics.md, "Humans in the loop"). A `status` query can be
 * answered from a workflow task that later fails (a worker killed mid-task), so a human can see and
 * approve request r1 before the result that opens it is committed; on the task's retry, the approve
 * signal and that result arrive in one activation, the signal first. This test builds exactly that
 * history: workflow tasks and activities run on separate workers; the workflow worker stops while the
 * model call that will open r1 is in flight; the call completes, the approve signal for r1 is sent
 * (naming the digest r1 shows, as a human who saw it would: docs/semantics.md, "Gates"),
 * and a new workflow worker receives both in one workflow task. The approval is applied when r1 opens
 * and the gated tool runs; the history replays; with TROUPE_RECORD_HISTORIES=1 it is kept as a
 * fixture (test/fixtures/histories/v0.3/decision-overtakes-its-request.json) that the replay test
 * replays on every run.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { temporal } from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import { createActivities } from '../../src/activities';
import { sendSignal } from '../../src/client';
import { gateDigest } from '../../src/core/humans/digest';
import { startStubLlm, stubGate, type StubLlm } from '../helpers/stub-llm';
import { compileYaml } from '../helpers/compile';
import { startRun } from '../../src/client';
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

test('an approve signal delivered in the activation that opens its request runs the gated call', async () => {
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
    const deployed = path.join(dir, 'deployed.txt');
    const gate = stubGate();
    stub.script('ops', [gate.hold({ toolCalls: [{ name: 'append_line', arguments: { file: deployed, line: 'v2' } }] }), { text: 'deployed' }]);
    const handle = await startRun(tc.client, { role: compileYaml(ROLE), task: 'deploy v2', taskQueue, workflowId: uniqueWorkflowId('overtake') });
    await stub.waitForRequests(1, 'ops');

    await first.stop();
    first = undefined;
    gate.open();
    const completed = async () =>
      ((await handle.fetchHistory()).events ?? []).some((e) => e.eventType === EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED);
    while (!(await completed())) await new Promise((r) => setTimeout(r, 50));
    // r1 is not open yet: the human saw it, with its digest, from a task that never committed
    const digest = gateDigest({ kind: 'tool_call', requestId: 'r1', agent: 'ops', tool: 'append_line', text: JSON.stringify({ file: deployed, line: 'v2' }) });
    await sendSignal(handle, 'approve', { requestId: 'r1', by: 'ana', digest });

    second = await workflowWorker();
    const r = await handle.result();
    expect(r).toMatchObject({ status: 'completed', finalText: 'deployed', warnings: [] });
    expect(r.decisions).toEqual([expect.objectContaining({ requestId: 'r1', request: 'tool_call', kind: 'approve', by: 'ana', digest })]);
    expect(r.decisions[0]).not.toHaveProperty('refused');
    expect(fs.readFileSync(deployed, 'utf8')).toBe('v2\n');

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
  } finally {
    await first?.stop();
    await second?.stop();
    activityWorker.shutdown();
    await activityRun;
    await activityConnection.close();
  }
});
