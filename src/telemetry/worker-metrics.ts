/**
 * Prometheus metrics of a worker (docs/observability.md, "Metrics"): the address `--metrics` or
 * `TROUPE_METRICS_ADDRESS` names, the Temporal runtime's telemetry options that serve the SDK's
 * metrics and troupe's own on it, and what the activities record: each chat-completions request
 * (count and duration, by agent, model, kind and outcome) and each attempt of a tool call.
 *
 * The activities record through `Context.current().metricMeter`, the SDK's meter with the activity's
 * namespace, task queue and type as tags: a worker without `--metrics` has a no-op meter, so they
 * cost nothing there. Tokens, cost and handoffs are the run's, recorded by the workflow
 * (`workflows/run-metrics.ts`): they are what the run's ledger counts, priced by the role's pricing,
 * which only the workflow has.
 */
import { ApplicationFailure, CancelledFailure, Context } from '@temporalio/activity';
import type { MetricMeter } from '@temporalio/common';
import type { TelemetryOptions } from '@temporalio/worker';
import { isIP } from 'node:net';
import { FAILURE_TYPES } from '../core/llm/contract';
import { HISTOGRAM_BUCKETS, metricLabel, TROUPE_METRICS, type ModelCallOutcome, type ToolCallMetricOutcome } from '../core/observe/metric-catalogue';

/** The variable that turns metrics on, beside `--metrics`. */
export const METRICS_ADDRESS_ENV = 'TROUPE_METRICS_ADDRESS';

/** Texts of the metrics address, kept together so tests pin them. */
export const METRICS_TEXTS = {
  badAddress: (value: string, why: string) =>
    `--metrics/${METRICS_ADDRESS_ENV} "${value}" is not an address to serve metrics on: ${why}. Give an IP address and a port: 127.0.0.1:9464, 0.0.0.0:9464 or [::1]:9464`,
  noPort: 'it has no port',
  badPort: (port: string) => `port ${port} is not a number from 1 to 65535`,
  badHost: (host: string) => `"${host}" is not an IP address (localhost is taken as 127.0.0.1)`,
  cannotServe: (address: string, why: string) => `troupe: cannot serve metrics on ${address}: ${why}`,
  installedAlready: 'troupe: metrics need the Temporal runtime to be installed by troupe, and this process installed one already',
  serving: (address: string) => `troupe: Prometheus metrics on http://${address}/metrics`,
} as const;

/**
 * The address metrics are served on, from `--metrics` or else `TROUPE_METRICS_ADDRESS`; undefined
 * when neither is set (metrics off). `localhost` is 127.0.0.1. Throws a one-line error for anything
 * that is not `IP:PORT` (an IPv6 address in brackets).
 */
export function metricsAddress(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const raw = (flag ?? env[METRICS_ADDRESS_ENV] ?? '').trim();
  if (!raw) return undefined;
  const m = /^(?:\[([^\]]*)\]|(.*)):([^:]*)$/.exec(raw);
  if (!m) throw new Error(METRICS_TEXTS.badAddress(raw, METRICS_TEXTS.noPort));
  const [, v6, other, port] = m;
  if (!/^\d{1,5}$/.test(port) || Number(port) < 1 || Number(port) > 65535) throw new Error(METRICS_TEXTS.badAddress(raw, METRICS_TEXTS.badPort(port)));
  const host = v6 ?? (other === 'localhost' ? '127.0.0.1' : other);
  const family = isIP(host);
  if (family === 0 || (family === 6) !== (v6 !== undefined)) throw new Error(METRICS_TEXTS.badAddress(raw, METRICS_TEXTS.badHost(host)));
  return family === 6 ? `[${host}]:${port}` : `${host}:${port}`;
}

/**
 * The runtime's telemetry options that serve Prometheus text on `address` (`GET /metrics`): the SDK's
 * series prefixed `temporal_`, durations in milliseconds as the SDK exports them by default, and
 * troupe's histograms with their own buckets.
 */
export function prometheusTelemetry(address: string): TelemetryOptions {
  return { metrics: { prometheus: { bindAddress: address, histogramBucketOverrides: { ...HISTOGRAM_BUCKETS } } } };
}

/** Who makes a model request, as the request's scope says (`LlmCallScope` in activities/llm.ts). */
interface ModelCallScope {
  kind: string;
  agent: string;
}

/**
 * Send one chat-completions request through `send`, counting it and timing it by agent, model, kind
 * and outcome. The request's own result or error comes back unchanged.
 */
export async function observeModelCall<T>(scope: ModelCallScope, model: string, send: () => Promise<T>): Promise<T> {
  const started = performance.now();
  let outcome: ModelCallOutcome = 'ok';
  try {
    return await send();
  } catch (err) {
    outcome = failureOutcome(err);
    throw err;
  } finally {
    const meter = activityMeter();
    if (meter) {
      const tags = { agent: metricLabel(scope.agent), model: metricLabel(model), kind: scope.kind, outcome };
      const { modelCalls, modelCallDuration } = TROUPE_METRICS;
      meter.createCounter(modelCalls.name, modelCalls.unit, modelCalls.help).add(1, tags);
      meter.createHistogram(modelCallDuration.name, 'float', modelCallDuration.unit, modelCallDuration.help).record((performance.now() - started) / 1000, tags);
    }
  }
}

/**
 * Run one attempt of a tool call through `call`, counting it by tool and outcome: `ok`, `error` (the
 * tool's error, which goes back to the model), or how the attempt failed.
 */
export async function observeToolCall<T extends { kind: string }>(tool: string, call: () => Promise<T>): Promise<T> {
  let outcome: ToolCallMetricOutcome;
  try {
    const result = await call();
    outcome = result.kind === 'error' ? 'error' : 'ok';
    return result;
  } catch (err) {
    outcome = err instanceof ApplicationFailure && err.type === FAILURE_TYPES.toolFatal ? 'fatal' : failureOutcome(err);
    throw err;
  } finally {
    const { toolCalls } = TROUPE_METRICS;
    activityMeter()?.createCounter(toolCalls.name, toolCalls.unit, toolCalls.help).add(1, { tool: metricLabel(tool), outcome: outcome! });
  }
}

/** The activity's meter (tagged with its namespace, task queue and type), or none outside an activity. */
function activityMeter(): MetricMeter | undefined {
  try {
    return Context.current().metricMeter;
  } catch {
    return undefined;
  }
}

/** How an attempt failed: cancelled, retried by Temporal, or fatal (not retried). */
function failureOutcome(err: unknown): 'cancelled' | 'fatal' | 'retryable' {
  if (err instanceof CancelledFailure) return 'cancelled';
  if (err instanceof ApplicationFailure && (err.nonRetryable || err.type === FAILURE_TYPES.fatal)) return 'fatal';
  return 'retryable';
}
