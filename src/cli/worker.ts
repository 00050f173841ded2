/**
 * `troupe worker [--plugins file] [--metrics ADDR]`: run a worker until SIGINT/SIGTERM. With
 * `--metrics` (or `TROUPE_METRICS_ADDRESS`) it serves Prometheus metrics on that address
 * (docs/observability.md, "Metrics"); a bad address stops it before it connects. The first signal drains:
 * the worker stops polling and in-flight calls get `TROUPE_SHUTDOWN_GRACE_MS` (default 30 s) to
 * finish before they are cancelled (Temporal retries them on another worker), then it exits 0. A
 * second signal exits at once. A malformed endpoint allowlist, payload key, grace, log level or connection
 * settings (`TEMPORAL_*`, the profile file) stop it before it connects; an unreachable Temporal
 * stops it with the reason. The SDK's log is one line per entry (`worker-log.ts`; `TROUPE_LOG_LEVEL`,
 * default info).
 */
import { Runtime } from '@temporalio/worker';
import { endpointPolicy } from '../activities/endpoints';
import { troupeDataConverter } from '../codec/data-converter';
import { settingsFromEnv, type TroupeSettings } from '../settings';
import { metricsAddress, METRICS_TEXTS } from '../telemetry/worker-metrics';
import { waitingIntervalFromEnv, watchWaitingRuns } from '../telemetry/waiting';
import { createWorker, shutdownGraceFromEnv, workerBuild } from '../worker';
import { openToolsOrExplain } from './open-tools';
import { stringFlag, type ParsedArgs } from './args';
import { isConnectionError } from './connect';
import { err, out } from './io';
import { CLI_RUN_TEXTS } from './run-texts';
import { installWorkerLogger, logLevelFromEnv } from './worker-log';

/**
 * What `troupe worker` prints as it stops (stderr), kept together so tests pin them.
 * @internal exported for tests
 */
export const CLI_WORKER_STOP_TEXTS = {
  draining: (graceMs: number) =>
    `troupe worker: stopped polling; in-flight calls have ${graceMs / 1000} s to finish (TROUPE_SHUTDOWN_GRACE_MS), then they are cancelled and retried elsewhere. Send the signal again to exit at once.`,
  exitNow: (signal: string) => `troupe worker: second ${signal}: exiting now without waiting for in-flight calls`,
  stopped: 'troupe worker: drained, exiting',
} as const;

/**
 * Exit code of a second signal: 128 + the signal's number, as a shell reports a process it killed.
 * @internal exported for tests
 */
export const SIGNAL_EXIT_CODES: Readonly<Record<'SIGINT' | 'SIGTERM', number>> = { SIGINT: 130, SIGTERM: 143 };

/** Run the command. */
export async function run(args: ParsedArgs): Promise<number> {
  let settings: TroupeSettings;
  let graceMs: number;
  let dataConverter;
  let logLevel;
  let deployment;
  let metrics: string | undefined;
  let waitingIntervalMs = 0;
  try {
    endpointPolicy({ env: process.env });
    deployment = workerBuild({ deploymentName: stringFlag(args, 'deployment-name'), buildId: stringFlag(args, 'build-id') });
    settings = settingsFromEnv();
    graceMs = shutdownGraceFromEnv();
    dataConverter = troupeDataConverter();
    logLevel = logLevelFromEnv('INFO');
    metrics = metricsAddress(stringFlag(args, 'metrics'));
    if (metrics) waitingIntervalMs = waitingIntervalFromEnv();
    // the runtime, and its metrics exporter, before any connection (docs/observability.md, "Metrics")
    installWorkerLogger(logLevel, metrics);
  } catch (e) {
    err((e as Error).message);
    return 1;
  }
  if (metrics) err(METRICS_TEXTS.serving(metrics));
  const tools = await openToolsOrExplain(stringFlag(args, 'tools'));
  if (tools === false) return 1;
  let worker;
  try {
    // the settings read above, as they are: the worker reads the environment once
    worker = await createWorker({
      ...settings,
      env: false,
      plugins: stringFlag(args, 'plugins'),
      dataConverter,
      shutdownGraceMs: graceMs,
      ...(tools ? { tools } : {}),
      ...(deployment ? { deployment } : {}),
    });
  } catch (e) {
    await tools?.close();
    if (!isConnectionError(e)) throw e;
    err(e.message);
    return 1;
  }
  let signals = 0;
  const onSignal = (signal: 'SIGINT' | 'SIGTERM') => {
    if (++signals === 1) {
      err(CLI_WORKER_STOP_TEXTS.draining(graceMs));
      if (worker.getState() === 'RUNNING') worker.shutdown();
      return;
    }
    err(CLI_WORKER_STOP_TEXTS.exitNow(signal));
    process.exit(SIGNAL_EXIT_CODES[signal]);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  const connection = worker.connection;
  const stopWaiting =
    metrics && connection
      ? watchWaitingRuns({ connection, namespace: settings.namespace, taskQueue: settings.taskQueue, meter: Runtime.instance().metricMeter, intervalMs: waitingIntervalMs, warn: err })
      : undefined;
  out(CLI_RUN_TEXTS.workerStarted(settings.address, settings.namespace, settings.taskQueue, deployment));
  try {
    await worker.run();
  } finally {
    stopWaiting?.();
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await tools?.close();
  }
  if (signals > 0) err(CLI_WORKER_STOP_TEXTS.stopped);
  return 0;
}
