/**
 * `troupe_runs_waiting`: how many runs of the worker's task queue wait for a human now, counted by
 * Temporal's visibility (`TroupeWaiting = true` on a running execution, docs/operating.md "Finding
 * runs"), not by the worker. A wait outlives workers: it starts on one, the worker restarts or
 * another one replays the run, the run continues as new; only the run's own search attribute is
 * right through all of that, and it is what `troupe list --waiting` reads too. Every worker of a
 * queue reports the same number, so a dashboard takes their `max`, not their sum.
 *
 * Without troupe's search attributes in the namespace the count fails; the worker says so once on
 * stderr and tries again each interval (they may be registered later).
 */
import type { MetricMeter } from '@temporalio/common';
import type { NativeConnection } from '@temporalio/worker';
import { listQuery } from '../core/observe/search';
import { WORKFLOW_TYPE } from '../contract';
import { TROUPE_METRICS } from '../core/observe/metric-catalogue';

/** How often the count is asked for, beside its variable. */
export const WAITING_POLL = {
  env: 'TROUPE_METRICS_WAITING_INTERVAL_MS',
  defaultMs: 10_000,
  minMs: 100,
} as const;

/** Texts of the waiting gauge, so tests pin them. */
export const WAITING_TEXTS = {
  countFailed: (why: string) =>
    `troupe worker: cannot count the runs waiting for a human (${TROUPE_METRICS.runsWaiting.name} is not updated until it can): ${why}`,
  badInterval: (value: string) => `${WAITING_POLL.env} must be a whole number of milliseconds (${WAITING_POLL.minMs} or more), not "${value}"`,
} as const;

/** The poll interval of `TROUPE_METRICS_WAITING_INTERVAL_MS` (default 10 s); throws when it is not a number of ms. */
export function waitingIntervalFromEnv(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env[WAITING_POLL.env]?.trim();
  if (!raw) return WAITING_POLL.defaultMs;
  if (!/^\d+$/.test(raw) || Number(raw) < WAITING_POLL.minMs) throw new Error(WAITING_TEXTS.badInterval(raw));
  return Number(raw);
}

/**
 * The visibility query of the runs of `taskQueue` that wait for a human now.
 * @internal exported for tests
 */
export function waitingQuery(taskQueue: string): string {
  const queue = `'${taskQueue.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
  return `${listQuery(WORKFLOW_TYPE, { waiting: true })} AND ExecutionStatus = 'Running' AND TaskQueue = ${queue}`;
}

/** Where the gauge is counted and recorded. */
export interface WaitingGaugeOptions {
  connection: Pick<NativeConnection, 'workflowService'>;
  namespace: string;
  taskQueue: string;
  meter: MetricMeter;
  intervalMs: number;
  /** Where the one-line warning of a failing count goes; default stderr. */
  warn?: (line: string) => void;
}

/**
 * Count the waiting runs every `intervalMs` and set `troupe_runs_waiting` (tagged with the namespace
 * and task queue, as the SDK tags custom metrics) to the count. Returns the function that stops it.
 */
export function watchWaitingRuns(o: WaitingGaugeOptions): () => void {
  const { runsWaiting } = TROUPE_METRICS;
  const gauge = o.meter.createGauge(runsWaiting.name, 'int', runsWaiting.unit, runsWaiting.help);
  const tags = { namespace: o.namespace, taskQueue: o.taskQueue };
  const query = waitingQuery(o.taskQueue);
  const warn = o.warn ?? ((line: string) => process.stderr.write(`${line}\n`));
  let failing = false;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const tick = async () => {
    try {
      const { count } = await o.connection.workflowService.countWorkflowExecutions({ namespace: o.namespace, query });
      if (stopped) return;
      gauge.set(Number(count ?? 0), tags);
      failing = false;
    } catch (err) {
      if (!failing && !stopped) warn(WAITING_TEXTS.countFailed(err instanceof Error ? err.message.split('\n')[0] : String(err)));
      failing = true;
    }
    if (!stopped) timer = setTimeout(() => void tick(), o.intervalMs).unref();
  };
  void tick();
  return () => {
    stopped = true;
    if (timer) clearTimeout(timer);
  };
}
