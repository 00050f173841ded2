/**
 * One chat-completions request as a Temporal activity step: the OpenAI client with
 * retries left to Temporal, a per-request timeout of the activity's remaining time minus 1 s, abort on
 * activity cancellation, the reply streamed when the endpoint allows it with its partial text in the
 * heartbeat details, and the HTTP error classification that tells the workflow which failures are
 * fatal and which Temporal should retry.
 */
import { ApplicationFailure, CancelledFailure, Context } from '@temporalio/activity';
import OpenAI, { APIConnectionError, APIConnectionTimeoutError, APIError } from 'openai';
import type { ChatCompletion, ChatCompletionCreateParamsNonStreaming } from 'openai/resources/chat/completions';
import type { ResolvedModel } from '../core/graph/types';
import { encodeHeaderValue, FAILURE_TYPES, TROUPE_HEADERS, type LlmFailureDetails } from '../core/llm/contract';
import type { TokenCounts } from '../core/conditions/view';
import { LiveTextBuffer } from '../core/observe/live';
import { replyCaps, type ReplyCaps } from '../core/llm/reply-caps';
import { checkModelEndpoint, endpointPolicy, ENDPOINT_SETTINGS, shownUrl, workerBaseUrl, type EndpointPolicy } from './endpoints';
import type { LlmEndpointOptions } from './endpoints';
import { observeModelCall } from '../telemetry/worker-metrics';
import { callIdOf } from './identity';
import { cappedErrorBodies } from './error-bodies';
import { allowedPrefixFetch, redirectPrefixes, redirectRefusal } from './redirects';
import { details, errorLike, FATAL_STATUSES, readResponse } from './responses';
import { neverStream, rememberRefusesStreaming, streamingOn, streamsTo } from './stream-policy';
import { requestUsage } from './usage';
import { ACTIVITY_TEXTS } from './texts';
import { tracedModelCall } from '../telemetry/tracing';

export type { LlmEndpointOptions } from './endpoints';
export type { LiveText } from '../core/observe/live';

/** Which activity makes the request; sent as `x-troupe-kind` and carried in failure details. */
export type LlmKind = LlmFailureDetails['kind'];

/**
 * Timing and endpoint constants of the LLM activities.
 * @internal exported for tests
 */
export const LLM_DEFAULTS = {
  baseUrl: ENDPOINT_SETTINGS.openAiBaseUrl,
  /** Sent when no key is configured, so keyless local endpoints (Ollama, the offline model) work. */
  noApiKey: 'troupe-no-key',
  heartbeatIntervalMs: 300,
  /** Each request ends this long before the activity's start-to-close deadline. */
  deadlineMarginMs: 1000,
  minRequestTimeoutMs: 100,
  maxErrorMessageChars: 500,
  /** Least time between two beats that streamed text triggers (the SDK throttles further). */
  liveBeatMinMs: 100,
} as const;




/** Who asks for a client; named in the failure when the worker refuses the model's endpoint. */
interface LlmCaller {
  kind: LlmKind;
  agent: string;
}

/**
 * Creates the OpenAI client for a model: its own base URL and key variable, else the injected defaults.
 * A base URL or key variable the worker's policy does not allow throws a non-retryable failure before
 * any request exists, so no secret of the worker can reach an address a role chose.
 */
export function createOpenAIClient(
  model: ResolvedModel,
  opts: LlmEndpointOptions,
  caller: LlmCaller,
  policy: EndpointPolicy = endpointPolicy(opts),
): OpenAI {
  const check = checkModelEndpoint(model, policy);
  if (!check.ok) {
    throw ApplicationFailure.create({
      type: FAILURE_TYPES.fatal,
      nonRetryable: true,
      message: ACTIVITY_TEXTS.llm.endpointRefused(caller.kind, caller.agent, check.message),
      details: [details(caller.kind, check.message)],
    });
  }
  const env = opts.env ?? {};
  const baseURL = model.baseUrl ?? workerBaseUrl(opts);
  // A model that names its own key variable never falls back to the OpenAI key: it may point at another provider.
  const apiKey = model.apiKeyEnv ? env[model.apiKeyEnv] : (opts.apiKey ?? env[ENDPOINT_SETTINGS.keyVar]);
  return sharedClient(baseURL, apiKey || LLM_DEFAULTS.noApiKey, redirectPrefixes(baseURL, policy), streamingOn(opts));
}

/** Clients by endpoint and key: a client holds no state of a request, and building one per call cost ~0.1 ms (BENCHMARKS.md, B1). */
const clients = new Map<string, OpenAI>();
/** Endpoint and key pairs a worker keeps clients for (a worker talks to a handful). */
const MAX_CLIENTS = 32;

function sharedClient(baseURL: string | undefined, apiKey: string, prefixes: string[], stream: boolean): OpenAI {
  const key = `${baseURL ?? ''}\u0000${apiKey}\u0000${prefixes.join('\u0000')}\u0000${stream}`;
  let client = clients.get(key);
  if (!client) {
    if (clients.size >= MAX_CLIENTS) clients.clear();
    // redirects followed only within the allowed prefixes; an error's body read within its bound
    client = new OpenAI({ baseURL, apiKey, maxRetries: 0, timeout: 60_000, fetch: cappedErrorBodies(allowedPrefixFetch(prefixes, { secrets: [apiKey] })) });
    if (!stream) neverStream(client);
    clients.set(key, client);
  }
  return client;
}

/** The requests of one activity execution: who makes them and the deadline they share. */
export interface LlmCallScope {
  kind: LlmKind;
  agent: string;
  workflowId: string;
  /** Epoch ms by which the activity's start-to-close timeout expires. */
  deadlineMs: number;
  /** The activity's start-to-close timeout: the role's `timeout_ms`, for messages. */
  timeoutMs?: number;
  /** What one reply may hold (the model's `max_reply_bytes` and `max_event_bytes`, core/llm/reply-caps.ts). */
  caps: ReplyCaps;
}

/** Opens the scope of one activity execution on `model`; call it first thing in the activity. */
export function openCallScope(kind: LlmKind, agent: string, workflowId: string, fallbackTimeoutMs: number, model?: ResolvedModel): LlmCallScope {
  const startToClose = Context.current().info.startToCloseTimeoutMs;
  const budget = startToClose > 0 ? startToClose : fallbackTimeoutMs;
  return { kind, agent, workflowId, deadlineMs: Date.now() + budget, timeoutMs: budget, caps: replyCaps(model) };
}

/**
 * The activity's remaining time minus the margin, never below a small floor.
 * @internal exported for tests
 */
export function requestTimeoutMs(deadlineMs: number, nowMs: number): number {
  return Math.max(LLM_DEFAULTS.minRequestTimeoutMs, deadlineMs - nowMs - LLM_DEFAULTS.deadlineMarginMs);
}

/** A completed request: the parsed completion, its request id and its usage. */
export interface ChatResponse {
  completion: ChatCompletion;
  requestId?: string;
  usage: TokenCounts;
  /** What the worker did about the endpoint (streaming refused, usage estimated): the agent activities add them to their warnings. */
  warnings?: string[];
}

/**
 * Sends one chat-completions request within the scope's deadline, heartbeating while it is in flight
 * with the text written so far ({@link LiveText}). The request is streamed unless the worker or the
 * endpoint does not stream (./stream-policy.ts); an endpoint that rejects `stream: true` gets the same
 * request once more without it, and is remembered. Either way the caller gets the same completion.
 * Throws the activity's CancelledFailure when cancelled, else a classified ApplicationFailure.
 */
export async function chatCompletion(
  client: OpenAI,
  body: ChatCompletionCreateParamsNonStreaming,
  scope: LlmCallScope,
): Promise<ChatResponse> {
  // counted and timed by agent, model, kind and outcome (docs/observability.md, "Metrics")
  return observeModelCall(scope, body.model, () => completion(client, body, scope));
}

/** {@link chatCompletion} without its metrics. */
async function completion(client: OpenAI, body: ChatCompletionCreateParamsNonStreaming, scope: LlmCallScope): Promise<ChatResponse> {
  if (!streamsTo(client)) return send(client, body, scope, false);
  try {
    return await send(client, body, scope, true);
  } catch (err) {
    if (!rejectsStreaming(err)) throw err;
    rememberRefusesStreaming(client);
    const warning = ACTIVITY_TEXTS.llm.noStreaming(scope.kind, scope.agent, shownUrl(client.baseURL));
    Context.current().log.warn(warning);
    const response = await send(client, body, scope, false);
    return { ...response, warnings: [warning, ...(response.warnings ?? [])] };
  }
}

/** One request, streamed or not, in its `chat` span when the worker traces (src/telemetry/tracing.ts). */
function send(client: OpenAI, body: ChatCompletionCreateParamsNonStreaming, scope: LlmCallScope, streamed: boolean): Promise<ChatResponse> {
  return tracedModelCall(scope, client.baseURL, body, streamed, () => sendRequest(client, body, scope, streamed));
}

/** One request, streamed or not; see {@link chatCompletion}. */
async function sendRequest(
  client: OpenAI,
  body: ChatCompletionCreateParamsNonStreaming,
  scope: LlmCallScope,
  streamed: boolean,
): Promise<ChatResponse> {
  const ctx = Context.current();
  const info = ctx.info;
  const startedAt = Date.now();
  const timeout = requestTimeoutMs(scope.deadlineMs, startedAt);
  const abort = new AbortController();
  let timedOut = false;
  const onCancel = () => abort.abort(ctx.cancellationSignal.reason);
  ctx.cancellationSignal.addEventListener('abort', onCancel, { once: true });
  if (ctx.cancellationSignal.aborted) onCancel();
  // The client's own timeout covers only the wait for headers; this one also bounds the body.
  const timer = setTimeout(() => {
    timedOut = true;
    abort.abort();
  }, timeout);
  // every beat carries the text so far (docs/observability.md, "Live output"); the SDK sends at most
  // one per throttle interval (the worker sets 500 ms) with the latest details
  const live = new LiveTextBuffer(scope.agent, scope.kind);
  let lastBeat = 0;
  const beat = () => {
    lastBeat = Date.now();
    ctx.heartbeat(live.snapshot());
  };
  // the first beat waits one interval: a call answered sooner costs the server no heartbeat, and a
  // cancellation still reaches a longer call within an interval or two (BENCHMARKS.md, B1)
  const beats = setInterval(beat, LLM_DEFAULTS.heartbeatIntervalMs);
  const onText = (delta: string) => {
    live.append(delta);
    const now = Date.now();
    // after the first interval new text goes out at once, at most one beat per `liveBeatMinMs` here
    if (now - startedAt >= LLM_DEFAULTS.heartbeatIntervalMs && now - lastBeat >= LLM_DEFAULTS.liveBeatMinMs) beat();
  };
  try {
    // the raw response, read here, so a body that is cut off, not JSON or an error object is
    // classified with its status and request id (docs/semantics.md, "Agent calls")
    const response = await client.chat.completions
      .create(streamed ? { ...body, stream: true, stream_options: { include_usage: true } } : body, {
        timeout,
        signal: abort.signal,
        maxRetries: 0,
        headers: {
          [TROUPE_HEADERS.agent]: encodeHeaderValue(scope.agent),
          [TROUPE_HEADERS.kind]: encodeHeaderValue(scope.kind),
          [TROUPE_HEADERS.workflowId]: encodeHeaderValue(scope.workflowId),
          [TROUPE_HEADERS.callId]: encodeHeaderValue(callIdOf(info, scope.workflowId)),
          [TROUPE_HEADERS.attempt]: String(info.attempt),
        },
      })
      .asResponse();
    const read = await readResponse(response, { ...scope, endpoint: shownUrl(client.baseURL) }, onText);
    const requestId = response.headers.get('x-request-id') ?? undefined;
    // what the endpoint reported when it is usage, else an estimate with its warning (./usage.ts)
    const { usage, warnings } = requestUsage(client, body, read, scope);
    for (const warning of warnings) ctx.log.warn(warning);
    return { completion: read.completion, requestId, usage, ...(warnings.length > 0 ? { warnings } : {}) };
  } catch (err) {
    if (ctx.cancellationSignal.aborted) throw cancelledFailure(ctx.cancellationSignal.reason);
    // the deadline's abort may surface as a stream cut off: it is the timeout all the same
    if (timedOut) throw timeoutFailure(scope, timeout);
    if (err instanceof ApplicationFailure) throw err;
    throw classifyLlmError(err, scope, timeout, Date.now());
  } finally {
    clearInterval(beats);
    clearTimeout(timer);
    ctx.cancellationSignal.removeEventListener('abort', onCancel);
  }
}

function cancelledFailure(reason: unknown): CancelledFailure {
  return reason instanceof CancelledFailure ? reason : new CancelledFailure('CANCELLED');
}

/**
 * A request that ran out of time: the message names the agent, the timeout the role set and the
 * setting that raises it (a slow local model needs more than the 30 s default).
 */
function timeoutFailure(scope: Pick<LlmCallScope, 'kind' | 'agent' | 'timeoutMs'>, timeoutMs: number): ApplicationFailure {
  const message = ACTIVITY_TEXTS.llm.timeout(scope.kind, scope.agent, timeoutMs, scope.timeoutMs ?? timeoutMs + LLM_DEFAULTS.deadlineMarginMs);
  return ApplicationFailure.create({
    type: FAILURE_TYPES.retryable,
    message,
    details: [details(scope.kind, message)],
  });
}

/** The provider's own error text, without the status prefix the openai package adds, cut to its bound. */
function providerMessage(err: APIError): string {
  const body = err.error as { message?: unknown } | undefined;
  const raw =
    typeof body?.message === 'string' ? body.message : err.message.replace(new RegExp(`^${err.status ?? ''}\\s*`), '');
  const text = raw.trim() || ACTIVITY_TEXTS.llm.noMessage;
  return text.length > LLM_DEFAULTS.maxErrorMessageChars ? `${text.slice(0, LLM_DEFAULTS.maxErrorMessageChars)}…` : text;
}

const NETWORK_FAILURE_MESSAGES = new Set(['fetch failed', 'terminated']);
/** System error codes (ECONNRESET, ENOTFOUND, ...) and undici's socket and timeout codes. */
const NETWORK_ERROR_CODE = /^(E[A-Z0-9]+|UND_ERR_[A-Z_]+)$/;

/**
 * Whether `err` is a TypeError or RangeError raised on this side while building or sending a request
 * (a header that is not a byte string, a URL fetch refuses, a body that cannot be serialized), as
 * opposed to undici reporting a network failure: that one is also a TypeError, but says `fetch failed`
 * (or `terminated` when the body was cut off) and carries the system error (ECONNRESET, ...) as cause.
 * Errors are recognised by name, not `instanceof`: Node's own fetch may raise them from another realm.
 * @internal exported for tests
 */
export function isLocalRequestError(err: unknown): boolean {
  if (!errorLike(err) || (err.name !== 'TypeError' && err.name !== 'RangeError')) return false;
  if (NETWORK_FAILURE_MESSAGES.has(err.message)) return false;
  let cause: unknown = err.cause;
  for (let depth = 0; errorLike(cause) && depth < 5; depth += 1) {
    if (typeof cause.code === 'string' && NETWORK_ERROR_CODE.test(cause.code)) return false;
    cause = cause.cause;
  }
  return true;
}

/**
 * The local error behind a failed request, if it was one. openai v6 lets an exception thrown while it
 * builds the request (headers, URL, body) escape as it is; one thrown by `fetch` itself it wraps in an
 * `APIConnectionError` whose `cause` is the original error.
 */
function localRequestError(err: unknown): Error | undefined {
  if (err instanceof APIConnectionTimeoutError) return undefined;
  if (err instanceof APIConnectionError) return isLocalRequestError(err.cause) ? (err.cause as Error) : undefined;
  if (err instanceof APIError) return undefined;
  return isLocalRequestError(err) ? (err as Error) : undefined;
}

/**
 * Maps an error from the openai package to the failure Temporal should see: 400/401/403/404/422 are
 * non-retryable; 429 is retryable after `Retry-After`; 5xx, other statuses, timeouts and connection errors
 * are retryable. A request that failed on this side before reaching the network is non-retryable too:
 * the next attempt would fail the same way, and retrying would disguise it as an outage; so is a
 * redirect the worker refused to follow (./redirects.ts). A provider that repeats the key in its error
 * text has it taken out, with every other secret, when the failure leaves the activity (./redact.ts).
 * @internal exported for tests
 */
export function classifyLlmError(
  err: unknown,
  scope: Pick<LlmCallScope, 'kind' | 'agent' | 'timeoutMs'>,
  timeoutMs: number,
  nowMs: number = Date.now(),
): ApplicationFailure {
  const { kind, agent } = scope;
  if (err instanceof APIConnectionTimeoutError) return timeoutFailure(scope, timeoutMs);
  const refusal = redirectRefusal(err);
  if (refusal !== undefined) {
    const message = refusal;
    return ApplicationFailure.create({
      type: FAILURE_TYPES.fatal,
      nonRetryable: true,
      message: ACTIVITY_TEXTS.llm.endpointRefused(kind, agent, message),
      details: [details(kind, message)],
    });
  }
  const local = localRequestError(err);
  if (local) {
    const error = `${local.name}: ${local.message}`;
    return ApplicationFailure.create({
      type: FAILURE_TYPES.fatal,
      nonRetryable: true,
      message: ACTIVITY_TEXTS.llm.local(kind, agent, error),
      details: [details(kind, ACTIVITY_TEXTS.llm.localDetail(error))],
    });
  }
  if (err instanceof APIConnectionError) {
    const cause = err.cause instanceof Error && err.cause.message ? `${err.message} (${err.cause.message})` : err.message;
    const message = ACTIVITY_TEXTS.llm.connection(kind, agent, cause);
    return ApplicationFailure.create({ type: FAILURE_TYPES.retryable, message, details: [details(kind, cause)] });
  }
  if (err instanceof APIError && typeof err.status === 'number') {
    const status = err.status;
    const requestId = err.requestID ?? undefined;
    const text = providerMessage(err);
    const message = ACTIVITY_TEXTS.llm.http(kind, agent, status, text, requestId);
    const info = details(kind, text, status, requestId);
    if (FATAL_STATUSES.has(status)) {
      return ApplicationFailure.create({ type: FAILURE_TYPES.fatal, nonRetryable: true, message, details: [info] });
    }
    const retryAfter = status === 429 ? parseRetryAfterMs(err.headers, nowMs) : undefined;
    return ApplicationFailure.create({
      type: FAILURE_TYPES.retryable,
      message,
      details: [info],
      ...(retryAfter !== undefined ? { nextRetryDelay: retryAfter } : {}),
    });
  }
  const text = err instanceof Error ? err.message : String(err);
  return ApplicationFailure.create({
    type: FAILURE_TYPES.retryable,
    message: ACTIVITY_TEXTS.llm.other(kind, agent, text),
    details: [details(kind, text)],
  });
}

/**
 * Milliseconds to wait from `retry-after-ms`, or `Retry-After` as seconds or an HTTP date; undefined if absent.
 * @internal exported for tests
 */
export function parseRetryAfterMs(headers: Headers | undefined, nowMs: number): number | undefined {
  const ms = headers?.get('retry-after-ms');
  if (ms && /^\d+(\.\d+)?$/.test(ms.trim())) return Math.ceil(Number(ms));
  const value = headers?.get('retry-after')?.trim();
  if (!value) return undefined;
  if (/^\d+(\.\d+)?$/.test(value)) return Math.ceil(Number(value) * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - nowMs);
}

/** The failure details an LLM activity attached, when `err` is one of its ApplicationFailures. */
function llmFailureDetails(err: unknown): LlmFailureDetails | undefined {
  if (!(err instanceof ApplicationFailure)) return undefined;
  const first = err.details?.[0] as LlmFailureDetails | undefined;
  return first && typeof first === 'object' && typeof first.message === 'string' ? first : undefined;
}

const STREAMING_REJECTED = /\bstream(_options|ing)?\b|include_usage/i;

/**
 * Whether a failure is an endpoint refusing a streamed request (HTTP 400 or 422 naming `stream`,
 * `stream_options` or `include_usage`): such endpoints get the same request once more without it.
 * @internal exported for tests
 */
export function rejectsStreaming(err: unknown): boolean {
  const details = llmFailureDetails(err);
  return (details?.status === 400 || details?.status === 422) && STREAMING_REJECTED.test(details.message);
}

const RESPONSE_FORMAT_REJECTED = /response[_ ]format|json[_ ]schema|structured output/i;

/**
 * Whether a failure is an endpoint refusing `response_format` (HTTP 400 naming it): such endpoints
 * get the same request once more without it.
 */
export function rejectsResponseFormat(err: unknown): boolean {
  const details = llmFailureDetails(err);
  return details?.status === 400 && RESPONSE_FORMAT_REJECTED.test(details.message);
}
