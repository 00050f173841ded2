/**
 * Types of the HTTP OpenAI-compatible stub (`stub-llm.ts`): scripted steps, recorded requests and
 * the stub's API. Re-exported by `stub-llm.ts`; import from there.
 */
import type * as http from 'node:http';

/** Which activity sent a request (`x-troupe-kind`; `agent` when absent). */
export type StubKind = 'agent' | 'judge' | 'compaction' | 'selector';

/** A tool call the stub returns in OpenAI format. */
export interface StubToolCall {
  name: string;
  /** Object (serialized to JSON) or the raw JSON string the model would send. */
  arguments: string | Record<string, unknown>;
  id?: string;
}

/**
 * How the stub answers a request with `stream: true` (server-sent chunks of the reply it would send
 * in one piece; the usage chunk when `stream_options.include_usage` asks for it).
 */
export interface StubStreamOptions {
  /** Answer `stream: true` with HTTP 400 naming `stream`, as an endpoint without streaming does. */
  refuse?: boolean;
  /** Characters of content, refusal or arguments per chunk (default 16). */
  chunkChars?: number;
  /** Wait before each chunk after the first; a client abort during the wait is recorded. */
  chunkDelayMs?: number;
  /** Send several tool calls' fragments interleaved (0, 1, 0, 1, ...) instead of one call after another. */
  interleaveToolCalls?: boolean;
  /** Send the usage chunk when it is asked for (default true). */
  usage?: boolean;
  /** After this many chunks, hold the stream open (no `[DONE]`) until the client aborts or the stub closes. */
  hangAfterChunks?: number;
  /** After this many chunks, reset the connection: a stream cut off. */
  cutAfterChunks?: number;
}

/**
 * A reply without end (docs/semantics.md, "Bounds on hostile input"), written lazily as fast as the
 * client reads it, until the client goes away, `totalBytes` are written, or the stub closes:
 * - `stream`: server-sent events of `chunkBytes` of content each, never a `[DONE]`;
 * - `event`: one `data:` line that never ends, `chunkBytes` at a time (one event without a newline);
 * - `whole`: an `application/json` completion whose content never closes (a body not streamed).
 */
export interface StubEndless {
  shape: 'stream' | 'event' | 'whole';
  /** Bytes written at a time (default 64 KiB). */
  chunkBytes?: number;
  /** Stop writing (and end the response) after this many bytes (default: never). */
  totalBytes?: number;
}

/** One scripted reply. An empty step `{}` gives the default reply for the request. */
export interface StubStep {
  text?: string | ((req: StubRequest) => string);
  toolCalls?: StubToolCall[];
  /** HTTP status; >= 400 sends an OpenAI error body. */
  status?: number;
  /** Raw error body (object → JSON) replacing the default OpenAI error shape. */
  errorBody?: unknown;
  errorMessage?: string;
  errorType?: string;
  errorCode?: string;
  /** Seconds (or a raw header value) for `Retry-After`. */
  retryAfter?: number | string;
  headers?: Record<string, string>;
  /** Wait before answering; a client abort during the wait is recorded. */
  delayMs?: number;
  usage?: { prompt_tokens: number; completion_tokens: number };
  /**
   * The `usage` value sent exactly as given instead of `usage` (any JSON value, `null` included), as
   * an endpoint reporting nonsense does (`{prompt_tokens: -5}`, `"00NaN"`); a stream carries it in its
   * usage chunk (none when it is falsy).
   */
  rawUsage?: unknown;
  finishReason?: string;
  model?: string;
  /** Never answer: the request stays open until the client aborts or the stub closes. */
  hang?: boolean;
  /** Destroy the connection without an answer (a connection error for the client). */
  dropConnection?: boolean;
  /**
   * A body sent as it is instead of the completion (status default 200): a string goes out verbatim
   * (`contentType` default `application/json`, so it can be cut-off or non-JSON text), anything else
   * as JSON (`{choices: []}`, `{error: {...}}`).
   */
  body?: unknown;
  /** Content type of `body` (default `application/json`). */
  contentType?: string;
  /**
   * Send the status line, the headers (with the full `content-length`) and only this share (0..1) of
   * the body, then reset the connection: a response cut off mid-body.
   */
  resetMidBody?: number;
  /** Streaming options of this reply, over the stub's own ({@link StubLlmOptions.stream}). */
  stream?: StubStreamOptions;
  /** Answer with a reply without end instead (streamed or not as its shape says, whatever the request asked). */
  endless?: StubEndless;
}

/** A dynamic reply: return a step, or undefined to fall through to the next responder / default. */
export type StubResponder = (req: StubRequest) => StubStep | undefined | Promise<StubStep | undefined>;

/** One recorded request, updated in place as it completes or is aborted. */
export interface StubRequest {
  /** 1-based sequence number across the stub's life; `id` is `req_<n>`, sent as `x-request-id`. */
  n: number;
  id: string;
  method: string;
  path: string;
  agent: string;
  kind: StubKind;
  /** Script key of this request: `agent` or `kind:agent`. */
  key: string;
  /** The run (`x-troupe-workflow-id`), the call (`x-troupe-call-id`, one per activity) and its attempt (`x-troupe-attempt`). */
  workflowId?: string;
  callId?: string;
  attempt?: number;
  headers: http.IncomingHttpHeaders;
  /** Parsed JSON body (undefined until read, or when it is not JSON). */
  body: any;
  model?: string;
  messages: Array<{ role: string; content: string }>;
  /** All message contents joined by blank lines: handy for `toContain` assertions on prompts. */
  prompt: string;
  responseFormat?: unknown;
  tools?: unknown[];
  /** Epoch ms. */
  startedAt: number;
  endedAt?: number;
  /** True when the client closed the connection before the response was fully sent. */
  aborted: boolean;
  abortedAt?: number;
  status?: number;
  /** Parsed JSON body the stub sent. */
  responseBody?: any;
  /** Epoch ms at which the stub sent its response (or its first bytes); unset when it never answered. */
  respondedAt?: number;
  /** Ids (`n`) of the requests in flight when this one started, itself included. */
  inFlightAtStart: number[];
  /** Whether the reply went out as server-sent events. */
  streamed: boolean;
  /** Chunks of the streamed reply written so far. */
  chunks: number;
  /** Epoch ms at which the first chunk with content was written. */
  firstTextAt?: number;
  /** Bytes of an endless reply ({@link StubEndless}) written so far. */
  bytesWritten: number;
}

/** Filter for hits/requests: a script key (see file doc) or a predicate. */
export type StubFilter = string | ((req: StubRequest) => boolean);

/** Options of {@link startStubLlm}. */
export interface StubLlmOptions {
  port?: number;
  /** Default model name in responses when the request names none. */
  model?: string;
  /** How streamed requests are answered (default: streamed, 16 characters a chunk, no delay). */
  stream?: StubStreamOptions;
}

/** The running stub. */
export interface StubLlm {
  /** Base URL for the openai client, ending in `/v1`. */
  url: string;
  port: number;
  /** Every request received, in arrival order. */
  readonly requests: StubRequest[];
  /** Replaces the script of `key`; steps are consumed in order and the last one repeats. */
  script(key: string, steps: Array<StubStep | StubResponder>): void;
  /** Replaces the stub's streaming options (steps may still override them). */
  setStream(opts: StubStreamOptions): void;
  /** Adds a dynamic responder, consulted after the scripts and before the default reply. */
  respond(fn: StubResponder): void;
  requestsFor(filter?: StubFilter): StubRequest[];
  hits(filter?: StubFilter): number;
  /** Requests of the filter currently open. */
  inFlight(filter?: StubFilter): number;
  /** Largest number of requests of the filter that were open at the same moment. */
  maxConcurrent(filter?: StubFilter): number;
  /** Polls until `pred` holds; rejects with `message` after `timeoutMs` (default 15 s). */
  waitFor(pred: () => boolean, opts?: { timeoutMs?: number; message?: string }): Promise<void>;
  /** Waits until at least `count` requests of the filter have arrived. */
  waitForRequests(count: number, filter?: StubFilter, timeoutMs?: number): Promise<StubRequest[]>;
  /** Forgets scripts, responders and recorded requests (request numbering continues). */
  reset(): void;
  /** Closes open connections (hanging requests included) and the server. */
  close(): Promise<void>;
}
