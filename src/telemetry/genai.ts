/**
 * The names and attributes of troupe's spans, on the OpenTelemetry GenAI semantic conventions
 * (docs/observability.md, "Traces"): `invoke_agent <agent>` per dispatch, `chat <model>` per model
 * request, `execute_tool <tool>` per tool call, and `troupe.run.*` on a run's spans. Pure: the
 * workflow's tracing interceptor (in the sandbox) and the worker's spans both build their attributes
 * here, and the tests read them by these names.
 */

/** Attribute values as OpenTelemetry takes them (strings, numbers, booleans, arrays of one of them). */
export type SpanAttributes = Record<string, string | number | boolean | string[] | undefined>;

/** Attribute keys: the GenAI conventions' and troupe's own. */
export const ATTR = {
  operation: 'gen_ai.operation.name',
  provider: 'gen_ai.provider.name',
  agentName: 'gen_ai.agent.name',
  requestModel: 'gen_ai.request.model',
  requestStream: 'gen_ai.request.stream',
  requestMaxTokens: 'gen_ai.request.max_tokens',
  requestTemperature: 'gen_ai.request.temperature',
  responseModel: 'gen_ai.response.model',
  responseId: 'gen_ai.response.id',
  finishReasons: 'gen_ai.response.finish_reasons',
  inputTokens: 'gen_ai.usage.input_tokens',
  outputTokens: 'gen_ai.usage.output_tokens',
  inputMessages: 'gen_ai.input.messages',
  outputMessages: 'gen_ai.output.messages',
  toolName: 'gen_ai.tool.name',
  toolType: 'gen_ai.tool.type',
  toolCallId: 'gen_ai.tool.call.id',
  toolArguments: 'gen_ai.tool.call.arguments',
  toolResult: 'gen_ai.tool.call.result',
  serverAddress: 'server.address',
  serverPort: 'server.port',
  errorType: 'error.type',
  /** What failed, without its message (src/telemetry/span-errors.ts): the class, failure type and HTTP status. */
  errorSummary: 'troupe.error',
  costUsd: 'troupe.cost_usd',
  callKind: 'troupe.call.kind',
  agent: 'troupe.agent',
  round: 'troupe.round',
  via: 'troupe.via',
  team: 'troupe.team',
  llmCalls: 'troupe.llm_calls',
  toolOutcome: 'troupe.tool.outcome',
  runGraph: 'troupe.run.graph',
  runStatus: 'troupe.run.status',
  runReason: 'troupe.run.reason',
  runWorkflowId: 'troupe.run.workflow_id',
} as const;

/** Operation names, which also start the span names. */
export const OPERATION = { invokeAgent: 'invoke_agent', chat: 'chat', executeTool: 'execute_tool', invokeWorkflow: 'invoke_workflow' } as const;

/** troupe speaks the OpenAI chat-completions API to every endpoint. */
export const PROVIDER = 'openai';

/**
 * The Temporal header in which the workflow's tracing interceptor sends a model activity the price of
 * its model (from the run's `pricing`), so its `chat` span can carry `troupe.cost_usd`. Sent only
 * when the worker traces.
 */
export const PRICE_HEADER = 'troupe-model-price';

/** The largest captured content attribute, in characters (the start is kept). */
export const MAX_CONTENT_CHARS = 16 * 1024;

/** A span name: the operation, then what it acts on. */
export function spanName(operation: string, target: string): string {
  return target ? `${operation} ${target}` : operation;
}

/** A captured text, cut to {@link MAX_CONTENT_CHARS}. */
export function contentAttribute(value: unknown): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value) ?? '';
  return text.length > MAX_CONTENT_CHARS ? `${text.slice(0, MAX_CONTENT_CHARS)}…` : text;
}

/** The host and port of an endpoint's base URL (`server.address`, `server.port`); empty for a URL that does not parse. */
export function serverAttributes(baseUrl: string | undefined): SpanAttributes {
  if (!baseUrl) return {};
  try {
    const url = new URL(baseUrl);
    const port = url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : url.protocol === 'http:' ? 80 : undefined;
    return { [ATTR.serverAddress]: url.hostname, ...(port !== undefined ? { [ATTR.serverPort]: port } : {}) };
  } catch {
    return {};
  }
}

/** Attributes without the undefined ones (OpenTelemetry drops them, with a warning). */
export function defined(attributes: SpanAttributes): Record<string, string | number | boolean | string[]> {
  const out: Record<string, string | number | boolean | string[]> = {};
  for (const [k, v] of Object.entries(attributes)) if (v !== undefined) out[k] = v;
  return out;
}
