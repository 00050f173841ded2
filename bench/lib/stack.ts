/**
 * One benchmark stack: a real Temporal dev server (in memory, headless), a client, the production
 * troupe worker (createWorker, prebuilt bundle) and a worker for the bench-only floor workflow, all
 * pointed at the stub LLM. Benchmarks start runs through it and read their histories.
 */
import { randomUUID } from 'node:crypto';
import * as path from 'node:path';
import { Client, Connection, type WorkflowHandle, type WorkflowHandleWithFirstExecutionRunId } from '@temporalio/client';
import {
  bundleWorkflowCode,
  DefaultLogger,
  NativeConnection,
  Runtime,
  Worker,
  type WorkerOptions,
  type WorkflowBundleWithSourceMap,
} from '@temporalio/worker';
import { createActivities } from '../../src/activities';
import { loadRoleConfig, formatIssue } from '../../src/core/config/load';
import type { CompiledGraph } from '../../src/core/graph/types';
import type { RunResult } from '../../src/core/ending/result';
import { FAST_LOCAL_DYNAMIC_CONFIG, startDevServer, type DevServer, type DynamicConfigValue } from '../../src/dev/temporal-server';
import { bundleWorkflows, createWorker } from '../../src/worker';
import { startRun } from '../../src/client';
import { WORKFLOW_TYPE } from '../../src/contract';
import { createFloorActivities } from '../floor/activities';
import type { FloorInput, FloorPayloadInput } from '../floor/workflows';
import type { RecordedRequest } from './stub-client';

/** The two workflow bundles, built once per suite (webpack is the slow part of a worker start). */
export interface Bundles {
  troupe: WorkflowBundleWithSourceMap;
  floor: WorkflowBundleWithSourceMap;
  troupeMs: number;
  floorMs: number;
}

let runtimeInstalled = false;

/** Installs the SDK runtime once with a WARN logger so worker chatter stays out of the report. */
export function installRuntime(): void {
  if (runtimeInstalled) return;
  runtimeInstalled = true;
  Runtime.install({ logger: new DefaultLogger('WARN') });
}

/**
 * Bundles troupe's workflows (as `troupe worker` does without `--metrics`: the benches' workers export
 * no metrics) and the floor workflow, timing each.
 */
export async function buildBundles(): Promise<Bundles> {
  const t0 = performance.now();
  const troupe = await bundleWorkflows(undefined, undefined, undefined, false);
  const t1 = performance.now();
  const floor = await bundleWorkflowCode({
    workflowsPath: path.join(__dirname, '..', 'floor', 'workflows.ts'),
    logger: new DefaultLogger('WARN'),
  });
  const t2 = performance.now();
  return { troupe, floor, troupeMs: t1 - t0, floorMs: t2 - t1 };
}

/** Compiles a role.yaml text; throws with every located error. */
export function compileYaml(yaml: string): CompiledGraph {
  const loaded = loadRoleConfig(yaml, 'bench.yaml');
  if (loaded.errors.length > 0 || !loaded.graph) {
    throw new Error(`invalid bench config:\n${loaded.errors.map(formatIssue).join('\n')}`);
  }
  return loaded.graph;
}

/** A troupe worker with non-default options on its own task queue (bench variants). */
export interface ExtraWorker {
  taskQueue: string;
  stop(): Promise<void>;
}

/**
 * Starts a troupe worker like createWorker's (same activities, bundle and heartbeat throttling) but
 * with `overrides` (e.g. no workflow cache, more activity pollers), on a fresh task queue of `stack`.
 */
export async function startExtraWorker(
  stack: Stack,
  bundles: Bundles,
  stubUrl: string,
  overrides: Partial<WorkerOptions>,
): Promise<ExtraWorker> {
  const connection = await NativeConnection.connect({ address: stack.server.address });
  const taskQueue = `bench-extra-${randomUUID().slice(0, 8)}`;
  const worker = await Worker.create({
    connection,
    namespace: stack.server.namespace,
    taskQueue,
    workflowBundle: bundles.troupe,
    activities: createActivities({ baseUrl: stubUrl, apiKey: 'bench-key', env: {} }),
    maxConcurrentActivityTaskExecutions: 100,
    maxHeartbeatThrottleInterval: '500ms',
    defaultHeartbeatThrottleInterval: '500ms',
    ...overrides,
  });
  const running = worker.run();
  return {
    taskQueue,
    async stop() {
      worker.shutdown();
      await running;
      await connection.close();
    },
  };
}

/** Dev-server variants besides the default: dynamic config, and what it changes. */
export const SERVER_VARIANTS = {
  eager: {
    label: 'eager dispatch',
    dynamicConfig: { 'system.enableActivityEagerExecution': true },
  },
  'fast-transfer': {
    label: 'transfer poll 1000/s',
    dynamicConfig: { 'history.transferProcessorMaxPollRPS': 1000 },
  },
  tuned: {
    label: 'eager + transfer poll 1000/s + 1 partition',
    dynamicConfig: { ...FAST_LOCAL_DYNAMIC_CONFIG },
  },
} as const satisfies Record<string, { label: string; dynamicConfig: Record<string, DynamicConfigValue> }>;

/** A dev-server variant name. */
export type ServerVariant = keyof typeof SERVER_VARIANTS;

/** Options of {@link startStack}. */
export interface StackOptions {
  name: string;
  bundles: Bundles;
  stubUrl: string;
  /** Requests the floor activity replays (filled in after the first troupe run). */
  floorRequests: () => RecordedRequest[];
  dynamicConfig?: Record<string, DynamicConfigValue>;
  /** SQLite file for the dev server (default: in memory). */
  dbFile?: string;
}

/** A running stack; `close()` stops the workers, the connections and the server. */
export interface Stack {
  name: string;
  server: DevServer;
  client: Client;
  /** Start a troupe run of a compiled graph (on the stack's troupe worker unless `taskQueue` is given). */
  startTroupe(graph: CompiledGraph, task: string, taskQueue?: string): Promise<WorkflowHandleWithFirstExecutionRunId>;
  /** Start a troupe run as a bare client start would: no memo, no UI metadata, no search attributes. */
  startTroupePlain(graph: CompiledGraph, task: string, taskQueue?: string): Promise<WorkflowHandleWithFirstExecutionRunId>;
  /** Start a floor run. */
  startFloor(input: FloorInput): Promise<WorkflowHandleWithFirstExecutionRunId>;
  /** Start a floor fan-out of `k` bare activities at once (B4). */
  startFloorFanout(k: number): Promise<WorkflowHandleWithFirstExecutionRunId>;
  /** Start a floor run of bare payload activities (B7). */
  startFloorPayload(input: FloorPayloadInput): Promise<WorkflowHandleWithFirstExecutionRunId>;
  /** Start a troupe run that continues closed run `from` with `task` (B15; docs/semantics.md, "Teams that go on"). */
  continueTroupe(graph: CompiledGraph, task: string, from: string): Promise<WorkflowHandleWithFirstExecutionRunId>;
  /** Start a bare parent whose one child is a troupe run of `graph` on the troupe worker (B9). */
  startFloorNested(graph: CompiledGraph, task: string): Promise<WorkflowHandleWithFirstExecutionRunId>;
  /** Result of a troupe run. */
  result(handle: WorkflowHandle): Promise<RunResult>;
  close(): Promise<void>;
}

/** Starts a dev server and both workers; resolves once the workers run. */
export async function startStack(opts: StackOptions): Promise<Stack> {
  installRuntime();
  const server = await startDevServer({ headless: true, dynamicConfig: opts.dynamicConfig, dbFile: opts.dbFile });
  const native = await NativeConnection.connect({ address: server.address });
  const connection = await Connection.connect({ address: server.address });
  const client = new Client({ connection, namespace: server.namespace });
  const troupeQueue = `bench-troupe-${randomUUID().slice(0, 8)}`;
  const floorQueue = `bench-floor-${randomUUID().slice(0, 8)}`;
  const troupeWorker = await createWorker({
    address: server.address,
    namespace: server.namespace,
    taskQueue: troupeQueue,
    connection: native,
    workflowBundle: opts.bundles.troupe,
    llm: { baseUrl: opts.stubUrl, apiKey: 'bench-key', env: {} },
  });
  const floorWorker = await Worker.create({
    connection: native,
    namespace: server.namespace,
    taskQueue: floorQueue,
    workflowBundle: opts.bundles.floor,
    activities: createFloorActivities(opts.stubUrl, opts.floorRequests),
    maxHeartbeatThrottleInterval: '500ms',
    defaultHeartbeatThrottleInterval: '500ms',
  });
  const running = [troupeWorker.run(), floorWorker.run()];
  const id = (prefix: string) => `${prefix}-${randomUUID()}`;
  return {
    name: opts.name,
    server,
    client,
    // as `troupe run` starts a run: memo, UI summary and details, and troupe's search attributes
    startTroupe: (graph, task, taskQueue) => startRun(client, { role: graph, task, taskQueue: taskQueue ?? troupeQueue, workflowId: id(graph.name) }),
    continueTroupe: (graph, task, from) => startRun(client, { role: graph, task, taskQueue: troupeQueue, continueFrom: from }),
    startTroupePlain: (graph, task, taskQueue) =>
      client.workflow.start(WORKFLOW_TYPE, { taskQueue: taskQueue ?? troupeQueue, workflowId: id(graph.name), args: [{ graph, task }] }),
    startFloor: (input) =>
      client.workflow.start('floorLoop', { taskQueue: floorQueue, workflowId: id('floor'), args: [input] }),
    startFloorFanout: (k) => client.workflow.start('floorFanout', { taskQueue: floorQueue, workflowId: id('floor-fanout'), args: [k] }),
    startFloorPayload: (input) =>
      client.workflow.start('floorPayload', { taskQueue: floorQueue, workflowId: id('floor-payload'), args: [input] }),
    startFloorNested: (graph, task) =>
      client.workflow.start('floorNested', { taskQueue: floorQueue, workflowId: id('floor-nested'), args: [{ taskQueue: troupeQueue, run: { graph, task } }] }),
    result: (handle) => handle.result() as Promise<RunResult>,
    async close() {
      troupeWorker.shutdown();
      floorWorker.shutdown();
      await Promise.allSettled(running);
      await native.close().catch(() => undefined);
      await connection.close().catch(() => undefined);
      await server.stop();
    },
  };
}
