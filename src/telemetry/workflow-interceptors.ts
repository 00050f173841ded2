/**
 * troupe's tracing interceptors of the run workflow. **Runs in the workflow sandbox**: deterministic
 * code only (no I/O, no wall clock, no Node built-ins). Bundled, after
 * `@temporalio/interceptors-opentelemetry`'s own workflow module, only when the worker traces
 * (`bundleWorkflows` in src/worker.ts); a worker that does not trace has neither in its bundle.
 *
 * - It installs the hooks of `src/workflows/spans.ts`: each dispatch is an `invoke_agent` span, made
 *   with the sandbox's tracer that Temporal's module registers, so that the activities the dispatch
 *   schedules (their `StartActivity` spans, and the `RunActivity`, `chat` and `execute_tool` spans on
 *   the worker under them) nest beneath it; and the run's span gets its graph, status and reason.
 * - It sends each model activity the price of its model (the run's `pricing`) in a header, so the
 *   worker's `chat` span can say what the request cost (`troupe.cost_usd`), as the ledger counts it.
 *
 * Neither adds a command: the spans end on the dispatch's own promise, never awaited, and a header
 * changes no command's identity.
 */
import { context, SpanStatusCode, trace, type Span } from '@opentelemetry/api';
import { defaultPayloadConverter } from '@temporalio/common';
import type { WorkflowInterceptorsFactory } from '@temporalio/workflow';
import { installWorkflowSpanHooks, type DispatchSpanEnd, type DispatchSpanStart, type RunSpanEnd } from '../workflows/spans';
import { ATTR, defined, OPERATION, PRICE_HEADER, PROVIDER, spanName } from './genai';

/** The name of troupe's tracer (its spans' instrumentation scope). */
const TRACER_NAME = 'troupe';

type Pricing = Record<string, { input: number; output: number }>;

/** The run's pricing table from the workflow's argument (a `RunInput`), read by shape. */
function pricingOf(arg: unknown): Pricing {
  const pricing = (arg as { graph?: { pricing?: unknown } } | undefined)?.graph?.pricing;
  return pricing && typeof pricing === 'object' ? (pricing as Pricing) : {};
}

/** The graph's name from the workflow's argument. */
function graphOf(arg: unknown): string | undefined {
  const name = (arg as { graph?: { name?: unknown } } | undefined)?.graph?.name;
  return typeof name === 'string' ? name : undefined;
}

/** The model a model activity's input names (`callAgent`, `callModel`, the judge, compaction, the selector). */
function modelOf(arg: unknown): string | undefined {
  const name = (arg as { model?: { name?: unknown } } | undefined)?.model?.name;
  return typeof name === 'string' ? name : undefined;
}

/** Ends a dispatch's span with how it ended; a span must never fail the workflow task. */
function endDispatch(span: Span, how: DispatchSpanEnd | undefined): void {
  try {
    if (how?.ok === false) {
      span.setAttribute(ATTR.errorType, how.error);
      span.setStatus({ code: SpanStatusCode.ERROR });
    } else if (how) {
      span.setAttributes({
        [ATTR.inputTokens]: how.usage.promptTokens,
        [ATTR.outputTokens]: how.usage.completionTokens,
        [ATTR.responseModel]: how.model,
        [ATTR.llmCalls]: how.llmCalls,
        ...(how.finishReason ? { [ATTR.finishReasons]: [how.finishReason] } : {}),
      });
    }
    span.end();
  } catch {
    // nothing a span does may fail the run
  }
}

/** Runs a dispatch in its `invoke_agent` span; returns the dispatch's own promise. */
function dispatch<T>(start: DispatchSpanStart, body: (end: (how: DispatchSpanEnd) => void) => Promise<T>): Promise<T> {
  const span = trace.getTracer(TRACER_NAME).startSpan(spanName(OPERATION.invokeAgent, start.agent), {
    attributes: defined({
      [ATTR.operation]: OPERATION.invokeAgent,
      [ATTR.provider]: PROVIDER,
      [ATTR.agentName]: start.agent,
      [ATTR.requestModel]: start.team ? undefined : start.model,
      [ATTR.round]: start.round,
      [ATTR.via]: start.via,
      [ATTR.team]: start.team,
    }),
  });
  let how: DispatchSpanEnd | undefined;
  const done = context.with(trace.setSpan(context.active(), span), () => body((h) => (how = h)));
  done.then(
    () => endDispatch(span, how),
    (err: unknown) => endDispatch(span, how ?? { ok: false, error: err instanceof Error ? err.name : 'error' }),
  );
  return done;
}

/** Sets the run's graph, status and reason on the run's span (the active one at the end of `troupeRun`). */
function runEnded(end: RunSpanEnd): void {
  try {
    trace.getActiveSpan()?.setAttributes({ [ATTR.runGraph]: end.graph, [ATTR.runStatus]: end.status, [ATTR.runReason]: end.reason });
  } catch {
    // nothing a span does may fail the run
  }
}

/** The workflow interceptors of a tracing worker (a `workflowModules` entry). */
export const interceptors: WorkflowInterceptorsFactory = () => {
  let pricing: Pricing = {};
  installWorkflowSpanHooks({ dispatch, runEnded });
  return {
    inbound: [
      {
        execute(input, next) {
          pricing = pricingOf(input.args[0]);
          const graph = graphOf(input.args[0]);
          if (graph !== undefined) trace.getActiveSpan()?.setAttribute(ATTR.runGraph, graph);
          return next(input);
        },
      },
    ],
    outbound: [
      {
        scheduleActivity(input, next) {
          const model = modelOf(input.args[0]);
          const price = model !== undefined && Object.prototype.hasOwnProperty.call(pricing, model) ? pricing[model] : undefined;
          if (!price) return next(input);
          return next({ ...input, headers: { ...input.headers, [PRICE_HEADER]: defaultPayloadConverter.toPayload({ model, ...price }) } });
        },
      },
    ],
  };
};
