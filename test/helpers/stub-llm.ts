/**
 * A real HTTP OpenAI-compatible chat-completions stub for server tests (node:http, no framework).
 * Tests script replies per agent and per kind (agent/judge/compaction, from the `x-troupe-*` headers
 * the activities send), and assert on what reached the wire: bodies, hits, overlap, aborts.
 *
 * Keys: `'critic'` = agent requests of critic, `'judge:critic'` / `'compaction:critic'` = that
 * agent's judge / compaction requests, `'*'`, `'judge:*'`, `'compaction:*'` = any agent of a kind.
 */
import * as http from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { decodeHeaderValue, TROUPE_HEADERS } from '../../src/core/llm/contract';
import { completionChunks, sseEvent, wantsStream, wantsUsage, type CompletionShape } from '../../src/dev/stream-chunks';

export type {
  StubKind,
  StubToolCall,
  StubStep,
  StubResponder,
  StubRequest,
  StubFilter,
  StubLlmOptions,
  StubLlm,
  StubStreamOptions,
  StubEndless,
} from './stub-llm-types';
import type { StubEndless, StubKind, StubLlm, StubLlmOptions, StubFilter, StubRequest, StubResponder, StubStep, StubStreamOptions } from './stub-llm-types';

/** Default reply texts, kept together so tests can pin them. */
export const STUB_DEFAULTS = {
  agentText: (agent: string, hit: number) => `${agent} reply ${hit}`,
  judgeVerdict: { converged: false, reason: 'stub default verdict' },
  compactionText: (agent: string) => `summary of earlier turns of ${agent}`,
  /** The selector names the first candidate of the last `['a', 'b']` list in its prompt. */
  selectorText: (prompt: string) => /\['([^']*)'/.exec([...prompt.matchAll(/\[('[^\]]*')\]/g)].at(-1)?.[0] ?? '')?.[1] ?? 'nobody',
  model: 'stub-model',
} as const;

const CHAT_PATHS = new Set(['/v1/chat/completions', '/chat/completions']);

/** Parses a script/filter key into kind and agent (`*` = any agent). */
export function parseStubKey(key: string): { kind: StubKind; agent: string } {
  const i = key.indexOf(':');
  if (i < 0) return { kind: 'agent', agent: key };
  const kind = key.slice(0, i);
  if (kind !== 'agent' && kind !== 'judge' && kind !== 'compaction' && kind !== 'selector') {
    throw new Error(`stub key "${key}": kind must be agent, judge, compaction or selector`);
  }
  return { kind, agent: key.slice(i + 1) };
}

function matcher(filter?: StubFilter): (r: StubRequest) => boolean {
  if (filter === undefined) return () => true;
  if (typeof filter === 'function') return filter;
  const { kind, agent } = parseStubKey(filter);
  return (r) => r.kind === kind && (agent === '*' || r.agent === agent);
}

function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content.map((p) => (p && typeof p === 'object' && 'text' in p ? String(p.text) : '')).join('');
  }
  return content == null ? '' : JSON.stringify(content);
}

function estimateTokens(chars: number): number {
  return Math.max(1, Math.ceil(chars / 4));
}

function errorType(status: number): string {
  if (status === 401) return 'authentication_error';
  if (status === 403) return 'permission_error';
  if (status === 404) return 'not_found_error';
  if (status === 429) return 'rate_limit_error';
  if (status >= 500) return 'server_error';
  return 'invalid_request_error';
}

/** Starts the stub on 127.0.0.1 (a free port unless `port` is given). */
export async function startStubLlm(opts: StubLlmOptions = {}): Promise<StubLlm> {
  const requests: StubRequest[] = [];
  const scripts = new Map<string, { steps: Array<StubStep | StubResponder>; next: number }>();
  let responders: StubResponder[] = [];
  const open = new Set<StubRequest>();
  const closers = new Set<() => void>();
  let seq = 0;
  let streaming: StubStreamOptions = opts.stream ?? {};

  const pickStep = async (req: StubRequest): Promise<StubStep> => {
    for (const key of [`${req.kind}:${req.agent}`, `${req.kind}:*`]) {
      const s = scripts.get(key);
      if (s && s.steps.length > 0) {
        const item = s.steps[Math.min(s.next, s.steps.length - 1)];
        s.next++;
        const step = typeof item === 'function' ? await item(req) : item;
        if (step) return step;
      }
    }
    for (const fn of responders) {
      const step = await fn(req);
      if (step) return step;
    }
    return {};
  };

  const defaultText = (req: StubRequest): string => {
    switch (req.kind) {
      case 'agent':
        return STUB_DEFAULTS.agentText(req.agent, requests.filter(matcher(req.key)).indexOf(req) + 1);
      case 'judge':
        return JSON.stringify(STUB_DEFAULTS.judgeVerdict);
      case 'compaction':
        return STUB_DEFAULTS.compactionText(req.agent);
      case 'selector':
        return STUB_DEFAULTS.selectorText(req.messages[0]?.content ?? '');
      default: {
        const never: never = req.kind;
        return never;
      }
    }
  };

  const send = (
    res: http.ServerResponse,
    rec: StubRequest,
    status: number,
    body: unknown,
    extra: Record<string, string> = {},
    shape: { raw?: boolean; contentType?: string; resetMidBody?: number } = {},
  ) => {
    if (res.destroyed) return;
    rec.status = status;
    rec.responseBody = body;
    rec.respondedAt = Date.now();
    const payload = shape.raw && typeof body === 'string' ? body : JSON.stringify(body);
    res.writeHead(status, {
      'content-type': shape.contentType ?? 'application/json',
      'content-length': Buffer.byteLength(payload),
      'x-request-id': rec.id,
      ...extra,
    });
    if (shape.resetMidBody === undefined) {
      res.end(payload);
      return;
    }
    const bytes = Buffer.from(payload);
    res.write(bytes.subarray(0, Math.floor(bytes.length * shape.resetMidBody)), () => res.socket?.resetAndDestroy());
  };

  /** Resolves after `ms` or when the client goes away, whichever comes first. */
  const wait = (res: http.ServerResponse, ms: number | undefined) =>
    new Promise<void>((resolve) => {
      if (res.destroyed) return resolve();
      const done = () => {
        if (timer) clearTimeout(timer);
        res.removeListener('close', done);
        closers.delete(done);
        resolve();
      };
      const timer = ms === undefined ? undefined : setTimeout(done, ms);
      res.once('close', done);
      closers.add(done);
    });

  const handle = async (req: http.IncomingMessage, res: http.ServerResponse) => {
    const n = ++seq;
    const url = new URL(req.url ?? '/', 'http://stub');
    const agentHeader = req.headers[TROUPE_HEADERS.agent];
    const kindHeader = req.headers[TROUPE_HEADERS.kind];
    const agent = decodeHeaderValue((Array.isArray(agentHeader) ? agentHeader[0] : agentHeader) ?? '') || 'anonymous';
    const rawKind = decodeHeaderValue((Array.isArray(kindHeader) ? kindHeader[0] : kindHeader) ?? '');
    const kind: StubKind = rawKind === 'judge' || rawKind === 'compaction' || rawKind === 'selector' ? rawKind : 'agent';
    const header = (name: string) => {
      const value = req.headers[name];
      const text = Array.isArray(value) ? value[0] : value;
      return text === undefined ? undefined : decodeHeaderValue(text);
    };
    const attempt = header(TROUPE_HEADERS.attempt);
    const rec: StubRequest = {
      n,
      id: `req_${n}`,
      method: req.method ?? 'GET',
      path: url.pathname,
      agent,
      kind,
      key: kind === 'agent' ? agent : `${kind}:${agent}`,
      workflowId: header(TROUPE_HEADERS.workflowId),
      callId: header(TROUPE_HEADERS.callId),
      attempt: attempt === undefined ? undefined : Number(attempt),
      headers: req.headers,
      body: undefined,
      messages: [],
      prompt: '',
      startedAt: Date.now(),
      aborted: false,
      inFlightAtStart: [],
      streamed: false,
      chunks: 0,
      bytesWritten: 0,
    };
    open.add(rec);
    rec.inFlightAtStart = [...open].map((r) => r.n);
    requests.push(rec);
    let dropped = false;
    res.on('close', () => {
      open.delete(rec);
      rec.endedAt = Date.now();
      if (!res.writableFinished && !dropped) {
        rec.aborted = true;
        rec.abortedAt = rec.endedAt;
      }
    });

    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');

    if (rec.method === 'GET' && (url.pathname === '/v1/models' || url.pathname === '/models')) {
      return send(res, rec, 200, { object: 'list', data: [{ id: opts.model ?? STUB_DEFAULTS.model, object: 'model' }] });
    }
    if (rec.method !== 'POST' || !CHAT_PATHS.has(url.pathname)) {
      return send(res, rec, 404, openAiError(`stub: no route ${rec.method} ${url.pathname}`, 'invalid_request_error'));
    }
    try {
      rec.body = raw ? JSON.parse(raw) : {};
    } catch {
      return send(res, rec, 400, openAiError('stub: request body is not JSON', 'invalid_request_error'));
    }
    const body = rec.body ?? {};
    rec.model = typeof body.model === 'string' ? body.model : undefined;
    rec.messages = Array.isArray(body.messages)
      ? body.messages.map((m: { role?: unknown; content?: unknown }) => ({
          role: String(m?.role ?? ''),
          content: contentText(m?.content),
        }))
      : [];
    rec.prompt = rec.messages.map((m) => m.content).join('\n\n');
    rec.responseFormat = body.response_format;
    rec.tools = Array.isArray(body.tools) ? body.tools : undefined;

    const step = await pickStep(rec);
    const stream = { ...streaming, ...(step.stream ?? {}) };
    if (stream.refuse && wantsStream(body)) {
      return send(res, rec, 400, openAiError('stream is not supported by this endpoint', 'invalid_request_error', null, 'stream'));
    }
    // a reset the stub makes is not a client abort
    if (step.resetMidBody !== undefined) dropped = true;
    if (step.dropConnection) {
      dropped = true;
      req.socket.destroy();
      return;
    }
    if (step.hang) {
      await wait(res, undefined);
      return;
    }
    if (step.delayMs) await wait(res, step.delayMs);
    if (res.destroyed) return;
    if (step.endless) return sendEndless(res, rec, step.endless);

    const extra: Record<string, string> = { ...(step.headers ?? {}) };
    if (step.retryAfter !== undefined) extra['retry-after'] = String(step.retryAfter);
    const status = step.status ?? 200;
    if (status >= 400) {
      const errBody =
        step.errorBody ??
        openAiError(step.errorMessage ?? `stub error ${status}`, step.errorType ?? errorType(status), step.errorCode);
      return send(res, rec, status, errBody, extra);
    }

    if (step.body !== undefined) {
      return send(res, rec, status, step.body, extra, { raw: true, contentType: step.contentType, resetMidBody: step.resetMidBody });
    }

    const text = typeof step.text === 'function' ? step.text(rec) : step.text;
    const toolCalls = step.toolCalls?.map((tc, i) => ({
      id: tc.id ?? `call_${n}_${i + 1}`,
      type: 'function' as const,
      function: {
        name: tc.name,
        arguments: typeof tc.arguments === 'string' ? tc.arguments : JSON.stringify(tc.arguments),
      },
    }));
    const content = text ?? (toolCalls ? null : defaultText(rec));
    const usage = step.usage ?? {
      prompt_tokens: estimateTokens(rec.prompt.length),
      completion_tokens: estimateTokens((content ?? '').length + JSON.stringify(toolCalls ?? '').length),
    };
    const completion: CompletionShape = {
      id: `chatcmpl-${n}`,
      object: 'chat.completion',
      created: Math.floor(rec.startedAt / 1000),
      model: step.model ?? rec.model ?? opts.model ?? STUB_DEFAULTS.model,
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content, refusal: null, ...(toolCalls ? { tool_calls: toolCalls } : {}) },
          finish_reason: step.finishReason ?? (toolCalls ? 'tool_calls' : 'stop'),
          logprobs: null,
        },
      ],
      usage: 'rawUsage' in step ? (step.rawUsage as CompletionShape['usage']) : { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
    };
    if (!wantsStream(body)) return send(res, rec, status, completion, extra, { resetMidBody: step.resetMidBody });
    // a reset mid-body cuts a stream after the same share of its chunks
    const cut = stream.cutAfterChunks ?? (step.resetMidBody !== undefined ? Math.floor(completionChunks(completion).length * step.resetMidBody) : undefined);
    await sendStream(res, rec, completion, { ...stream, cutAfterChunks: cut }, wantsUsage(body), extra, () => (dropped = true));
  };

  /** Writes a reply without end ({@link StubEndless}), waiting for the client to read each piece. */
  const sendEndless = async (res: http.ServerResponse, rec: StubRequest, endless: StubEndless) => {
    const size = endless.chunkBytes ?? 64 * 1024;
    const content = 'x'.repeat(size);
    const head = { id: `chatcmpl-${rec.n}`, object: 'chat.completion.chunk', created: Math.floor(rec.startedAt / 1000), model: rec.model ?? STUB_DEFAULTS.model };
    const { opening, piece } = {
      stream: { opening: '', piece: sseEvent({ ...head, choices: [{ index: 0, delta: { content }, finish_reason: null }] }) },
      event: { opening: `data: ${JSON.stringify({ ...head, choices: [{ index: 0, delta: { content: '' } }] }).slice(0, -5)}`, piece: content },
      whole: { opening: JSON.stringify({ ...head, object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content: '' } }] }).slice(0, -5), piece: content },
    }[endless.shape];
    const bytes = Buffer.from(piece);
    rec.status = 200;
    rec.respondedAt = Date.now();
    rec.streamed = endless.shape !== 'whole';
    res.writeHead(200, { 'content-type': endless.shape === 'whole' ? 'application/json' : 'text/event-stream', 'x-request-id': rec.id });
    const write = async (chunk: Buffer | string) => {
      rec.bytesWritten += Buffer.byteLength(chunk);
      if (!res.write(chunk)) await new Promise<void>((resolve) => {
        const done = () => {
          res.removeListener('drain', done);
          res.removeListener('close', done);
          closers.delete(done);
          resolve();
        };
        res.once('drain', done);
        res.once('close', done);
        closers.add(done);
      });
    };
    if (opening) await write(opening);
    while (!res.destroyed && !res.writableEnded && (endless.totalBytes === undefined || rec.bytesWritten < endless.totalBytes)) {
      await write(bytes);
      rec.chunks += 1;
    }
    if (!res.destroyed) res.end();
  };

  /** Sends `completion` as server-sent chunks, with the pacing, hang or cut of `stream`. */
  const sendStream = async (
    res: http.ServerResponse,
    rec: StubRequest,
    completion: CompletionShape,
    stream: StubStreamOptions,
    includeUsage: boolean,
    extra: Record<string, string>,
    drop: () => void,
  ) => {
    const chunks = completionChunks(completion, {
      chunkChars: stream.chunkChars,
      interleaveToolCalls: stream.interleaveToolCalls,
      includeUsage: includeUsage && stream.usage !== false,
    });
    rec.status = 200;
    rec.responseBody = completion;
    rec.respondedAt = Date.now();
    rec.streamed = true;
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'x-request-id': rec.id, ...extra });
    res.flushHeaders();
    for (const chunk of chunks) {
      if (rec.chunks === stream.hangAfterChunks) return wait(res, undefined);
      if (rec.chunks === stream.cutAfterChunks) {
        drop();
        // reset once what was written has left, so the client reads those chunks first
        res.write('', () => res.socket?.resetAndDestroy());
        return;
      }
      if (stream.chunkDelayMs && rec.chunks > 0) await wait(res, stream.chunkDelayMs);
      if (res.destroyed) return;
      res.write(sseEvent(chunk));
      rec.chunks += 1;
      const delta = (chunk.choices as Array<{ delta?: { content?: string } }>)[0]?.delta;
      if (rec.firstTextAt === undefined && delta?.content) rec.firstTextAt = Date.now();
    }
    if (stream.hangAfterChunks !== undefined && rec.chunks <= stream.hangAfterChunks) return wait(res, undefined);
    res.end(sseEvent('[DONE]'));
  };

  const server = http.createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent && !res.destroyed) {
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify(openAiError(`stub crashed: ${String(err)}`, 'server_error')));
      }
    });
  });
  server.keepAliveTimeout = 1000;
  server.listen(opts.port ?? 0, '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as AddressInfo).port;

  const stub: StubLlm = {
    url: `http://127.0.0.1:${port}/v1`,
    port,
    requests,
    script(key, steps) {
      parseStubKey(key);
      scripts.set(key.includes(':') ? key : `agent:${key}`, { steps, next: 0 });
    },
    setStream(o) {
      streaming = o;
    },
    respond(fn) {
      responders.push(fn);
    },
    requestsFor: (filter) => requests.filter(matcher(filter)),
    hits: (filter) => requests.filter(matcher(filter)).length,
    inFlight: (filter) => [...open].filter(matcher(filter)).length,
    maxConcurrent(filter) {
      const match = matcher(filter);
      const byN = new Map(requests.map((r) => [r.n, r]));
      let max = 0;
      for (const r of requests) {
        if (!match(r)) continue;
        const overlap = r.inFlightAtStart.filter((n) => {
          const other = byN.get(n);
          return other !== undefined && match(other);
        }).length;
        max = Math.max(max, overlap);
      }
      return max;
    },
    async waitFor(pred, o = {}) {
      const deadline = Date.now() + (o.timeoutMs ?? 15_000);
      while (!pred()) {
        if (Date.now() > deadline) throw new Error(o.message ?? 'stub.waitFor: condition not met in time');
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    async waitForRequests(count, filter, timeoutMs) {
      await stub.waitFor(() => stub.hits(filter) >= count, {
        timeoutMs,
        message: `stub: expected ${count} request(s) for ${typeof filter === 'string' ? filter : 'filter'}, got ${stub.hits(filter)}`,
      });
      return stub.requestsFor(filter);
    },
    reset() {
      scripts.clear();
      responders = [];
      requests.length = 0;
    },
    async close() {
      for (const done of [...closers]) done();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return stub;
}

/** The error body shape of the OpenAI API. */
export function openAiError(message: string, type: string, code?: string | null, param?: string | null) {
  return { error: { message, type, param: param ?? null, code: code ?? null } };
}

/**
 * A latch for holding stub replies until the test says so, so a test can act while a known call is
 * in flight (send a message, pause, stop) without racing a fixed delay. `hold(step)` is a scripted
 * responder that waits for `open()` and then answers with `step` (default reply when omitted);
 * requests arriving after `open()` are answered at once.
 */
export interface StubGate {
  /** A responder for `stub.script`/`stub.respond` that holds its request until the gate opens. */
  hold(step?: StubStep): StubResponder;
  /** Release every held request (and let later ones through). Idempotent. */
  open(): void;
  readonly isOpen: boolean;
}

/** Create a closed {@link StubGate}. */
export function stubGate(): StubGate {
  let release!: () => void;
  const opened = new Promise<void>((resolve) => (release = resolve));
  let isOpen = false;
  return {
    hold: (step: StubStep = {}) => async () => {
      await opened;
      return step;
    },
    open() {
      isOpen = true;
      release();
    },
    get isOpen() {
      return isOpen;
    },
  };
}
