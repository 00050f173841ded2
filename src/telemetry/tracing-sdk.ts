/**
 * The OpenTelemetry side of troupe's tracing (docs/observability.md, "Traces"), loaded only by a
 * process that traces (`tracing.ts` decides): a tracer provider per side (worker, client) with its
 * `service.name`, a BatchSpanProcessor to OTLP/HTTP configured by the standard `OTEL_*` variables,
 * and, once per process, the AsyncLocalStorage context manager (without it the client's, the
 * workflow's and the activities' spans fall into separate traces) and the W3C propagators. Every
 * span passes the worker's redactor (src/secrets/redactor.ts) on its way out: no secret reaches an
 * attribute, an event or a status message; with content capture off, no error's message reaches a
 * span either, only what failed (./span-errors.ts).
 */
import { context, createContextKey, propagation, SpanKind, SpanStatusCode, trace, type Context, type Span, type Tracer } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { CompositePropagator, suppressTracing, W3CBaggagePropagator, W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { envDetectorSync, Resource } from '@opentelemetry/resources';
import { BasicTracerProvider, BatchSpanProcessor, type ReadableSpan, type SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { CancelledFailure, defaultPayloadConverter } from '@temporalio/common';
import { OpenTelemetryPlugin } from '@temporalio/interceptors-opentelemetry';
import type { ActivityInboundCallsInterceptor, InjectedSinkFunction, WorkerOptions, WorkerPlugin } from '@temporalio/worker';
import type { WorkflowInfo } from '@temporalio/workflow';
import { environmentSecrets, Redactor } from '../secrets/redactor';
import { computeCostUsd } from '../core/budgets/ledger';
import type { ToolCallInput, ToolCallOutcome } from '../core/llm/tool-contract';
import { ATTR, contentAttribute, defined, OPERATION, PRICE_HEADER, PROVIDER, serverAttributes, spanName, type SpanAttributes } from './genai';
import type { ModelBody, ModelResponse, RunSpan, RunSpanResult } from './span-types';
import { errorSummary, errorType, FailureSummaryInterceptor, SPAN_ERROR_TEXTS, withheldErrorText } from './span-errors';
import type { TracingRole, TracingSettings } from './tracing-env';

/** The instrumentation scope of troupe's own spans. */
const TRACER_NAME = 'troupe';

/** Where a model activity's price (from its header) is kept for its `chat` span. */
const PRICE_KEY = createContextKey('troupe.modelPrice');

interface ModelPrice {
  model: string;
  input: number;
  output: number;
}

let globalsInstalled = false;

/**
 * The process-wide parts, once: the AsyncLocalStorage context manager and the W3C trace-context and
 * baggage propagators (what the Temporal interceptors carry in their `_tracer-data` header).
 */
function installGlobals(): void {
  if (globalsInstalled) return;
  globalsInstalled = true;
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new CompositePropagator({ propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()] }));
}

/**
 * A span processor that hands on each ended span with every string in it redacted: its attributes,
 * its events' names and attributes, its status message. A span with nothing to redact goes on as it is.
 */
export class RedactingSpanProcessor implements SpanProcessor {
  /**
   * @param options.withholdErrorText with content capture off: every span's status message and
   *   exception events say what failed, not its message (./span-errors.ts)
   */
  constructor(
    private readonly next: SpanProcessor,
    private readonly redactors: Redactor[],
    private readonly options: { withholdErrorText?: boolean } = {},
  ) {}

  onStart(span: Parameters<SpanProcessor['onStart']>[0], parent: Context): void {
    this.next.onStart(span, parent);
  }

  onEnd(span: ReadableSpan): void {
    this.next.onEnd(this.redacted(span));
  }

  forceFlush(): Promise<void> {
    return this.next.forceFlush();
  }

  shutdown(): Promise<void> {
    return this.next.shutdown();
  }

  private clean<T>(value: T): T {
    let out = value;
    for (const r of this.redactors) out = r.value(out);
    return out;
  }

  /**
   * Whether some string in `value` could be changed by a redactor: a walk of the span's flat
   * attributes with {@link Redactor.mayChange} only. Anything but a string, a number, a boolean or an
   * array of them counts as changeable (the full walk then decides).
   */
  private mayChange(value: unknown): boolean {
    if (typeof value === 'string') {
      for (const r of this.redactors) if (r.mayChange(value)) return true;
      return false;
    }
    if (value === null || value === undefined || typeof value === 'number' || typeof value === 'boolean') return false;
    if (Array.isArray(value)) {
      for (const v of value) if (this.mayChange(v)) return true;
      return false;
    }
    return true;
  }

  /** Whether redacting `span` could change it (false: it provably goes on as it is). */
  private needsRedaction(span: ReadableSpan): boolean {
    const { attributes, events, status } = span;
    for (const k in attributes) if (this.mayChange(attributes[k])) return true;
    if (events.length > 0) return true;
    return status.message !== undefined && this.mayChange(status.message);
  }

  /** The span, or a view of it (its prototype) whose error text is withheld (content capture off) and whose strings are redacted. */
  private redacted(ended: ReadableSpan): ReadableSpan {
    const span = this.options.withholdErrorText ? withheldErrorText(ended) : ended;
    // most spans hold no string a redactor could change: they go on without the full walk
    if (!this.needsRedaction(span)) return span;
    const attributes = this.clean(span.attributes);
    const events = this.clean(span.events);
    const message = span.status.message === undefined ? undefined : this.clean(span.status.message);
    if (attributes === span.attributes && events === span.events && message === span.status.message) return span;
    return Object.create(span, {
      attributes: { value: attributes },
      events: { value: events },
      status: { value: { ...span.status, ...(message !== undefined ? { message } : {}) } },
    }) as ReadableSpan;
  }
}

/**
 * Marks a span failed with `err`: what failed ({@link errorSummary}) always; the message only when
 * content is captured (it may carry a provider's body), and then through the redaction with the rest.
 */
function failSpan(span: Span, err: unknown, captureContent: boolean): void {
  span.setAttributes({ [ATTR.errorType]: errorType(err), [ATTR.errorSummary]: errorSummary(err) });
  const message = captureContent ? (err instanceof Error ? err.message : String(err)) : SPAN_ERROR_TEXTS.withheld(errorSummary(err));
  span.setStatus({ code: SpanStatusCode.ERROR, message });
}

/**
 * The activity interceptor that reads the price header the workflow's tracing interceptor sends
 * (src/telemetry/workflow-interceptors.ts) into the activity's context, for its `chat` spans.
 */
class PriceInterceptor implements ActivityInboundCallsInterceptor {
  execute: NonNullable<ActivityInboundCallsInterceptor['execute']> = (input, next) => {
    const header = input.headers[PRICE_HEADER];
    if (!header) return next(input);
    let price: ModelPrice | undefined;
    try {
      price = defaultPayloadConverter.fromPayload<ModelPrice>(header);
    } catch {
      return next(input);
    }
    return context.with(context.active().setValue(PRICE_KEY, price), () => next(input));
  };
}

/** What a workflow's spans carry of its run: enough to find the run, nothing of its data. */
const WORKFLOW_ATTRIBUTES = ['workflowId', 'runId', 'workflowType', 'taskQueue', 'namespace', 'attempt'] as const;

/**
 * The `exporter` sink of Temporal's plugin (`makeWorkflowExporter`) copies the whole WorkflowInfo
 * into the attributes of every span a workflow makes: some 35 of them, about 3 KB a span, the memo
 * and the search attributes among them. It gets {@link WORKFLOW_ATTRIBUTES} of it instead; the
 * plugin's exporter does the rest as before.
 */
function slimWorkflowExporter(sinks: WorkerOptions['sinks']): WorkerOptions['sinks'] {
  const exporter = (sinks as { exporter?: { export?: InjectedSinkFunction<(spans: unknown[]) => void> } } | undefined)?.exporter;
  const original = exporter?.export;
  if (!original) return {};
  return {
    exporter: {
      ...exporter,
      export: {
        ...original,
        fn: (info: WorkflowInfo, spans: unknown[]) => original.fn(Object.fromEntries(WORKFLOW_ATTRIBUTES.map((k) => [k, info[k]])) as unknown as WorkflowInfo, spans),
      },
    },
  };
}

/** One side's tracing: its provider, its Temporal plugin and troupe's spans. */
export class SideTracing {
  readonly tracer: Tracer;
  readonly plugin: OpenTelemetryPlugin;
  private readonly provider: BasicTracerProvider;
  private readonly redactors: Redactor[];

  constructor(
    readonly role: TracingRole,
    readonly settings: TracingSettings,
  ) {
    installGlobals();
    // the side's name, unless OTEL_SERVICE_NAME or OTEL_RESOURCE_ATTRIBUTES (the detector) names the service
    const named = Resource.default().merge(new Resource({ 'service.name': settings.serviceName })).merge(envDetectorSync.detect());
    this.redactors = [new Redactor(environmentSecrets(process.env, []))];
    // the exporter and the batch processor read OTEL_EXPORTER_OTLP_* and OTEL_BSP_* themselves
    const processor = new RedactingSpanProcessor(new BatchSpanProcessor(new OTLPTraceExporter()), this.redactors, { withholdErrorText: !settings.captureContent });
    this.provider = new BasicTracerProvider({ resource: named, spanProcessors: [processor] });
    this.tracer = this.provider.getTracer(TRACER_NAME);
    this.plugin = new OpenTelemetryPlugin({ resource: named, spanProcessor: processor, tracer: this.provider.getTracer('@temporalio/interceptors-opentelemetry') });
  }

  /** Redact spans with a worker's secrets too (its keys, its tools file's secrets). */
  addRedactor(redactor: Redactor): void {
    if (!this.redactors.includes(redactor)) this.redactors.push(redactor);
  }

  /**
   * The worker plugins: Temporal's (client, workflow and activity interceptors, the sink of the
   * workflow's spans) and troupe's (the price header, what failed on the activity's own span, a
   * flush when the worker stops).
   */
  workerPlugins(): WorkerPlugin[] {
    const flushing: WorkerPlugin = {
      name: 'troupe-tracing',
      configureWorker: (options) => ({
        ...options,
        interceptors: {
          ...options.interceptors,
          activity: [...(options.interceptors?.activity ?? []), () => ({ inbound: new PriceInterceptor() }), () => ({ inbound: new FailureSummaryInterceptor() })],
        },
        sinks: { ...options.sinks, ...slimWorkflowExporter(options.sinks) },
      }),
      runWorker: async (worker, next) => {
        try {
          await next(worker);
        } finally {
          await this.flush();
        }
      },
    };
    return [this.plugin, flushing];
  }

  /** Sends every ended span now. */
  async flush(): Promise<void> {
    await this.provider.forceFlush().catch(() => undefined);
  }

  /** Sends every ended span and stops. */
  async shutdown(): Promise<void> {
    await this.provider.shutdown().catch(() => undefined);
  }

  /** Runs `send` (of `body` to `baseUrl`, for the call `scope`) in a `chat <model>` span, a child of the activity's span. */
  async modelCall<R extends ModelResponse>(scope: { kind: string; agent: string }, baseUrl: string, body: ModelBody, streamed: boolean, send: () => Promise<R>): Promise<R> {
    const span = this.tracer.startSpan(spanName(OPERATION.chat, body.model), {
      kind: SpanKind.CLIENT,
      attributes: defined({
        [ATTR.operation]: OPERATION.chat,
        [ATTR.provider]: PROVIDER,
        [ATTR.requestModel]: body.model,
        [ATTR.requestMaxTokens]: body.max_tokens ?? undefined,
        [ATTR.requestTemperature]: body.temperature ?? undefined,
        [ATTR.requestStream]: streamed || undefined,
        [ATTR.callKind]: scope.kind,
        [ATTR.agent]: scope.agent,
        ...serverAttributes(baseUrl),
        ...(this.settings.captureContent ? { [ATTR.inputMessages]: contentAttribute(body.messages) } : {}),
      }),
    });
    const price = context.active().getValue(PRICE_KEY) as ModelPrice | undefined;
    try {
      const response = await context.with(trace.setSpan(context.active(), span), send);
      span.setAttributes(defined(this.responseAttributes(body.model, response, price)));
      return response;
    } catch (err) {
      failSpan(span, err, this.settings.captureContent);
      throw err;
    } finally {
      span.end();
    }
  }

  private responseAttributes(model: string, response: ModelResponse, price: ModelPrice | undefined): SpanAttributes {
    const { completion, usage } = response;
    // the ledger prices a call by the model the run asked for (src/core/budgets/ledger.ts)
    const cost = price && price.model === model ? computeCostUsd(model, usage, { [model]: price }) : undefined;
    return {
      [ATTR.responseModel]: completion.model || undefined,
      [ATTR.responseId]: completion.id || undefined,
      [ATTR.finishReasons]: completion.choices.map((c) => String(c.finish_reason ?? '')).filter(Boolean),
      [ATTR.inputTokens]: usage.promptTokens,
      [ATTR.outputTokens]: usage.completionTokens,
      [ATTR.costUsd]: cost,
      ...(this.settings.captureContent ? { [ATTR.outputMessages]: contentAttribute(completion.choices.map((c) => c.message)) } : {}),
    };
  }

  /** Runs a tool call in an `execute_tool <tool>` span. */
  async toolCall<R extends Exclude<ToolCallOutcome, { kind: 'fatal' }>>(input: ToolCallInput, call: () => Promise<R>): Promise<R> {
    const span = this.tracer.startSpan(spanName(OPERATION.executeTool, input.tool), {
      attributes: defined({
        [ATTR.operation]: OPERATION.executeTool,
        [ATTR.toolName]: input.tool,
        [ATTR.toolType]: 'function',
        [ATTR.toolCallId]: input.toolCallId,
        [ATTR.agent]: input.agent,
        ...(this.settings.captureContent ? { [ATTR.toolArguments]: contentAttribute(input.argumentsJson) } : {}),
      }),
    });
    try {
      const outcome = await context.with(trace.setSpan(context.active(), span), call);
      span.setAttributes(
        defined({
          [ATTR.toolOutcome]: outcome.kind,
          ...(this.settings.captureContent ? { [ATTR.toolResult]: contentAttribute(outcome.text) } : {}),
        }),
      );
      return outcome;
    } catch (err) {
      span.setAttribute(ATTR.toolOutcome, err instanceof CancelledFailure ? 'cancelled' : 'failed');
      failSpan(span, err, this.settings.captureContent);
      throw err;
    } finally {
      span.end();
    }
  }

  /** A run's root span on the client (`invoke_workflow <graph>`), open until {@link RunSpan.end}. */
  runSpan(graph: string): RunSpan {
    const span = this.tracer.startSpan(spanName(OPERATION.invokeWorkflow, graph), {
      attributes: { [ATTR.operation]: OPERATION.invokeWorkflow, 'gen_ai.workflow.name': graph, [ATTR.runGraph]: graph },
    });
    const ctx = trace.setSpan(context.active(), span);
    let ended = false;
    return {
      within: (fn) => context.with(ctx, fn),
      untraced: (fn) => context.with(suppressTracing(context.active()), fn),
      end: (result?: RunSpanResult) => {
        if (ended) return;
        ended = true;
        if (result) {
          span.setAttributes(
            defined({
              [ATTR.runWorkflowId]: result.workflowId,
              [ATTR.runStatus]: result.status,
              [ATTR.runReason]: result.reason,
            }),
          );
          if (result.status === 'failed') span.setStatus({ code: SpanStatusCode.ERROR });
        }
        span.end();
      },
    };
  }
}
