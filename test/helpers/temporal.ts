/**
 * Server-test helpers: connect to the dev server started by global-setup, share the workflow bundle
 * global-setup built (or bundle once per test file), run a real Worker on a unique task queue in the
 * background and tear it down.
 */
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { Client, Connection } from '@temporalio/client';
import {
  bundleWorkflowCode,
  DefaultLogger,
  NativeConnection,
  Runtime,
  Worker,
  type LogLevel,
  type WorkerOptions,
  type WorkflowBundle,
} from '@temporalio/worker';
import { FAST_LOCAL_DYNAMIC_CONFIG, startDevServer, type DevServer, type DevServerOptions } from '../../src/dev/temporal-server';
import { bundleOptions } from '../../src/worker';

/** Messages of this helper, kept together so they read the same everywhere. */
export const TEMPORAL_HELPER_MESSAGES = {
  noServer:
    'TEMPORAL_TEST_ADDRESS is not set: run server tests through jest\'s "server" project ' +
    '(npx jest --selectProjects server ...), whose global-setup starts the Temporal dev server',
} as const;

/** Default workflows module bundled for workers (the troupe graph workflow). */
export function defaultWorkflowsPath(): string {
  return require.resolve('../../src/workflows');
}

/** Address (`host:port`) of the shared test server; throws a clear error outside the server project. */
export function testAddress(): string {
  const address = process.env.TEMPORAL_TEST_ADDRESS;
  if (!address) throw new Error(TEMPORAL_HELPER_MESSAGES.noServer);
  return address;
}

/** Namespace of the shared test server (`default`). */
export function testNamespace(): string {
  return process.env.TEMPORAL_TEST_NAMESPACE ?? 'default';
}

/** A task queue name no other test uses. */
export function uniqueTaskQueue(prefix = 'test'): string {
  return `${prefix}-${randomUUID().slice(0, 8)}`;
}

/** A workflow id no other test uses. */
export function uniqueWorkflowId(prefix = 'wf'): string {
  return `${prefix}-${randomUUID()}`;
}

let runtimeInstalled = false;

/**
 * Installs the SDK runtime with a quiet logger (ERROR; `TROUPE_TEST_WORKER_LOG=WARN|INFO|DEBUG`
 * overrides) so worker state changes and expected activity failures do not flood jest output.
 * Safe to call repeatedly.
 */
export function installQuietRuntime(): void {
  if (runtimeInstalled) return;
  runtimeInstalled = true;
  try {
    Runtime.install({ logger: new DefaultLogger(workerLogLevel()) });
  } catch {
    /* a runtime already exists in this module registry: keep it */
  }
}

function workerLogLevel(): LogLevel {
  return (process.env.TROUPE_TEST_WORKER_LOG as LogLevel | undefined) ?? 'ERROR';
}

/** A client connection plus a `close()` that tests call in `afterAll`. */
export interface TestClient {
  client: Client;
  connection: Connection;
  close(): Promise<void>;
}

/** Connects a `Client` to the shared test server (or `address`). */
export async function connectClient(address = testAddress(), namespace = testNamespace()): Promise<TestClient> {
  const connection = await Connection.connect({ address });
  const client = new Client({ connection, namespace });
  return { client, connection, close: () => connection.close() };
}

/** Connects a `NativeConnection` (for workers) to the shared test server (or `address`). */
export async function connectNative(address = testAddress()): Promise<NativeConnection> {
  installQuietRuntime();
  return NativeConnection.connect({ address });
}

const bundles = new Map<string, Promise<WorkflowBundle>>();

/** Environment variable naming the file of the default workflows bundle global-setup wrote. */
export const SHARED_BUNDLE_VARIABLE = 'TROUPE_TEST_WORKFLOW_BUNDLE';

/** Bundles a workflows module as the worker bundles it: troupe's modules shared by the runs a worker caches. */
export async function bundleWorkflows(workflowsPath = defaultWorkflowsPath()): Promise<WorkflowBundle> {
  const b = await bundleWorkflowCode({ ...bundleOptions(workflowsPath), logger: new DefaultLogger('WARN') });
  return { code: b.code };
}

/**
 * The bundle of a workflows module. The default module's is the one global-setup built once for the
 * whole run (a webpack build takes ~4 s; ~70 files would spend minutes on the same bytes); any other
 * module is bundled once per test file (jest gives each file its own module registry).
 */
export function getWorkflowBundle(workflowsPath = defaultWorkflowsPath()): Promise<WorkflowBundle> {
  let bundle = bundles.get(workflowsPath);
  if (!bundle) {
    const shared = process.env[SHARED_BUNDLE_VARIABLE];
    bundle =
      shared && workflowsPath === defaultWorkflowsPath()
        ? readFile(shared, 'utf8').then((code) => ({ code }))
        : bundleWorkflows(workflowsPath);
    bundle.catch(() => bundles.delete(workflowsPath));
    bundles.set(workflowsPath, bundle);
  }
  return bundle;
}

/** Options of {@link startWorker}. */
export interface TestWorkerOptions {
  /** Activity implementations registered on the worker. */
  activities?: object;
  /** Workflows module to bundle; default `src/workflows`. */
  workflowsPath?: string;
  /** Default: a fresh {@link uniqueTaskQueue}. */
  taskQueue?: string;
  /** Default: the shared test server. */
  address?: string;
  namespace?: string;
  /** Extra/overriding Worker options (e.g. `maxConcurrentActivityTaskExecutions`). */
  workerOptions?: Partial<WorkerOptions>;
}

/** A worker running in the background; `stop()` shuts it down and closes its connection. */
export interface RunningWorker {
  worker: Worker;
  taskQueue: string;
  connection: NativeConnection;
  /** Shuts the worker down (idempotent); rethrows if the worker had crashed. */
  stop(): Promise<void>;
}

/**
 * Creates a real Worker on a unique task queue and runs it in the background. Defaults follow the
 * production worker where it matters to tests: `maxHeartbeatThrottleInterval` 500 ms (§11.4); a
 * short shutdown grace so teardown is quick even with hanging activities.
 */
export async function startWorker(opts: TestWorkerOptions = {}): Promise<RunningWorker> {
  const taskQueue = opts.taskQueue ?? uniqueTaskQueue();
  const [workflowBundle, connection] = await Promise.all([
    getWorkflowBundle(opts.workflowsPath),
    connectNative(opts.address ?? testAddress()),
  ]);
  let worker: Worker;
  try {
    worker = await Worker.create({
      connection,
      namespace: opts.namespace ?? testNamespace(),
      taskQueue,
      workflowBundle,
      activities: opts.activities ?? {},
      maxHeartbeatThrottleInterval: '500ms',
      shutdownGraceTime: '2s',
      shutdownForceTime: '10s',
      ...opts.workerOptions,
    });
  } catch (err) {
    await connection.close().catch(() => undefined);
    throw err;
  }
  let runError: unknown;
  const running = worker.run().catch((err: unknown) => {
    runError = err;
  });
  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await running;
      await connection.close().catch(() => undefined);
      if (runError) throw runError;
    })();
    return stopping;
  };
  return { worker, taskQueue, connection, stop };
}

/** Runs `fn` with a background worker and always stops the worker afterwards. */
export async function withWorker<R>(opts: TestWorkerOptions, fn: (w: RunningWorker) => Promise<R>): Promise<R> {
  const w = await startWorker(opts);
  try {
    return await fn(w);
  } finally {
    await w.stop();
  }
}

/** Replays a recorded history against the (cached) workflow bundle; throws on nondeterminism. */
export async function replayHistory(history: unknown, workflowId?: string, workflowsPath?: string): Promise<void> {
  installQuietRuntime();
  const workflowBundle = await getWorkflowBundle(workflowsPath);
  await Worker.runReplayHistory({ workflowBundle }, history, workflowId);
}

/**
 * Starts a dev server just for one test file, for tests that need non-default dynamic config
 * (e.g. `{ 'limit.historyCount.suggestContinueAsNew': 200 }`). Stop it in `afterAll`.
 */
export async function startDedicatedServer(
  dynamicConfig: DevServerOptions['dynamicConfig'],
  opts: Omit<DevServerOptions, 'dynamicConfig'> = {},
): Promise<DevServer> {
  return startDevServer({
    headless: true,
    cliPath: process.env.TEMPORAL_TEST_CLI || process.env.TEMPORAL_CLI || undefined,
    ...opts,
    dynamicConfig: { ...FAST_LOCAL_DYNAMIC_CONFIG, ...dynamicConfig },
  });
}
