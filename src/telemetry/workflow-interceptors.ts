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
 *   span exporter of `@temporalio/interceptors-opentelemetry` (the plugin's `exporter` sink takes
 *   them to the worker's processor). That package's own workflow module makes the same spans through
 *   four to six async functions per call, its `SimpleSpanProcessor` three promises per span, and its
 *   context manager is an `AsyncLocalStorage`, which runs Node's async hooks on every promise; the
 *   SDK records a stack trace for every promise a workflow creates, which made a traced step cost a
 *   third more worker CPU (BENCHMARKS.md, B13). Here a span is started and ended synchronously and
 *   no promise is added per step: an activity's `StartActivity` span ends when the activation that
 *   resolves it arrives (the job, read before the workflow sees it: the same clock), and only a
 *   failed or a rarer call (a child, a signal, continue-as-new) ends its span with a reaction on its
 *   own promise. The spans an activation ended leave in one sink call when it concludes.
 * - **Which span is a call's parent**, without `AsyncLocalStorage` (./workflow-context.ts): the
 *   context a `with` made active while the call is made synchronously (a dispatch's first call, a
 *   signal handler's), else the open dispatch of the agent the activity's input names (every model,
 *   tool and compaction call of a dispatch names its agent; one agent has one dispatch open at a
 *   time), else the run's `RunWorkflow` span. A team's child started again after an id clash, or
 *   signalled after it started, is put back in its dispatch by `withinDispatchOf`
 *   (src/workflows/spans.ts). A call an Update handler makes is a child of the run's span (the
 *   `AsyncLocalStorage` left it without a parent: Updates are not traced).
 * - **troupe's**: the hooks of `src/workflows/spans.ts` (an `invoke_agent` span per dispatch, the
 *   run's graph, status and reason on its `RunWorkflow` span), and the price of each model
 *   activity's model in a header, for its `chat` span's `troupe.cost_usd`.
 *
 * Nothing here adds a command or an await: span ids and times come from the workflow's own
 * deterministic random and clock, and a header changes no command's identity. Queries are not traced.
 */
import '@temporalio/interceptors-opentelemetry/lib/workflow/runtime';
import { context, defaultTextMapSetter, propagation, ROOT_CONTEXT, SpanStatusCode, trace, type Context, type Span, type Tracer } from '@opentelemetry/api';
import { BasicTracerProvider, type ReadableSpan, type SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { defaultPayloadConverter } from '@temporalio/common';
import { extractContextFromHeaders, TRACE_HEADER } from '@temporalio/interceptors-opentelemetry/lib/instrumentation';
import { SpanExporter } from '@temporalio/interceptors-opentelemetry/lib/workflow/span-exporter';
import { CancellationScope, ContinueAsNew, workflowInfo, type WorkflowInterceptorsFactory } from '@temporalio/workflow';
import { installWorkflowSpanHooks, type DispatchSpan, type DispatchSpanEnd, type DispatchSpanStart, type RunSpanEnd } from '../workflows/spans';
import { ATTR, defined, OPERATION, PRICE_HEADER, PROVIDER, spanName } from './genai';
import { RunContextManager } from './workflow-context';

/** troupe's own spans' instrumentation scope; Temporal's keep theirs. */
const TROUPE_SCOPE = 'troupe';
const TEMPORAL_SCOPE = '@temporalio/interceptor-workflow';

type Pricing = Record<string, { input: number; output: number }>;

/**
 * Hands the spans an activation ended to Temporal's sandbox exporter (the `exporter` sink) in one
 * call when it concludes ({@link flush}), without the three promises `SimpleSpanProcessor` makes per
 * span. Each sink call carries a copy of the run's `WorkflowInfo` to the worker's main thread: one
 * per activation, not one per span.
 */
class SinkSpanProcessor implements SpanProcessor {
  private readonly exporter = new SpanExporter();
  private ended: ReadableSpan[] = [];
  onStart(): void {}
  onEnd(span: ReadableSpan): void {
    this.ended.push(span);
  }
  /** Exports the spans ended since the last flush. */
  flush(): void {
    if (this.ended.length === 0) return;
    const spans = this.ended;
    this.ended = [];
    safely(() => this.exporter.export(spans, () => undefined));
  }
  forceFlush(): Promise<void> {
    return Promise.resolve();
  }
  shutdown(): Promise<void> {
    return Promise.resolve();
  }
}

/** The sandbox's tracers, made once per run (this module is loaded per run), registered as Temporal's module registers its own. */
function tracers(): { temporal: Tracer; troupe: Tracer; contextManager: RunContextManager; sink: SinkSpanProcessor } {
  const contextManager = new RunContextManager();
  const sink = new SinkSpanProcessor();
  const provider = new BasicTracerProvider({ spanProcessors: [sink] });
  provider.register({ contextManager });
  return { temporal: provider.getTracer(TEMPORAL_SCOPE), troupe: provider.getTracer(TROUPE_SCOPE), contextManager, sink };
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

/** The agent an activity's input names (`AgentCallInput`, `ModelCallInput`, `ToolCallInput`, `CompactionInput`, `JudgeInput`). */
function agentOf(arg: unknown): string | undefined {
  const agent = (arg as { agent?: unknown } | undefined)?.agent;
  return typeof agent === 'string' ? agent : undefined;
}

/** How an activity's span ends, from the job that resolves it. */
type ActivityResolution = { completed?: unknown; failed?: unknown; cancelled?: unknown } | null | undefined;

/** Nothing a span does may fail the run. */
function safely(fn: () => void): void {
  try {
    fn();
  } catch {
    // a span is never worth a failed workflow task
  }
}

/** Ends `span` OK. */
function endOk(span: Span): void {
  safely(() => {
    span.setStatus({ code: SpanStatusCode.OK });
    span.end();
  });
}

/** Ends `span` when `call` settles (one reaction, never awaited); returns `call` itself. */
function endedWith<T>(span: Span, call: Promise<T>): Promise<T> {
  call.then(
    () => endOk(span),
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
  const { temporal, troupe, contextManager, sink } = tracers();
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
  /** The context of each agent's open dispatch (one at a time per agent: its in-flight rule). */
  const dispatches = new Map<string, Context>();
  /** Each scheduled activity's span and call, by its sequence number, until the job that resolves it. */
  const activities = new Map<number, { span: Span; call: Promise<unknown> }>();

  /** The parent of a call that names `agent`: a `with`'s context, else the agent's open dispatch, else the run's. */
  const parentOf = (agent: string | undefined): Context =>
    contextManager.explicit() ?? (agent !== undefined ? dispatches.get(agent) : undefined) ?? contextManager.active();
  /** A span of Temporal's named `name`, child of `parent`, whose context `headers` then carry. */
  const outbound = <I extends { headers: Record<string, unknown> }>(name: string, input: I, parent: Context = contextManager.active()): { span: Span; input: I } => {
    const span = temporal.startSpan(name, {}, parent);
    // what `headersWithContext` writes under the span's context, injected with that context directly
    const carrier: Record<string, string> = {};
    propagation.inject(trace.setSpan(parent, span), carrier, defaultTextMapSetter);
    const headers = { ...input.headers, [TRACE_HEADER]: defaultPayloadConverter.toPayload(carrier) };
    return { span, input: { ...input, headers } };
  };
  /** A span of Temporal's named `name`, child of the context the call's headers carry (else none: a root, as the SDK's handlers run outside the run's context). */
  const inbound = (name: string, headers: Record<string, unknown>): { span: Span; active: Context } => {
    const parent = contextManager.with(ROOT_CONTEXT, () => extractContextFromHeaders(headers as never)) ?? ROOT_CONTEXT;
    const span = temporal.startSpan(name, {}, parent);
    return { span, active: trace.setSpan(parent, span) };
  };
  /** Ends the span of the activity `seq` the way `result` resolves it: at once when it completed, by its promise's rejection otherwise (the error's message). */
  const resolved = (seq: number, result: ActivityResolution): void => {
    const open = activities.get(seq);
    if (!open) return;
    activities.delete(seq);
    if (result?.completed) endOk(open.span);
    else void endedWith(open.span, open.call);
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
      dispatches.set(start.agent, active);
      let ended = false;
      return {
        within: (fn) => contextManager.with(active, fn),
        end: (how) => {
          if (ended) return;
          ended = true;
          if (dispatches.get(start.agent) === active) dispatches.delete(start.agent);
          endDispatch(span, how);
        },
      };
    },
    within<T>(agent: string, fn: () => Promise<T>): Promise<T> {
      const active = dispatches.get(agent);
      return active ? contextManager.with(active, fn) : fn();
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
          contextManager.setBase(active);
          return endedWith(span, next(input));
        },
        handleSignal(input, next) {
          const { span, active } = inbound(`HandleSignal:${input.signalName}`, input.headers);
          return endedWith(span, contextManager.with(active, () => next(input)));
        },
      },
    ],
    outbound: [
      {
        scheduleActivity(input, next) {
          const arg = input.args[0];
          const model = modelOf(arg);
          const price = model !== undefined && Object.prototype.hasOwnProperty.call(pricing, model) ? pricing[model] : undefined;
          const traced = outbound(`StartActivity:${input.activityType}`, input, parentOf(agentOf(arg)));
          const headers = price && model !== undefined ? { ...traced.input.headers, [PRICE_HEADER]: priceHeader(model, price) } : traced.input.headers;
          const call = next({ ...traced.input, headers });
          // a call in a cancelled scope is rejected without a job: its span ends by the rejection
          if (CancellationScope.current().consideredCancelled) return endedWith(traced.span, call);
          activities.set(input.seq, { span: traced.span, call });
          return call;
        },
        scheduleLocalActivity(input, next) {
          const traced = outbound(`StartActivity:${input.activityType}`, input, parentOf(agentOf(input.args[0])));
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
        activate(input, next) {
          for (const job of input.activation.jobs ?? []) {
            const resolution = job.resolveActivity;
            if (resolution && !resolution.isLocal) resolved(Number(resolution.seq), resolution.result);
          }
          next(input);
        },
        concludeActivation(input, next) {
          sink.flush();
          return next(input);
        },
        dispose(input, next) {
          contextManager.disable();
          next(input);
        },
      },
    ],
  };
};
