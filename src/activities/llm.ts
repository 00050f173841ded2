/**
 * One chat-completions request as a Temporal activity step: the OpenAI client with
 * retries left to Temporal, a per-request timeout of the activity's remaining time minus 1 s, abort on
 * activity cancellation, a heartbeat while the request is in flight, and the HTTP error classification
 * that tells the workflow which failures are fatal and which Temporal should retry.
 */
import { ApplicationFailure, CancelledFailure, Context } from '@temporalio/activity';
import OpenAI, { APIConnectionError, APIConnectionTimeoutError, APIError } from 'openai';
import type { ChatCompletion, ChatCompletionCreateParamsNonStreaming } from 'openai/resources/chat/completions';
import type { ResolvedModel } from '../core/graph/types';
import { encodeHeaderValue, FAILURE_TYPES, TROUPE_HEADERS, type LlmFailureDetails } from '../core/llm/contract';
import type { TokenCounts } from '../core/conditions/view';
import { checkModelEndpoint, endpointPolicy, ENDPOINT_SETTINGS, workerBaseUrl, type EndpointPolicy } from './endpoints';
import type { LlmEndpointOptions } from './endpoints';
import { callIdOf } from './identity';
import { allowedPrefixFetch, redirectPrefixes, redirectRefusal } from './redirects';
import { ACTIVITY_TEXTS } from './texts';
import { observeModelCall } from '../telemetry/tracing';

export type { LlmEndpointOptions } from './endpoints';

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
} as const;



const FATAL_STATUSES = new Set([400, 401, 403, 404, 422]);

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
  return sharedClient(baseURL, apiKey || LLM_DEFAULTS.noApiKey, redirectPrefixes(baseURL, policy));
}

/** Clients by endpoint and key: a client holds no state of a request, and building one per call cost ~0.1 ms (BENCHMARKS.md, B1). */
const clients = new Map<string, OpenAI>();
/** Endpoint and key pairs a worker keeps clients for (a worker talks to a handful). */
const MAX_CLIENTS = 32;

function sharedClient(baseURL: string | undefined, apiKey: string, prefixes: string[]): OpenAI {
  const key = `${baseURL ?? ''}\u0000${apiKey}\u0000${prefixes.join('\u0000')}`;
  let client = clients.get(key);
  if (!client) {
    if (clients.size >= MAX_CLIENTS) clients.clear();
    client = new OpenAI({ baseURL, apiKey, maxRetries: 0, timeout: 60_000, fetch: allowedPrefixFetch(prefixes) });
    clients.set(key, client);
  }
  return client;
}

/** The requests of one activity execution: who makes them and the deadline they share. */
interface LlmCallScope {
  kind: LlmKind;
  agent: string;
  workflowId: string;
  /** Epoch ms by which the activity's start-to-close timeout expires. */
  deadlineMs: number;
  /** The activity's start-to-close timeout: the role's `timeout_ms`, for messages. */
  timeoutMs?: number;
}

/** Opens the scope of one activity execution; call it first thing in the activity. */
export function openCallScope(kind: LlmKind, agent: string, workflowId: string, fallbackTimeoutMs: number): LlmCallScope {
  const startToClose = Context.current().info.startToCloseTimeoutMs;
  const budget = startToClose > 0 ? startToClose : fallbackTimeoutMs;
  return { kind, agent, workflowId, deadlineMs: Date.now() + budget, timeoutMs: budget };
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
}

/**
 * Sends one chat-completions request within the scope's deadline, heartbeating while it is in flight.
 * Throws the activity's CancelledFailure when cancelled, else a classified ApplicationFailure.
 */
export async function chatCompletion(
  client: OpenAI,
  body: ChatCompletionCreateParamsNonStreaming,
  scope: LlmCallScope,
): Promise<ChatResponse> {
  return observeModelCall(scope, client.baseURL, body, () => sendChatCompletion(client, body, scope));
}

/** {@link chatCompletion}'s request, in its `chat` span when the worker traces (src/telemetry/tracing.ts). */
async function sendChatCompletion(client: OpenAI, body: ChatCompletionCreateParamsNonStreaming, scope: LlmCallScope): Promise<ChatResponse> {
  const ctx = Context.current();
  const info = ctx.info;
  const timeout = requestTimeoutMs(scope.deadlineMs, Date.now());
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
  // the first beat waits one interval: a call answered sooner costs the server no heartbeat, and a
  // cancellation still reaches a longer call within an interval or two (BENCHMARKS.md, B1)
  const beat = setInterval(() => ctx.heartbeat(), LLM_DEFAULTS.heartbeatIntervalMs);
  try {
    // the raw response, read here, so a body that is cut off, not JSON or an error object is
    // classified with its status and request id (docs/semantics.md, "Agent calls")
    const response = await client.chat.completions
      .create(body, {
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
    const data = await readCompletion(response, scope);
    return { completion: data, requestId: response.headers.get('x-request-id') ?? undefined, usage: usageOf(data) };
  } catch (err) {
    if (ctx.cancellationSignal.aborted) throw cancelledFailure(ctx.cancellationSignal.reason);
    if (err instanceof ApplicationFailure) throw err;
    if (timedOut) throw timeoutFailure(scope, timeout);
    throw classifyLlmError(err, scope, timeout, Date.now());
  } finally {
    clearInterval(beat);
    clearTimeout(timer);
    ctx.cancellationSignal.removeEventListener('abort', onCancel);
  }
}

/** The start of a body, for a diagnostic: at most 200 characters on one line. */
function snippet(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > 200 ? `${line.slice(0, 200)}…` : line;
}

/** An HTTP status carried in a 200's `error` object (`code` or `status`, a number or a numeric string). */
function embeddedStatus(error: Record<string, unknown>): number | undefined {
  for (const v of [error.code, error.status]) {
    const n = typeof v === 'number' ? v : typeof v === 'string' && /^\d{3}$/.test(v) ? Number(v) : NaN;
    if (Number.isInteger(n) && n >= 400 && n <= 599) return n;
  }
  return undefined;
}

/**
 * Reads a successful response's body as a completion. A body cut off while it is read is a
 * connection error; a body that is not JSON, a JSON `error` object (some gateways answer 200 with
 * one) and a completion without a choice are failures with the response's status and request id:
 * retried, except an error object whose code is a status that cannot succeed (400, 401, 403, 404,
 * 422), which fails at once like that status would.
 */
async function readCompletion(response: Response, scope: Pick<LlmCallScope, 'kind' | 'agent'>): Promise<ChatCompletion> {
  const { kind, agent } = scope;
  const requestId = response.headers.get('x-request-id') ?? undefined;
  const status = response.status;
  const retryable = (message: string, detail: string, at = status) =>
    ApplicationFailure.create({ type: FAILURE_TYPES.retryable, message, details: [details(kind, detail, at, requestId)] });
  let text: string;
  try {
    text = await response.text();
  } catch (err) {
    if (errorLike(err) && err.name === 'AbortError') throw err;
    const why = ACTIVITY_TEXTS.llm.bodyCutOff(errorText(err));
    throw retryable(ACTIVITY_TEXTS.llm.connection(kind, agent, why), why);
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    const why = ACTIVITY_TEXTS.llm.notJson(status, response.headers.get('content-type') ?? 'no content type', snippet(text));
    throw retryable(ACTIVITY_TEXTS.llm.malformedBody(kind, agent, why, requestId), why);
  }
  const completion = data as ChatCompletion & { error?: unknown };
  if (!Array.isArray(completion?.choices) && completion?.error && typeof completion.error === 'object') {
    const error = completion.error as Record<string, unknown>;
    const message = typeof error.message === 'string' && error.message.trim() ? snippet(error.message) : ACTIVITY_TEXTS.llm.noMessage;
    const at = embeddedStatus(error) ?? status;
    const text = ACTIVITY_TEXTS.llm.http(kind, agent, at, message, requestId);
    if (FATAL_STATUSES.has(at)) {
      throw ApplicationFailure.create({ type: FAILURE_TYPES.fatal, nonRetryable: true, message: text, details: [details(kind, message, at, requestId)] });
    }
    throw retryable(text, message, at);
  }
  if (!Array.isArray(completion?.choices) || completion.choices[0]?.message === undefined) {
    throw retryable(ACTIVITY_TEXTS.llm.malformed(kind, agent, requestId), ACTIVITY_TEXTS.llm.noChoice);
  }
  return completion;
}

/** An error's message and its cause's (errors of Node's own fetch may come from another realm: read by shape). */
function errorText(err: unknown): string {
  if (!errorLike(err)) return String(err);
  const cause = errorLike(err.cause) && err.cause.message ? ` (${err.cause.message})` : '';
  return `${err.message}${cause}`;
}

function cancelledFailure(reason: unknown): CancelledFailure {
  return reason instanceof CancelledFailure ? reason : new CancelledFailure('CANCELLED');
}

function details(kind: LlmKind, message: string, status?: number, requestId?: string): LlmFailureDetails {
  return {
    kind,
    message,
    ...(status !== undefined ? { status } : {}),
    ...(requestId ? { requestId } : {}),
  };
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

function errorLike(value: unknown): value is Error & { code?: unknown } {
  return typeof value === 'object' && value !== null && typeof (value as Error).message === 'string';
}

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

/** Token usage reported by one completion (zeros when the endpoint reports none). */
function usageOf(completion: ChatCompletion): TokenCounts {
  const prompt = completion.usage?.prompt_tokens ?? 0;
  const output = completion.usage?.completion_tokens ?? 0;
  return { promptTokens: prompt, completionTokens: output, totalTokens: completion.usage?.total_tokens ?? prompt + output };
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
