/**
 * Worker Versioning (docs/versioning.md): a run is pinned to the worker build it started on. Two
 * builds of troupe poll one task queue — v1 from today's `src/`, v2 from a copy of `src/` whose run
 * workflow adds a warning at its end, unguarded (no `patched()`) — each a worker of the product's
 * `createWorker` with a `deployment`. A run started on v1 that waits for a human while v2 is made
 * current finishes on v1 without the warning, while a run started after finishes on v2 with it; and
 * a run that continues as new while v2 is current stays on v1 in every execution of its chain.
 */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { promisify } from 'node:util';
import type { Client, WorkflowHandle } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { bundleWorkflowCode, DefaultLogger, type NativeConnection, type Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { startRun } from '../../src/client';
import { findTemporalCli, type DevServer } from '../../src/dev/temporal-server';
import { bundleOptions, createWorker, type WorkerBuild } from '../../src/worker';
import { troupe } from '../helpers/cli';
import { patchedRelease, warnAtEnd } from '../helpers/patched-release';
import { compileYaml } from '../helpers/compile';
import { waitForStatus } from '../helpers/runs';
import { startStubLlm, stubGate, type StubLlm } from '../helpers/stub-llm';
import {
  connectClient,
  connectNative,
  startDedicatedServer,
  testAddress,
  testNamespace,
  uniqueTaskQueue,
  uniqueWorkflowId,
  type TestClient,
} from '../helpers/temporal';

const execFileAsync = promisify(execFile);

/** The warning build v2 adds at the end of every run it finishes. */
const V2_WARNING = 'finished by build v2';

const APPROVED = `
name: versioned
agents:
  writer: { instructions: "Write." }
collaboration:
  topology: pipeline
  agents: [writer]
approval:
  before_exit: true
`;

const LOOP = `
name: versioned-loop
agents:
  writer: { instructions: "Write." }
  critic: { instructions: "Critique." }
collaboration:
  topology: review-loop
  agents: [writer, critic]
  max_iterations: 10
  termination:
    any_of:
      - max_iterations: 10
`;

const PINNED = temporal.api.enums.v1.VersioningBehavior.VERSIONING_BEHAVIOR_PINNED;

let stub: StubLlm;
let cli: string;
let v1Bundle: WorkflowBundleWithSourceMap;
let v2Bundle: WorkflowBundleWithSourceMap;
const copies: string[] = [];
const clients: TestClient[] = [];
const workers: Array<{ worker: Worker; running: Promise<void>; connection: NativeConnection }> = [];
const servers: DevServer[] = [];

/** A copy of `src/` whose run workflow warns {@link V2_WARNING} as it ends; the path of its workflows module. */
function v2Source(): string {
  const root = patchedRelease('build-v2', warnAtEnd(V2_WARNING));
  copies.push(root);
  return path.join(root, 'src', 'workflows');
}

/** The workflow code of a workflows module, bundled as `troupe worker` bundles it. */
function bundle(workflowsPath: string): Promise<WorkflowBundleWithSourceMap> {
  return bundleWorkflowCode({ ...bundleOptions(workflowsPath), logger: new DefaultLogger('WARN') });
}

/** A troupe worker of `build` (the product's `createWorker`), running in the background. */
async function startBuild(build: WorkerBuild, workflowBundle: WorkflowBundleWithSourceMap, taskQueue: string, address = testAddress()): Promise<void> {
  const connection = await connectNative(address);
  const worker = await createWorker({
    env: false,
    address,
    namespace: testNamespace(),
    taskQueue,
    connection,
    workflowBundle,
    shutdownGraceMs: 0,
    llm: { baseUrl: stub.url, apiKey: 'test-key', env: {} },
    deployment: build,
  });
  workers.push({ worker, running: worker.run(), connection });
}

/**
 * Make `build` its deployment's current version with the Temporal CLI, as an operator does. The
 * server knows a deployment and a build only once a worker of that build has polled ("Worker
 * Deployment not found", "Version not found in deployment"), and takes a new build as current only
 * once its workers have polled every task queue the current build's do, activity tasks as well as
 * workflow tasks ("missing active task queues"), so it is asked again until it accepts.
 */
async function setCurrent(build: WorkerBuild, address = testAddress()): Promise<void> {
  const args = ['worker', 'deployment', 'set-current-version', '--deployment-name', build.deploymentName, '--build-id', build.buildId, '--yes'];
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      const { stdout } = await execFileAsync(cli, [...args, '--address', address, '--namespace', testNamespace()]);
      expect(stdout).toContain('Successfully set the current worker deployment version');
      return;
    } catch (e) {
      const { stderr = '' } = e as { stderr?: string };
      if (!/not found|missing active task queues/i.test(stderr) || Date.now() > deadline) throw new Error(`temporal ${args.join(' ')} failed: ${stderr || (e as Error).message}`);
      await new Promise((r) => setTimeout(r, 500));
    }
  }
}

/** What `describe()` tells of a run's version (the TS client has it in `raw` only). */
async function versionOf(handle: WorkflowHandle): Promise<{ behavior: unknown; deploymentName: unknown; buildId: unknown }> {
  const info = (await handle.describe()).raw.workflowExecutionInfo?.versioningInfo;
  return { behavior: info?.behavior, deploymentName: info?.deploymentVersion?.deploymentName, buildId: info?.deploymentVersion?.buildId };
}

/** The build ids of the workers that completed the run's workflow tasks, in order. */
async function taskBuilds(handle: WorkflowHandle): Promise<string[]> {
  const events = (await handle.fetchHistory()).events ?? [];
  return events.flatMap((e) => (e.workflowTaskCompletedEventAttributes ? [e.workflowTaskCompletedEventAttributes.deploymentVersion?.buildId ?? '(none)'] : []));
}

function buildsOf(name: string): { v1: WorkerBuild; v2: WorkerBuild } {
  const deploymentName = `${name}-${randomUUID().slice(0, 8)}`;
  return { v1: { deploymentName, buildId: 'v1' }, v2: { deploymentName, buildId: 'v2' } };
}

function start(client: Client, yaml: string, taskQueue: string) {
  const graph = compileYaml(yaml);
  return startRun(client, { role: graph, task: 'test task', taskQueue, workflowId: uniqueWorkflowId(graph.name) });
}

beforeAll(async () => {
  stub = await startStubLlm();
  cli = process.env.TEMPORAL_TEST_CLI || (await findTemporalCli());
  // both builds bundled once for the file
  v1Bundle = await bundle(require.resolve('../../src/workflows'));
  v2Bundle = await bundle(v2Source());
}, 300_000);

afterAll(async () => {
  for (const { worker, running, connection } of workers) {
    if (worker.getState() === 'RUNNING') worker.shutdown();
    await running.catch(() => undefined);
    await connection.close().catch(() => undefined);
  }
  for (const c of clients) await c.close().catch(() => undefined);
  await stub?.close();
  for (const s of servers) await s.stop().catch(() => undefined);
  for (const root of copies) fs.rmSync(root, { recursive: true, force: true });
}, 120_000);

beforeEach(() => stub.reset());

test('a run waiting for a human while v2 becomes current finishes on v1, as v1 would; a run started after finishes on v2', async () => {
  const tc = await connectClient();
  clients.push(tc);
  const taskQueue = uniqueTaskQueue('versioned');
  const { v1, v2 } = buildsOf('troupe-test');

  await startBuild(v1, v1Bundle, taskQueue);
  await setCurrent(v1);
  stub.script('writer', [{ text: 'draft one' }, { text: 'draft two' }]);
  const old = await start(tc.client, APPROVED, taskQueue);
  await waitForStatus(old, (s) => s.phase === 'awaiting_human', 60_000);

  // build v2 is deployed beside v1, on the same task queue, and made current
  await startBuild(v2, v2Bundle, taskQueue);
  await setCurrent(v2);
  const fresh = await start(tc.client, APPROVED, taskQueue);
  await waitForStatus(fresh, (s) => s.phase === 'awaiting_human', 60_000);
  expect((await troupe('approve', fresh.workflowId)).code).toBe(0);
  const freshResult = await fresh.result();
  expect(freshResult).toMatchObject({ status: 'completed', reason: 'exit', finalText: 'draft two' });
  expect(freshResult.warnings).toContain(V2_WARNING);

  // the old run's approval arrives while v2 is current: v1 still serves it
  expect((await troupe('approve', old.workflowId)).code).toBe(0);
  const oldResult = await old.result();
  expect(oldResult).toMatchObject({ status: 'completed', reason: 'exit', finalText: 'draft one' });
  expect(oldResult.warnings).not.toContain(V2_WARNING);
  expect(stub.hits('writer')).toBe(2);

  expect(await versionOf(old)).toEqual({ behavior: PINNED, deploymentName: v1.deploymentName, buildId: 'v1' });
  expect(await versionOf(fresh)).toEqual({ behavior: PINNED, deploymentName: v2.deploymentName, buildId: 'v2' });
  // every workflow task of the old run, the one after the approval too, was a v1 worker's
  const oldTasks = await taskBuilds(old);
  expect(oldTasks.length).toBeGreaterThan(1);
  expect(new Set(oldTasks)).toEqual(new Set(['v1']));
  expect(new Set(await taskBuilds(fresh))).toEqual(new Set(['v2']));
}, 180_000);

test('a run that continues as new while v2 is current stays on v1 in every execution, counters carried', async () => {
  const server = await startDedicatedServer({ 'limit.historyCount.suggestContinueAsNew': 40 });
  servers.push(server);
  const tc = await connectClient(server.address);
  clients.push(tc);
  const taskQueue = uniqueTaskQueue('versioned-loop');
  const { v1, v2 } = buildsOf('troupe-loop');

  await startBuild(v1, v1Bundle, taskQueue, server.address);
  await startBuild(v2, v2Bundle, taskQueue, server.address);
  await setCurrent(v1, server.address);
  // the first writer call waits until v2 is current: the whole chain but its start runs after that
  const gate = stubGate();
  stub.script('writer', [gate.hold({ text: 'draft' }), { text: 'draft' }]);
  stub.script('critic', [{ text: 'critique' }]);
  const handle = await start(tc.client, LOOP, taskQueue);
  const deadline = Date.now() + 60_000;
  while (stub.hits('writer') === 0) {
    if (Date.now() > deadline) throw new Error('the run never called its writer');
    await new Promise((r) => setTimeout(r, 100));
  }
  await setCurrent(v2, server.address);
  gate.open();

  const result = await handle.result();
  expect(result).toMatchObject({ status: 'exhausted', reason: 'max_iterations', steps: 20 });
  expect(result.iterations).toEqual({ 'critic,writer': 10 });
  expect(result.usage.agentCalls).toBe(20);
  expect(result.warnings).not.toContain(V2_WARNING);
  expect(stub.hits('writer')).toBe(10);
  expect(stub.hits('critic')).toBe(10);

  // the chain, first execution to last: each pinned to v1, each task completed by a v1 worker
  const chain: string[] = [];
  for (let runId: string | undefined = handle.firstExecutionRunId; runId; ) {
    chain.push(runId);
    const execution: WorkflowHandle = tc.client.workflow.getHandle(handle.workflowId, runId);
    expect(await versionOf(execution)).toEqual({ behavior: PINNED, deploymentName: v1.deploymentName, buildId: 'v1' });
    expect(new Set(await taskBuilds(execution))).toEqual(new Set(['v1']));
    const events: temporal.api.history.v1.IHistoryEvent[] = (await execution.fetchHistory()).events ?? [];
    // an execution continued as new inherits the pinned version from the one before
    const inherited = events[0]?.workflowExecutionStartedEventAttributes?.inheritedPinnedVersion;
    if (chain.length > 1) expect(inherited).toMatchObject({ deploymentName: v1.deploymentName, buildId: 'v1' });
    runId = events.at(-1)?.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId ?? undefined;
  }
  expect(chain.length).toBeGreaterThan(1);
}, 180_000);
