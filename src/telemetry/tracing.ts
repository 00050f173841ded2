/**
 * troupe's traces (docs/observability.md, "Traces"): what the worker, the client and the CLI call.
 * Off unless the OpenTelemetry variables ask for it (`tracing-env.ts`); a process that does not trace
 * never loads OpenTelemetry (`tracing-sdk.ts` is required on first use), adds no plugin or
 * interceptor, bundles no tracing module into the workflow, and every function here calls straight
 * through.
 */
import type { Redactor } from '../secrets/redactor';
import type { ToolCallInput, ToolCallOutcome } from '../core/llm/tool-contract';
import type { SideTracing } from './tracing-sdk';
import { PRICE_HEADER } from './genai';
import { tracingSettings, type TracingRole } from './tracing-env';
import type { ModelBody, ModelResponse, RunSpan } from './span-types';

export type { RunSpan, RunSpanResult } from './span-types';

const NO_RUN_SPAN: RunSpan = { within: (fn) => fn(), untraced: (fn) => fn(), end: () => undefined };

/** Each side's tracing once decided: null when it does not trace. */
const sides = new Map<TracingRole, SideTracing | null>();

/**
 * The tracing of this process's `role` side, started on first call when the environment asks for
 * it; undefined when it does not.
 */
export function tracingOf(role: TracingRole, env: NodeJS.ProcessEnv = process.env): SideTracing | undefined {
  let side = sides.get(role);
  if (side === undefined) {
    const settings = tracingSettings(role, env);
    // the SDK is loaded here, by a process that traces, and never by one that does not
    side = settings ? new (require('./tracing-sdk') as typeof import('./tracing-sdk')).SideTracing(role, settings) : null;
    sides.set(role, side);
  }
  return side ?? undefined;
}

/**
 * The workflow interceptor module a tracing worker bundles (`workflow-interceptors.ts`: Temporal's
 * spans in the sandbox, without the promises of that package's own module, and troupe's).
 */
export function tracingWorkflowModules(): string[] {
  return [require.resolve('./workflow-interceptors')];
}

/** Whether a workflow bundle has the tracing workflow interceptors in (the price header's name is only in theirs). */
export function tracesWorkflows(bundle: { code: string }): boolean {
  return bundle.code.includes(PRICE_HEADER);
}

/** The worker's plugins for tracing (none when it does not trace); spans are redacted with `redactor` too. */
export function workerTracingPlugins(redactor: Redactor, env: NodeJS.ProcessEnv = process.env) {
  const side = tracingOf('worker', env);
  if (!side) return [];
  side.addRedactor(redactor);
  return side.workerPlugins();
}

/** The client's plugins for tracing (none when it does not trace). */
export function clientTracingPlugins(env: NodeJS.ProcessEnv = process.env) {
  const side = tracingOf('client', env);
  return side ? [side.plugin] : [];
}

/** A run's root span on the client when it traces (a no-op otherwise). */
export function openRunSpan(graph: string): RunSpan {
  return sides.get('client')?.runSpan(graph) ?? NO_RUN_SPAN;
}

/**
 * A model request (`send`, of `body` to the endpoint at `baseUrl` for the call `scope`, `streamed`
 * or not) in its `chat` span when the worker traces.
 */
export function tracedModelCall<R extends ModelResponse>(
  scope: { kind: string; agent: string },
  baseUrl: string,
  body: ModelBody,
  streamed: boolean,
  send: () => Promise<R>,
): Promise<R> {
  const side = sides.get('worker');
  return side ? side.modelCall(scope, baseUrl, body, streamed, send) : send();
}

/** A tool call (`call`) in its `execute_tool` span when the worker traces. */
export function tracedToolCall<R extends Exclude<ToolCallOutcome, { kind: 'fatal' }>>(input: ToolCallInput, call: () => Promise<R>): Promise<R> {
  const side = sides.get('worker');
  return side ? side.toolCall(input, call) : call();
}

/** Sends every ended span now, and goes on tracing. */
export async function flushTracing(): Promise<void> {
  await Promise.all([...sides.values()].map((s) => s?.flush()));
}

/** Sends what is left and stops every side's provider (before the process exits). */
export async function shutdownTracing(): Promise<void> {
  const started = [...sides.values()].filter((s): s is SideTracing => s !== null);
  sides.clear();
  await Promise.all(started.map((s) => s.shutdown()));
}
