/**
 * The troupe worker: runs the run workflow and the LLM and tool activities on a task queue.
 * Workflow code is bundled once at start; a `--plugins` module (custom conditions, completion
 * checks) is bundled into it so the workflow can evaluate what the plugin registers. A tools file
 * (`--tools`) gives the worker its MCP servers and module tools: they start with the worker and
 * close when it stops.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { DataConverter } from '@temporalio/common';
import { bundleWorkflowCode, NativeConnection, Runtime, Worker, type BundleOptions, type WorkerPlugin, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { createActivities, type LlmEndpointOptions } from './activities';
import { redactingLogger } from './activities/redact';
import { environmentSecrets, Redactor } from './secrets/redactor';
import { PAYLOAD_CONVERTER_PATH, troupeDataConverter } from './codec/data-converter';
import { formatIssue } from './core/config/issues';
import { workerConnectionOptions, withDiagnosis } from './connection';
import { resolveSettings, type SettingsOptions } from './settings';
import { tracingSettings } from './telemetry/tracing-env';
import { tracesWorkflows, tracingWorkflowModules, workerTracingPlugins } from './telemetry/tracing';
import { loadToolsFile, openToolRegistry, stderrLogger, type ToolRegistry, type ToolsLogger } from './tools';

/**
 * What the worker runs with. The connection settings (address, namespace, TLS, API key) and the
 * task queue default to the environment's (`TEMPORAL_*`, the profile file, `TROUPE_TASK_QUEUE`).
 */
export interface WorkerConfig extends SettingsOptions {
  /** Plugin module bundled into the workflow (and loaded in the worker process). */
  plugins?: string;
  /** LLM endpoint defaults for the activities. */
  llm?: LlmEndpointOptions;
  /** A prebuilt bundle (tests bundle once per suite). */
  workflowBundle?: WorkflowBundleWithSourceMap;
  /** An existing connection to reuse. */
  connection?: NativeConnection;
  /** Max concurrent activities (star fan-out); default 100. */
  maxConcurrentActivities?: number;
  /** The tools file (`tools.yaml`), or a registry opened already. */
  tools?: string | ToolRegistry;
  /**
   * How payloads are stored; default {@link troupeDataConverter} of the environment (encrypted when
   * `TROUPE_PAYLOAD_KEY` is set). A `workflowBundle` given with it must be bundled with the same
   * converter (`bundleWorkflows(plugins, dataConverter)`), or workflow failures stay plain text.
   */
  dataConverter?: DataConverter;
  /**
   * After shutdown is requested, how long in-flight activities may still finish before they are
   * cancelled; default `TROUPE_SHUTDOWN_GRACE_MS` or 30 s.
   */
  shutdownGraceMs?: number;
  /**
   * The worker build this worker is, with Temporal's Worker Versioning (docs/versioning.md): runs it
   * starts are pinned to it and finish on it, whatever build is current later. Absent: an
   * unversioned worker (local use, `troupe dev`).
   */
  deployment?: WorkerBuild;
}

/**
 * A worker build: its deployment's name and its build id (`troupe worker --deployment-name D --build-id B`).
 * @internal exported for tests
 */
export interface WorkerBuild {
  deploymentName: string;
  buildId: string;
}

/**
 * The variables that name a worker's build, beside `troupe worker`'s flags.
 * @internal exported for tests
 */
export const DEPLOYMENT_ENV = {
  deploymentName: 'TEMPORAL_DEPLOYMENT_NAME',
  buildId: 'TEMPORAL_WORKER_BUILD_ID',
} as const;

/**
 * The build of `--deployment-name`/`--build-id` (or their variables); undefined when neither is
 * given. Throws when only one is: a build needs both.
 */
export function workerBuild(flags: { deploymentName?: string; buildId?: string }, env: NodeJS.ProcessEnv = process.env): WorkerBuild | undefined {
  const deploymentName = flags.deploymentName ?? (env[DEPLOYMENT_ENV.deploymentName] || undefined);
  const buildId = flags.buildId ?? (env[DEPLOYMENT_ENV.buildId] || undefined);
  if (!deploymentName && !buildId) return undefined;
  if (!deploymentName || !buildId) throw new Error(WORKER_TEXTS.halfBuild(deploymentName ? 'build id' : 'deployment name'));
  return { deploymentName, buildId };
}

/**
 * Worker shutdown timing: the default grace, and how long cancelled activities get to stop after it.
 * @internal exported for tests
 */
export const WORKER_SHUTDOWN = {
  graceEnv: 'TROUPE_SHUTDOWN_GRACE_MS',
  defaultGraceMs: 30_000,
  /** After the grace, activities are cancelled; past this margin the SDK gives up on them. */
  forceMarginMs: 10_000,
} as const;

/**
 * Texts of worker start-up failures.
 * @internal exported for tests
 */
export const WORKER_TEXTS = {
  toolsFile: (lines: string[]) => `the tools file has errors:\n${lines.join('\n')}`,
  halfBuild: (missing: string) =>
    `a worker build needs a deployment name and a build id; the ${missing} is missing (--deployment-name/${DEPLOYMENT_ENV.deploymentName}, --build-id/${DEPLOYMENT_ENV.buildId})`,
  badGrace: (value: string) => `${WORKER_SHUTDOWN.graceEnv} must be a whole number of milliseconds (0 or more), not "${value}"`,
  untracedBundle:
    'this worker traces (OTEL_* variables) but its prebuilt workflow bundle has no tracing interceptors: its activities are traced, its workflows are not (bundle with bundleWorkflows(plugins, converter, true); docs/observability.md, "Traces")',
  unrecordedBundle:
    'this worker\'s prebuilt workflow bundle has no progress-record module: its runs are followed by query, and a run followed on a worker that has it cannot replay here (bundle with bundleWorkflows; docs/operating.md, "Following a run from code")',
  unmeteredBundle:
    'this worker exports metrics but its prebuilt workflow bundle has no metrics module: its runs record no tokens, cost or handoffs (bundle with bundleWorkflows(plugins, converter, tracing, true); docs/observability.md, "Metrics")',
} as const;

/** The shutdown grace of `TROUPE_SHUTDOWN_GRACE_MS` (default 30 s); throws when it is not a number of ms. */
export function shutdownGraceFromEnv(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env[WORKER_SHUTDOWN.graceEnv]?.trim();
  if (!raw) return WORKER_SHUTDOWN.defaultGraceMs;
  if (!/^\d+$/.test(raw)) throw new Error(WORKER_TEXTS.badGrace(raw));
  return Number(raw);
}

/**
 * Open the tool registry of a tools file; throws with every error located when the file is invalid.
 * What the tools library logs (servers' stderr, reconnections) is redacted first (activities/redact.ts).
 */
export async function openTools(file: string, logger: ToolsLogger = stderrLogger): Promise<ToolRegistry> {
  const loaded = loadToolsFile(file, process.env);
  if (!loaded.tools) throw new Error(WORKER_TEXTS.toolsFile(loaded.errors.map(formatIssue)));
  const redactor = new Redactor([...environmentSecrets(process.env, []), ...loaded.tools.secrets]);
  const opened = await openToolRegistry(loaded.tools, { logger: redactingLogger(logger, redactor) });
  if (!opened.registry) throw new Error(WORKER_TEXTS.toolsFile(opened.errors.map(formatIssue)));
  return opened.registry;
}

/** The workflow entry file to bundle: the workflows, or a generated entry that loads the plugin first. */
export function workflowEntry(plugins?: string): string {
  const workflows = require.resolve('./workflows');
  if (!plugins) return workflows;
  // inside the package, so the bundler resolves @temporalio/workflow from our node_modules
  const base = path.resolve(__dirname, '..', '.troupe', 'plugin-entries');
  fs.mkdirSync(base, { recursive: true });
  const dir = fs.mkdtempSync(path.join(base, 'entry-'));
  const entry = path.join(dir, 'entry.ts');
  const rel = (p: string) => JSON.stringify(path.resolve(p).replace(/\.[cm]?[tj]s$/, ''));
  fs.writeFileSync(entry, `import ${rel(plugins)};\nexport * from ${rel(workflows.replace(/\.[cm]?[tj]s$/, ''))};\n`);
  return entry;
}

/**
 * Bundle the workflow code (with an optional plugin module). The data converter's payload and
 * failure converters go into the bundle, because they run inside the workflow sandbox; its codecs
 * do not, because they run in the worker's main thread. A worker that traces (`tracing`, default:
 * the environment says so) bundles the tracing workflow interceptors too; one that does not, none.
 * A worker that exports metrics (`metrics`, default true; `createWorker` asks its runtime) bundles
 * the workflow's metrics; one that does not records none (docs/observability.md, "Metrics").
 */
export async function bundleWorkflows(
  plugins?: string,
  dataConverter?: DataConverter,
  tracing: boolean = tracingSettings('worker') !== undefined,
  metrics = true,
): Promise<WorkflowBundleWithSourceMap> {
  return bundleWorkflowCode(workflowBundleOptions(workflowEntry(plugins), dataConverter, tracing, metrics));
}

/** Whether this process's Temporal runtime exports metrics (Prometheus, OpenTelemetry or a buffer). */
function runtimeExportsMetrics(): boolean {
  return Runtime.instance().options.runtimeOptions.metricsExporter != null;
}

/** Whether a bundle holds troupe's workflow module `name` (`src/workflows/<name>`): webpack names each module by its path. */
function bundles(bundle: { code: string }, name: string): boolean {
  return new RegExp(`["'][^"'\\n]*/workflows/${name}\\.[jt]s["']`).test(bundle.code);
}

/** Whether a workflow bundle writes progress records (its record interceptor module is in). */
export function recordsProgress(bundle: { code: string }): boolean {
  return bundles(bundle, 'record-interceptors');
}

/** Whether a workflow bundle records the workflow's metrics (its metrics module is in). */
export function metersWorkflows(bundle: { code: string }): boolean {
  return bundles(bundle, 'metrics-interceptors');
}

/**
 * What {@link bundleWorkflows} gives the bundler for the entry `workflowsPath`.
 * @internal exported for tests
 */
export function workflowBundleOptions(workflowsPath: string, dataConverter: DataConverter | undefined, tracing: boolean, metrics = true): BundleOptions {
  return {
    ...bundleOptions(workflowsPath),
    logger: quietBundlerLogger,
    // the workflow's metrics only in the bundle of a worker that exports them, the tracing
    // interceptors only in a tracing worker's (docs/observability.md, "Metrics" and "Traces")
    workflowInterceptorModules: [RECORD_INTERCEPTOR_MODULE, ...(metrics ? [METRICS_INTERCEPTOR_MODULE] : []), ...(tracing ? tracingWorkflowModules() : [])],
    // a data converter of the caller's own replaces troupe's payload converter in the sandbox too
    ...(dataConverter?.payloadConverterPath ? { payloadConverterPath: dataConverter.payloadConverterPath } : {}),
    ...(dataConverter?.failureConverterPath ? { failureConverterPath: dataConverter.failureConverterPath } : {}),
  };
}

type WebpackConfigHook = NonNullable<BundleOptions['webpackConfigHook']>;

/**
 * How troupe's workflow code is bundled:
 *
 * - **Shared modules.** The bundle's entry is loaded once per worker thread and shared by every run
 *   it caches (`preloadModules`). By default the SDK loads a workflow's modules again for each run,
 *   so each cached run held its own copy of troupe's modules (its schemas, tables and texts): about
 *   2 MB per run (BENCHMARKS.md, B6). troupe's workflow and core modules keep no state of a run (the
 *   run's state lives in its `Run` object), and their module-level registries are filled when the
 *   module loads, the same for every run; the shared modules are frozen by the SDK.
 * - **The progress record's interceptor** (`src/workflows/record-interceptors.ts`) in every bundle:
 *   a followed run writes its records as commands, so every worker that may replay it needs it; and
 *   the one that turns on the workflow's metrics (`metrics-interceptors.ts`), which
 *   {@link workflowBundleOptions} leaves out for a worker that exports none.
 * - **Compiled for ES2022** ({@link compiledForEs2022}), as `tsc` compiles the rest of troupe.
 * - **troupe's payload converter** (`src/codec/payload-converter.ts`): JSON encoded natively, the same
 *   bytes as the SDK's converter.
 * @internal exported for tests
 */
export function bundleOptions(workflowsPath: string): {
  workflowsPath: string;
  preloadModules: string[];
  webpackConfigHook: WebpackConfigHook;
  payloadConverterPath: string;
  workflowInterceptorModules: string[];
} {
  return {
    workflowsPath,
    preloadModules: [workflowsPath],
    webpackConfigHook: compiledForEs2022,
    payloadConverterPath: PAYLOAD_CONVERTER_PATH,
    workflowInterceptorModules: [RECORD_INTERCEPTOR_MODULE, METRICS_INTERCEPTOR_MODULE],
  };
}

/** The workflow interceptor module every troupe bundle has: a followed run's progress records. */
const RECORD_INTERCEPTOR_MODULE = require.resolve('./workflows/record-interceptors');

/** The workflow interceptor module that turns on the workflow's metrics. */
const METRICS_INTERCEPTOR_MODULE = require.resolve('./workflows/metrics-interceptors');

/** The `jsc.target` troupe's TypeScript is compiled to in the workflow bundle. */
const BUNDLE_TARGET = 'es2022';

/**
 * The SDK compiles the bundle's TypeScript with swc for ES2017, which turns every object spread
 * (`{ ...state, paused }`) into calls of a helper that copies property by property; a workflow step
 * makes dozens. A worker run from the sources (a clone, `troupe dev`, the compose image) bundles
 * troupe's TypeScript; one run from the installed package bundles `tsc`'s ES2022 output, which this
 * makes the two alike. Node 20 runs ES2022 natively, and the semantics are the same (class fields are
 * defined, as `tsc` compiles them for troupe's ES2022 target). Rules other than the swc loader are
 * left as they are.
 */
function compiledForEs2022(config: Parameters<WebpackConfigHook>[0]): ReturnType<WebpackConfigHook> {
  for (const rule of config.module?.rules ?? []) {
    if (!rule || typeof rule !== 'object' || !rule.use || typeof rule.use !== 'object' || Array.isArray(rule.use)) continue;
    const { loader, options } = rule.use;
    if (typeof loader !== 'string' || !loader.includes('swc-loader') || !options || typeof options !== 'object') continue;
    const jsc = (options as { jsc?: { target?: string } }).jsc;
    if (jsc) jsc.target = BUNDLE_TARGET;
  }
  return config;
}

const quietBundlerLogger = {
  log: () => undefined,
  trace: () => undefined,
  debug: () => undefined,
  info: () => undefined,
  warn: (message: string) => console.warn(message),
  error: (message: string) => console.error(message),
};

/** Create (not run) a troupe worker. */
export async function createWorker(config: WorkerConfig = {}): Promise<Worker> {
  const { plugins, llm, workflowBundle, connection, maxConcurrentActivities, tools: toolsOption, dataConverter: converter, shutdownGraceMs, deployment, ...settingsOptions } = config;
  const settings = resolveSettings(settingsOptions);
  // settings that may be malformed are read before anything is opened
  const dataConverter = converter ?? troupeDataConverter();
  const graceMs = shutdownGraceMs ?? shutdownGraceFromEnv();
  if (plugins) require(path.resolve(plugins));
  const tools = typeof toolsOption === 'string' ? await openTools(toolsOption) : toolsOption;
  // the activities' redactor redacts the worker's spans too; no plugin at all when it does not trace
  const redactor = new Redactor();
  const tracing = workerTracingPlugins(redactor);
  if (tracing.length > 0 && workflowBundle && !tracesWorkflows(workflowBundle)) Runtime.instance().logger.warn(WORKER_TEXTS.untracedBundle);
  if (workflowBundle && !recordsProgress(workflowBundle)) Runtime.instance().logger.warn(WORKER_TEXTS.unrecordedBundle);
  const metered = runtimeExportsMetrics();
  if (metered && workflowBundle && !metersWorkflows(workflowBundle)) Runtime.instance().logger.warn(WORKER_TEXTS.unmeteredBundle);
  // a connection opened here is the worker's: it closes when the worker stops, so a script that
  // runs a worker exits once it is shut down (docs/library.md)
  const own = connection ? undefined : await withDiagnosis(settings, () => NativeConnection.connect(workerConnectionOptions(settings)));
  return Worker.create({
    connection: connection ?? (own as NativeConnection),
    namespace: settings.namespace,
    taskQueue: settings.taskQueue,
    dataConverter,
    workflowBundle: workflowBundle ?? (await bundleWorkflows(plugins, dataConverter, tracing.length > 0, metered)),
    shutdownGraceTime: graceMs,
    shutdownForceTime: graceMs + WORKER_SHUTDOWN.forceMarginMs,
    activities: createActivities({ ...llm, ...(tools ? { tools } : {}), redactor }),
    maxConcurrentActivityTaskExecutions: maxConcurrentActivities ?? 100,
    maxHeartbeatThrottleInterval: '500ms',
    defaultHeartbeatThrottleInterval: '500ms',
    // a run is pinned to the build it started on (docs/versioning.md)
    ...(deployment ? { workerDeploymentOptions: { useWorkerVersioning: true, version: deployment, defaultVersioningBehavior: 'PINNED' as const } } : {}),
    // the tool servers live as long as the worker runs
    plugins: [...(tools && typeof toolsOption === 'string' ? [closeWhenDone(tools)] : []), ...(own ? [closeWhenDone(own)] : []), ...tracing],
  });
}

/** A worker plugin that closes what the worker alone uses (its tool servers, its own connection) when it stops. */
function closeWhenDone(owned: ToolRegistry | NativeConnection): WorkerPlugin {
  return {
    name: owned instanceof NativeConnection ? 'troupe-connection' : 'troupe-tools',
    async runWorker(worker, next) {
      try {
        await next(worker);
      } finally {
        await owned.close();
      }
    },
  };
}
