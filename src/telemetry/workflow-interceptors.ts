/**
 * The workflow interceptors of a tracing worker. **Runs in the workflow sandbox**: deterministic
 * code only (no I/O, no wall clock, no Node built-ins). Bundled only when the worker traces
 * (`bundleWorkflows` in src/worker.ts); a worker that does not trace has no tracing code in its
 * bundle.
 *
 * - **Temporal's spans**, under Temporal's names: `RunWorkflow:<type>` (its parent from the
 *   `_tracer-data` header of the start, a continue-as-new or a parent), `StartActivity:<type>`,
 *   `StartChildWorkflow:<type>`, `ContinueAsNew:<type>`, `SignalWorkflow:<name>`,
 *   `HandleSignal:<name>`, each passing its context on in the header, made with the sandbox tracer,
 *   span exporter and context manager of `@temporalio/interceptors-opentelemetry` (the plugin's
 *   `exporter` sink takes them to the worker's processor). That package's own workflow module makes
 *   the same spans through four to six async functions per call, and its `SimpleSpanProcessor` three
 *   promises per span; the SDK records a stack trace for every promise a workflow creates, which made
 *   a traced step cost a third more worker CPU (BENCHMARKS.md, B13). Here a span is started and
 *   ended synchronously, with one reaction on the call's own promise to end it.
 * - **troupe's**: the hooks of `src/workflows/spans.ts` (an `invoke_agent` span per dispatch, the
 *   run's graph, status and reason on its `RunWorkflow` span), and the price of each model
 *   activity's model in a header, for its `chat` span's `troupe.cost_usd`.
 *
 * Nothing here adds a command or an await: span ids and times come from the workflow's own
 * deterministic random and clock, and a header changes no command's identity. Queries are not traced.
 */
import '@temporalio/interceptors-opentelemetry/lib/workflow/runtime';
import { context, defaultTextMapSetter, propagation, SpanStatusCode, trace, type Context, type Span, type Tracer } from '@opentelemetry/api';
import { BasicTracerProvider, type ReadableSpan, type SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { defaultPayloadConverter } from '@temporalio/common';
import { extractContextFromHeaders, TRACE_HEADER } from '@temporalio/interceptors-opentelemetry/lib/instrumentation';
import { ContextManager } from '@temporalio/interceptors-opentelemetry/lib/workflow/context-manager';
import { SpanExporter } from '@temporalio/interceptors-opentelemetry/lib/workflow/span-exporter';
import { ContinueAsNew, workflowInfo, type WorkflowInterceptorsFactory } from '@temporalio/workflow';
import { installWorkflowSpanHooks, type DispatchSpan, type DispatchSpanEnd, type DispatchSpanStart, type RunSpanEnd } from '../workflows/spans';
import { ATTR, defined, OPERATION, PRICE_HEADER, PROVIDER, spanName } from './genai';

/** troupe's own spans' instrumentation scope; Temporal's keep theirs. */
const TROUPE_SCOPE = 'troupe';
const TEMPORAL_SCOPE = '@temporalio/interceptor-workflow';

type Pricing = Record<string, { input: number; output: number }>;

/**
 * Hands each ended span to Temporal's sandbox exporter (the `exporter` sink) at once, as
 * `SimpleSpanProcessor` does, but without the three promises it makes per span.
 */
class SinkSpanProcessor implements SpanProcessor {
  private readonly exporter = new SpanExporter();
  onStart(): void {}
  onEnd(span: ReadableSpan): void {
    safely(() => this.exporter.export([span], () => undefined));
  }
  forceFlush(): Promise<void> {
    return Promise.resolve();
  }
  shutdown(): Promise<void> {
    return Promise.resolve();
  }
}

/** The sandbox's tracers, made once per run (this module is loaded per run), registered as Temporal's module registers its own. */
function tracers(): { temporal: Tracer; troupe: Tracer; contextManager: ContextManager } {
  const contextManager = new ContextManager();
  const provider = new BasicTracerProvider({ spanProcessors: [new SinkSpanProcessor()] });
  provider.register({ contextManager });
  return { temporal: provider.getTracer(TEMPORAL_SCOPE), troupe: provider.getTracer(TROUPE_SCOPE), contextManager };
}

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

/** Nothing a span does may fail the run. */
function safely(fn: () => void): void {
  try {
    fn();
  } catch {
    // a span is never worth a failed workflow task
  }
}

/** Ends `span` when `call` settles (one reaction, never awaited); returns `call` itself. */
function endedWith<T>(span: Span, call: Promise<T>): Promise<T> {
  call.then(
    () =>
      safely(() => {
        span.setStatus({ code: SpanStatusCode.OK });
        span.end();
      }),
    (err: unknown) =>
      safely(() => {
        // continuing as new is how a long run goes on, not a failure
        if (!(err instanceof ContinueAsNew)) {
          span.setStatus({ code: SpanStatusCode.ERROR, message: err instanceof Error ? err.message : String(err) });
        }
        span.end();
      }),
  );
  return call;
}

/** Ends a dispatch's span with how it ended. */
function endDispatch(span: Span, how: DispatchSpanEnd): void {
  safely(() => {
    if (!how.ok) {
      span.setAttribute(ATTR.errorType, how.error);
      span.setStatus({ code: SpanStatusCode.ERROR });
    } else {
      span.setAttributes({
        [ATTR.inputTokens]: how.usage.promptTokens,
        [ATTR.outputTokens]: how.usage.completionTokens,
        [ATTR.responseModel]: how.model,
        [ATTR.llmCalls]: how.llmCalls,
        ...(how.finishReason ? { [ATTR.finishReasons]: [how.finishReason] } : {}),
      });
    }
    span.end();
  });
}

/** The workflow interceptors of a tracing worker (a `workflowModules` entry). */
export const interceptors: WorkflowInterceptorsFactory = () => {
  const { temporal, troupe, contextManager } = tracers();
  let pricing: Pricing = {};
  /** Each priced model's header payload, made once per run (the pricing does not change within one). */
  const priceHeaders = new Map<string, ReturnType<typeof defaultPayloadConverter.toPayload>>();
  const priceHeader = (model: string, price: { input: number; output: number }) => {
    let payload = priceHeaders.get(model);
    if (payload === undefined) {
      payload = defaultPayloadConverter.toPayload({ model, ...price });
      priceHeaders.set(model, payload);
    }
    return payload;
  };
  let runSpan: Span | undefined;

  /** A span of Temporal's named `name`, child of the active context, whose context `headers` then carry. */
  const outbound = <I extends { headers: Record<string, unknown> }>(name: string, input: I): { span: Span; input: I } => {
    const span = temporal.startSpan(name);
    // what `headersWithContext` writes under the span's context, injected with that context directly (no `context.with`)
    const carrier: Record<string, string> = {};
    propagation.inject(trace.setSpan(context.active(), span), carrier, defaultTextMapSetter);
    const headers = { ...input.headers, [TRACE_HEADER]: defaultPayloadConverter.toPayload(carrier) };
    return { span, input: { ...input, headers } };
  };
  /** A span of Temporal's named `name`, child of the context the call's headers carry (else the active one). */
  const inbound = (name: string, headers: Record<string, unknown>): { span: Span; active: Context } => {
    const parent = extractContextFromHeaders(headers as never) ?? context.active();
    const span = temporal.startSpan(name, {}, parent);
    return { span, active: trace.setSpan(parent, span) };
  };

  installWorkflowSpanHooks({
    dispatch(start: DispatchSpanStart): DispatchSpan {
      const span = troupe.startSpan(spanName(OPERATION.invokeAgent, start.agent), {
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
      const active = trace.setSpan(context.active(), span);
      let ended = false;
      return {
        within: (fn) => context.with(active, fn),
        end: (how) => {
          if (ended) return;
          ended = true;
          endDispatch(span, how);
        },
      };
    },
    runEnded(end: RunSpanEnd): void {
      safely(() => runSpan?.setAttributes({ [ATTR.runGraph]: end.graph, [ATTR.runStatus]: end.status, [ATTR.runReason]: end.reason }));
    },
  });

  return {
    inbound: [
      {
        execute(input, next) {
          pricing = pricingOf(input.args[0]);
          priceHeaders.clear();
          const { span, active } = inbound(`RunWorkflow:${workflowInfo().workflowType}`, input.headers);
          const graph = graphOf(input.args[0]);
          if (graph !== undefined) span.setAttribute(ATTR.runGraph, graph);
          runSpan = span;
          return endedWith(span, context.with(active, () => next(input)));
        },
        handleSignal(input, next) {
          const { span, active } = inbound(`HandleSignal:${input.signalName}`, input.headers);
          return endedWith(span, context.with(active, () => next(input)));
        },
      },
    ],
    outbound: [
      {
        scheduleActivity(input, next) {
          const model = modelOf(input.args[0]);
          const price = model !== undefined && Object.prototype.hasOwnProperty.call(pricing, model) ? pricing[model] : undefined;
          const traced = outbound(`StartActivity:${input.activityType}`, input);
          const headers = price && model !== undefined ? { ...traced.input.headers, [PRICE_HEADER]: priceHeader(model, price) } : traced.input.headers;
          return endedWith(traced.span, next({ ...traced.input, headers }));
        },
        scheduleLocalActivity(input, next) {
          const traced = outbound(`StartActivity:${input.activityType}`, input);
          return endedWith(traced.span, next(traced.input));
        },
        startChildWorkflowExecution(input, next) {
          const traced = outbound(`StartChildWorkflow:${input.workflowType}`, input);
          return endedWith(traced.span, next(traced.input));
        },
        continueAsNew(input, next) {
          const traced = outbound(`ContinueAsNew:${input.options.workflowType ?? workflowInfo().workflowType}`, input);
          return endedWith(traced.span, next(traced.input));
        },
        signalWorkflow(input, next) {
          const traced = outbound(`SignalWorkflow:${input.signalName}`, input);
          return endedWith(traced.span, next(traced.input));
        },
      },
    ],
    internals: [
      {
        dispose(input, next) {
          contextManager.disable();
          next(input);
        },
      },
    ],
  };
};
