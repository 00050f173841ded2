/**
 * The log of `troupe worker` and `troupe dev`: what the Temporal SDK logs through its runtime (the
 * worker's state, each failed activity attempt, …), one line per entry on stderr: time, level,
 * message and, for an activity, its type, attempt, workflow and the error's message. Never a stack
 * or a task token: the SDK's own format prints ~35 lines with both for every failed attempt.
 * `TROUPE_LOG_LEVEL` sets the level (trace, debug, info, warn, error; any case); at debug and trace
 * the SDK's own format, stacks included, is kept for whoever needs them. Every line is printable
 * (`io.ts`): an endpoint's error body or a tool server's stderr can carry escape sequences.
 */
import { DefaultLogger, IllegalStateError, Runtime, type LogEntry, type LogLevel, type LogMetadata, type Logger } from '@temporalio/worker';
import { format } from 'node:util';
import { METRICS_TEXTS, prometheusTelemetry } from '../telemetry/worker-metrics';
import { err } from './io';
import { CLI_RUN_TEXTS } from './run-texts';

/**
 * The variable that sets the worker's log level.
 * @internal exported for tests
 */
export const LOG_LEVEL_ENV = 'TROUPE_LOG_LEVEL';

/** The SDK's levels, lowest first. */
const LEVELS: readonly LogLevel[] = ['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR'];

/** Levels at which the SDK's own format, stacks and all, is kept. */
const FULL_FORMAT: ReadonlySet<LogLevel> = new Set<LogLevel>(['TRACE', 'DEBUG']);

/** Metadata said otherwise (activity and workflow), or noise for a reader of one line. */
const SAID_OR_NOISE = new Set([
  'activityType',
  'isLocal',
  'attempt',
  'workflowId',
  'error',
  'sdkComponent',
  'namespace',
  'taskQueue',
  'activityId',
  'activityRunId',
  'workflowRunId',
  'runId',
  'workflowType',
  'durationMs',
]);

/** Keys that hold a task token or a whole encoded task: never printed. */
const SECRET_KEY = /token|encoded|^task$/i;

/** Characters of one metadata value shown at most. */
const MAX_VALUE_CHARS = 200;

/** The level of `TROUPE_LOG_LEVEL` (any case), `fallback` when unset; throws a one-line error when it names no level. */
export function logLevelFromEnv(fallback: LogLevel, env: NodeJS.ProcessEnv = process.env): LogLevel {
  const raw = env[LOG_LEVEL_ENV]?.trim();
  if (!raw) return fallback;
  const level = LEVELS.find((l) => l === raw.toUpperCase());
  if (!level) throw new Error(CLI_RUN_TEXTS.badLogLevel(LOG_LEVEL_ENV, raw, LEVELS.map((l) => l.toLowerCase())));
  return level;
}

function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ').trim();
}

function clockTime(timestampNanos: bigint): string {
  const d = new Date(Number(timestampNanos / 1_000_000n));
  return [d.getHours(), d.getMinutes(), d.getSeconds()].map((n) => String(n).padStart(2, '0')).join(':');
}

/** An error's message, and its cause's when it has one; never its stack. */
function errorText(error: unknown): string {
  if (typeof error !== 'object' || error === null || typeof (error as Error).message !== 'string') return String(error);
  const { message, cause } = error as Error;
  const causeText = typeof cause === 'object' && cause !== null && typeof (cause as Error).message === 'string' ? (cause as Error).message : '';
  return causeText && !message.includes(causeText) ? `${message} (${causeText})` : message;
}

/** The other scalar metadata as `key=value`, without task tokens. */
function otherFields(meta: LogMetadata): string[] {
  const fields: string[] = [];
  for (const [key, value] of Object.entries(meta)) {
    if (SAID_OR_NOISE.has(key) || SECRET_KEY.test(key)) continue;
    if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') continue;
    const text = oneLine(String(value));
    fields.push(`${key}=${text.length > MAX_VALUE_CHARS ? `${text.slice(0, MAX_VALUE_CHARS)}…` : text}`);
  }
  return fields;
}

/**
 * One log entry as one line: `12:04:31 WARN activity callAgent failed (attempt 1, workflow essay-…):
 * agent writer: request timed out after 29000 ms`. The time is local.
 * @internal exported for tests
 */
export function formatLogEntry(entry: LogEntry): string {
  const meta = entry.meta ?? {};
  let message = oneLine(entry.message);
  const context: string[] = [];
  if (typeof meta.activityType === 'string') {
    const activity = CLI_RUN_TEXTS.log.activity(meta.activityType, meta.isLocal === true);
    // the SDK's "Activity failed" becomes "activity callAgent failed"
    if (message.startsWith('Activity ')) message = `${activity} ${message.slice('Activity '.length)}`;
    else context.push(activity);
    if (typeof meta.attempt === 'number') context.push(CLI_RUN_TEXTS.log.attempt(meta.attempt));
  }
  if (typeof meta.workflowId === 'string') context.push(CLI_RUN_TEXTS.log.workflow(meta.workflowId));
  context.push(...otherFields(meta));
  const error = meta.error === undefined ? undefined : oneLine(errorText(meta.error));
  return CLI_RUN_TEXTS.log.line(clockTime(entry.timestampNanos), entry.level, message, context, error && !message.includes(error) ? error : undefined);
}

/**
 * An entry in the SDK's own format (its default log function's: the time, the level, the message and
 * the metadata as `util.format` shows them), kept for debug and trace.
 */
function fullFormat(entry: LogEntry): string {
  const date = new Date(Number(entry.timestampNanos / 1_000_000n));
  return entry.meta === undefined ? `${format(date)} [${entry.level}] ${entry.message}` : `${format(date)} [${entry.level}] ${entry.message} ${format(entry.meta)}`;
}

/**
 * The worker's logger at `level`: {@link formatLogEntry} lines, or the SDK's own format at debug and
 * trace, through `write` (default: stderr, printable, since entries quote what endpoints and tool
 * servers said; `io.ts`).
 * @internal exported for tests
 */
export function workerLogger(level: LogLevel, write: (line: string) => void = err): Logger {
  return new DefaultLogger(level, (entry) => write(FULL_FORMAT.has(level) ? fullFormat(entry) : formatLogEntry(entry)));
}

/**
 * Install {@link workerLogger} as the Temporal runtime's logger, before any worker or connection
 * creates the runtime, with a Prometheus exporter on `metricsAddress` when one is given
 * (docs/observability.md, "Metrics"). A runtime installed already (a program that embeds the CLI, a
 * test) is kept, unless metrics were asked for. Throws a one-line error when the exporter cannot
 * listen on the address (in use, not an address of this host).
 */
export function installWorkerLogger(level: LogLevel, metricsAddress?: string): void {
  try {
    Runtime.install({ logger: workerLogger(level), ...(metricsAddress ? { telemetryOptions: prometheusTelemetry(metricsAddress) } : {}) });
  } catch (e) {
    if (e instanceof IllegalStateError) {
      if (metricsAddress) throw new Error(METRICS_TEXTS.installedAlready);
      return;
    }
    if (metricsAddress) throw new Error(METRICS_TEXTS.cannotServe(metricsAddress, e instanceof Error ? e.message : String(e)));
    throw e;
  }
}
