/**
 * troupe's own Prometheus metrics: one table of their names, types, units, labels and meanings
 * (docs/observability.md, "Metrics"), read by the code that records them, by the docs test and by
 * the dashboard test. Pure and in the core: the workflow records some of them (`workflows/run-metrics.ts`)
 * and the worker the others (`telemetry/worker-metrics.ts`), so this file imports nothing.
 *
 * Every series also carries the tags the Temporal SDK adds to custom metrics: `namespace` and
 * `taskQueue`, with `activityType` on those recorded in an activity and `workflowType` on those the
 * workflow records.
 */

/** How a metric is exported. */
export type MetricType = 'counter' | 'histogram' | 'gauge';

/** One of troupe's metrics. */
export interface TroupeMetric {
  /** The series name (histograms add `_bucket`, `_sum` and `_count`). */
  name: string;
  type: MetricType;
  unit: string;
  /** Labels troupe sets (beside the SDK's tags). */
  labels: readonly string[];
  /** Who records it: the workflow (replay-safe meter), an activity, or the worker process. */
  recordedBy: 'workflow' | 'activity' | 'worker';
  help: string;
}

/** The metrics, by key. */
export const TROUPE_METRICS = {
  tokens: {
    name: 'troupe_tokens_total',
    type: 'counter',
    unit: 'tokens',
    labels: ['agent', 'model', 'kind', 'type'],
    recordedBy: 'workflow',
    help: "Tokens a run's ledger counted, by agent, model, call kind and type (input or output)",
  },
  cost: {
    name: 'troupe_cost_usd',
    type: 'histogram',
    unit: 'USD',
    labels: ['agent', 'model', 'kind'],
    recordedBy: 'workflow',
    help: "Cost of each model call a run's ledger counted, in USD from the role's pricing (the _sum is the cost)",
  },
  modelCalls: {
    name: 'troupe_model_calls_total',
    type: 'counter',
    unit: 'requests',
    labels: ['agent', 'model', 'kind', 'outcome'],
    recordedBy: 'activity',
    help: 'Model requests (a streamed request the endpoint refused and its plain retry count once), by agent, model, call kind and outcome',
  },
  modelCallDuration: {
    name: 'troupe_model_call_duration_seconds',
    type: 'histogram',
    unit: 's',
    labels: ['agent', 'model', 'kind', 'outcome'],
    recordedBy: 'activity',
    help: 'How long each model request took, by agent, model, call kind and outcome',
  },
  toolCalls: {
    name: 'troupe_tool_calls_total',
    type: 'counter',
    unit: 'calls',
    labels: ['tool', 'outcome'],
    recordedBy: 'activity',
    help: 'Attempts of worker tool calls (the callTool activity), by tool and outcome',
  },
  handoffs: {
    name: 'troupe_handoffs_total',
    type: 'counter',
    unit: 'transfers',
    labels: ['from', 'to'],
    recordedBy: 'workflow',
    help: 'Transfers agents made (handoffs), by the agent that transferred and its target',
  },
  runsWaiting: {
    name: 'troupe_runs_waiting',
    type: 'gauge',
    unit: 'runs',
    labels: [],
    recordedBy: 'worker',
    help: "Running troupe runs of the worker's task queue that wait for a human (TroupeWaiting), as visibility counts them",
  },
} as const satisfies Record<string, TroupeMetric>;

/** The outcome of a chat-completions request. */
export type ModelCallOutcome = 'ok' | 'retryable' | 'fatal' | 'cancelled';

/** The outcome of an attempt of a tool call: `error` is the tool's error, which goes back to the model. */
export type ToolCallMetricOutcome = 'ok' | 'error' | 'fatal' | 'retryable' | 'cancelled';

/** Characters of a label value kept: names come from role and tools files, and a label is no place for prose. */
export const MAX_LABEL_CHARS = 64;

/**
 * A label value within its bound: at most {@link MAX_LABEL_CHARS} characters (cut with `…`), never
 * empty (`-`).
 */
export function metricLabel(value: string | undefined): string {
  if (!value) return '-';
  const chars = Array.from(value);
  return chars.length > MAX_LABEL_CHARS ? `${chars.slice(0, MAX_LABEL_CHARS - 1).join('')}…` : value;
}

/**
 * Bucket bounds of troupe's histograms, for the runtime's Prometheus exporter (without them a custom
 * histogram gets the SDK's millisecond buckets, 50 to 10,000).
 */
export const HISTOGRAM_BUCKETS: Readonly<Record<string, number[]>> = {
  [TROUPE_METRICS.modelCallDuration.name]: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 30, 60, 120, 300],
  [TROUPE_METRICS.cost.name]: [0.00001, 0.0001, 0.001, 0.01, 0.1, 1, 10],
};

/**
 * The Temporal SDK's series troupe's dashboard reads (deploy/grafana/dashboards/troupe.json), as a
 * worker's scrape names them (counters without `_total`, durations in milliseconds); the metrics
 * server test sees every one of them in a real worker's scrape.
 */
export const SDK_SERIES = [
  'temporal_workflow_completed',
  'temporal_workflow_task_execution_failed',
  'temporal_workflow_endtoend_latency_bucket',
  'temporal_workflow_task_execution_latency_bucket',
  'temporal_activity_execution_latency_bucket',
  'temporal_activity_schedule_to_start_latency_bucket',
  'temporal_worker_task_slots_available',
  'temporal_worker_task_slots_used',
  'temporal_num_pollers',
  'temporal_request',
] as const;

/** Every series of troupe's own metrics as a scrape names them (a histogram's `_bucket`, `_sum` and `_count`). */
export function troupeSeries(): string[] {
  return Object.values(TROUPE_METRICS).flatMap((m: TroupeMetric) => (m.type === 'histogram' ? ['_bucket', '_sum', '_count'].map((s) => `${m.name}${s}`) : [m.name]));
}
