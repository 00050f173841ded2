/**
 * Whether this process traces, read from the standard OpenTelemetry variables (docs/observability.md,
 * "Traces"). Nothing here loads OpenTelemetry: a process that does not trace never does.
 */

/** Which side of troupe a process traces as: it names the service when `OTEL_SERVICE_NAME` does not. */
export type TracingRole = 'worker' | 'client';

/** The variables troupe reads to decide, and their values that matter. */
export const TRACING_ENV = {
  endpoint: 'OTEL_EXPORTER_OTLP_ENDPOINT',
  tracesEndpoint: 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT',
  exporter: 'OTEL_TRACES_EXPORTER',
  disabled: 'OTEL_SDK_DISABLED',
  serviceName: 'OTEL_SERVICE_NAME',
  captureContent: 'OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT',
} as const;

/** The service names of troupe's two sides when `OTEL_SERVICE_NAME` is not set. */
export const DEFAULT_SERVICE_NAMES: Readonly<Record<TracingRole, string>> = { worker: 'troupe-worker', client: 'troupe-client' };

/** How a process traces, when it does. */
export interface TracingSettings {
  serviceName: string;
  /** Prompts, completions and tool arguments and results go on the spans (redacted first). */
  captureContent: boolean;
}

const TRUE = /^\s*true\s*$/i;

/**
 * The exporters `OTEL_TRACES_EXPORTER` names (a comma-separated list); troupe exports over OTLP only,
 * so `otlp` turns tracing on and anything else (`none`, `console`, ...) leaves it off.
 */
function exporters(env: NodeJS.ProcessEnv): string[] | undefined {
  const raw = env[TRACING_ENV.exporter]?.trim();
  if (!raw) return undefined;
  return raw.split(',').map((e) => e.trim().toLowerCase()).filter(Boolean);
}

/**
 * How this process traces as `role`, or undefined when it does not: tracing is on when an OTLP
 * endpoint is set (`OTEL_EXPORTER_OTLP_ENDPOINT` or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) or
 * `OTEL_TRACES_EXPORTER` names `otlp`; `OTEL_TRACES_EXPORTER` without `otlp` (`none`) or
 * `OTEL_SDK_DISABLED=true` turns it off whatever else is set.
 */
export function tracingSettings(role: TracingRole, env: NodeJS.ProcessEnv = process.env): TracingSettings | undefined {
  if (TRUE.test(env[TRACING_ENV.disabled] ?? '')) return undefined;
  const named = exporters(env);
  const on = named ? named.includes('otlp') : Boolean(env[TRACING_ENV.endpoint]?.trim() || env[TRACING_ENV.tracesEndpoint]?.trim());
  if (!on) return undefined;
  return {
    serviceName: env[TRACING_ENV.serviceName]?.trim() || DEFAULT_SERVICE_NAMES[role],
    captureContent: TRUE.test(env[TRACING_ENV.captureContent] ?? ''),
  };
}
