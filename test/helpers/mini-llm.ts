/**
 * A minimal OpenAI-compatible HTTP server for the activity unit tests: each request is answered by a
 * scripted reply, and the server records what it received and which connections the client aborted.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request as the server saw it. */
export interface SeenRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: any;
}

/** How to answer one request. `hang` never answers (until the client gives up). */
export interface Reply {
  status?: number;
  headers?: Record<string, string>;
  json?: unknown;
  raw?: string;
  delayMs?: number;
  hang?: boolean;
}

/** The server handle used by tests. */
export interface MiniLlm {
  /** Base URL to give the OpenAI client (`http://127.0.0.1:<port>/v1`). */
  url: string;
  requests: SeenRequest[];
  /** Indexes of requests whose connection closed before the reply was sent. */
  aborted: number[];
  /** Resolves when request `index` has arrived. */
  waitForRequest(index: number): Promise<SeenRequest>;
  /** Resolves when the connection of request `index` is closed before its reply finished. */
  waitForAbort(index: number): Promise<void>;
  close(): Promise<void>;
}

/** A chat completion body with one choice. */
export function completion(opts: {
  content?: string | null;
  toolCalls?: Array<{ id?: string; name: string; arguments: unknown }>;
  finishReason?: string;
  usage?: { prompt_tokens: number; completion_tokens: number; total_tokens?: number };
  model?: string;
}): unknown {
  const usage = opts.usage ?? { prompt_tokens: 10, completion_tokens: 5 };
  return {
    id: 'chatcmpl-test',
    object: 'chat.completion',
    created: 1,
    model: opts.model ?? 'mini-model',
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: opts.content === undefined ? (opts.toolCalls ? null : 'ok') : opts.content,
          ...(opts.toolCalls
            ? {
                tool_calls: opts.toolCalls.map((c, i) => ({
                  id: c.id ?? `call_${i}`,
                  type: 'function',
                  function: {
                    name: c.name,
                    arguments: typeof c.arguments === 'string' ? c.arguments : JSON.stringify(c.arguments),
                  },
                })),
              }
            : {}),
        },
        finish_reason: opts.finishReason ?? (opts.toolCalls ? 'tool_calls' : 'stop'),
      },
    ],
    usage: { ...usage, total_tokens: usage.total_tokens ?? usage.prompt_tokens + usage.completion_tokens },
  };
}

/** An OpenAI-shaped error body. */
export function errorBody(message: string, type = 'invalid_request_error'): unknown {
  return { error: { message, type, param: null, code: null } };
}

/** Starts the server; `script(request, index)` decides each reply. */
export async function startMiniLlm(script: (req: SeenRequest, index: number) => Reply | Promise<Reply>): Promise<MiniLlm> {
  const requests: SeenRequest[] = [];
  const aborted: number[] = [];
  const arrivals = new Map<number, () => void>();
  const aborts = new Map<number, () => void>();
  const sockets = new Set<import('node:net').Socket>();

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const seen: SeenRequest = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body: text ? JSON.parse(text) : undefined,
      };
      const index = requests.push(seen) - 1;
      res.on('close', () => {
        if (!res.writableFinished) {
          aborted.push(index);
          aborts.get(index)?.();
        }
      });
      arrivals.get(index)?.();
      void Promise.resolve(script(seen, index)).then(async (reply) => {
        if (reply.hang) return;
        if (reply.delayMs) await new Promise((r) => setTimeout(r, reply.delayMs));
        if (res.destroyed) return;
        const body = reply.raw ?? JSON.stringify(reply.json ?? completion({}));
        res.writeHead(reply.status ?? 200, {
          'content-type': 'application/json',
          'x-request-id': `req_${index + 1}`,
          ...reply.headers,
        });
        res.end(body);
      });
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    aborted,
    waitForRequest: (index) =>
      requests[index]
        ? Promise.resolve(requests[index]!)
        : new Promise((resolve) => arrivals.set(index, () => resolve(requests[index]!))),
    waitForAbort: (index) =>
      aborted.includes(index) ? Promise.resolve() : new Promise((resolve) => aborts.set(index, resolve)),
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
