/**
 * Serves troupe's built-in offline model over the OpenAI chat-completions HTTP API on localhost, so
 * the demo exercises the real agent activities (the `openai` package, HTTP, retries) with no API
 * key. The replies themselves come from `offline-replies.ts`; its tool calls from `offline-tools.ts`
 * (worker tools) and `offline-handoffs.ts` (`transfer_to_<target>`); a selector team's choices
 * from `offline-selector.ts`. The `x-troupe-kind` header tells agent, judge, compaction and
 * selector requests apart. A request with `stream: true` gets the same reply as server-sent chunks
 * (`stream-chunks.ts`), paced by `chunkDelayMs`, so `troupe dev` shows agents writing.
 */
import * as http from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { decodeHeaderValue, TROUPE_HEADERS } from '../core/llm/contract';
import { isTransferTool, offlineTransfer, type OfflineTransfer } from './offline-handoffs';
import { agentNameOf, agentPromptOf, OFFLINE_TEXTS, offlineReply, topicOf, type OfflineKind, type OfflineRequest } from './offline-replies';
import { offlineToolAnswer, offlineToolCalls, type OfflineToolRequest } from './offline-tools';
import { completionChunks, sseEvent, wantsStream, wantsUsage, type CompletionShape } from './stream-chunks';

/**
 * A running offline model; `url` is the base URL for `OPENAI_BASE_URL` (ends in `/v1`).
 * @internal exported for tests
 */
export interface OfflineModel {
  url: string;
  port: number;
  close(): Promise<void>;
}

/** Options of {@link startOfflineModel}. */
interface OfflineModelOptions {
  /** Default: a free port. */
  port?: number;
  /** Default `127.0.0.1`; the model never listens beyond localhost unless asked. */
  host?: string;
  /** Wait between the chunks of a streamed reply (default 0: as fast as the socket takes them). */
  chunkDelayMs?: number;
}

/** How the offline model splits a streamed reply. */
const OFFLINE_STREAM = { chunkChars: 12 } as const;

const CHAT_PATHS = new Set(['/v1/chat/completions', '/chat/completions']);

/** A troupe header's value, decoded (the activities percent-encode them so any agent name fits). */
function header(req: http.IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  const raw = Array.isArray(v) ? v[0] : v;
  return raw === undefined ? undefined : decodeHeaderValue(raw);
}

function text(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content.map((p) => (p && typeof p === 'object' && 'text' in p ? String(p.text) : '')).join('');
  }
  return '';
}

function tokens(chars: number): number {
  return Math.max(1, Math.ceil(chars / 4));
}

/** Starts the offline model on localhost. */
export async function startOfflineModel(opts: OfflineModelOptions = {}): Promise<OfflineModel> {
  let seq = 0;
  const server = http.createServer((req, res) => {
    const n = ++seq;
    const send = (status: number, body: unknown) => {
      const payload = JSON.stringify(body);
      res.writeHead(status, {
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(payload),
        'x-request-id': `offline_${n}`,
      });
      res.end(payload);
    };
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = new URL(req.url ?? '/', 'http://offline').pathname;
      if (req.method === 'GET' && (path === '/v1/models' || path === '/models')) {
        return send(200, { object: 'list', data: [{ id: OFFLINE_TEXTS.modelName, object: 'model', owned_by: 'troupe' }] });
      }
      if (req.method !== 'POST' || !CHAT_PATHS.has(path)) {
        return send(404, apiError(`${OFFLINE_TEXTS.label} no route ${req.method} ${path}`));
      }
      let body: Record<string, any>;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
      } catch {
        return send(400, apiError(`${OFFLINE_TEXTS.label} request body is not JSON`));
      }
      const rawKind = header(req, TROUPE_HEADERS.kind);
      const kind: OfflineKind = rawKind === 'judge' || rawKind === 'compaction' || rawKind === 'selector' ? rawKind : 'agent';
      const messages = Array.isArray(body.messages)
        ? body.messages.map((m: { role?: unknown; content?: unknown }) => ({ role: String(m?.role ?? ''), content: text(m?.content) }))
        : [];
      const request: OfflineRequest = {
        agent: header(req, TROUPE_HEADERS.agent),
        kind,
        messages,
        responseFormat: body.response_format,
      };
      const toolRequest = kind === 'agent' ? offlineToolRequest(request, body) : undefined;
      // worker tools first; then, offered transfer tools, the model may hand off (offline-handoffs.ts)
      const worked = toolRequest ? offlineToolCalls(toolRequest) : undefined;
      const transfer = !worked && toolRequest ? transferOf(request, body) : undefined;
      const calls = worked ?? (transfer ? [{ name: transfer.tool, arguments: { message: transfer.message } }] : undefined);
      const content = worked ? null : (transfer?.text ?? (toolRequest && offlineToolAnswer(toolRequest)) ?? offlineReply(request));
      const toolCalls = calls?.map((c, i) => ({
        id: `call_offline_${n}_${i}`,
        type: 'function' as const,
        function: { name: c.name, arguments: JSON.stringify(c.arguments) },
      }));
      const promptChars = messages.reduce((sum: number, m: { content: string }) => sum + m.content.length, 0);
      const usage = { prompt_tokens: tokens(promptChars), completion_tokens: tokens((content ?? JSON.stringify(toolCalls)).length) };
      const completion: CompletionShape = {
        id: `chatcmpl-offline-${n}`,
        object: 'chat.completion',
        created: Math.floor(Date.now() / 1000),
        model: typeof body.model === 'string' && body.model ? body.model : OFFLINE_TEXTS.modelName,
        system_fingerprint: OFFLINE_TEXTS.modelName,
        choices: [
          {
            index: 0,
            message: { role: 'assistant', content, refusal: null, ...(toolCalls ? { tool_calls: toolCalls } : {}) },
            finish_reason: toolCalls ? 'tool_calls' : 'stop',
            logprobs: null,
          },
        ],
        usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
      };
      if (!wantsStream(body)) return send(200, completion);
      const events = completionChunks(completion, { chunkChars: OFFLINE_STREAM.chunkChars, includeUsage: wantsUsage(body) });
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'x-request-id': `offline_${n}` });
      void streamChunks(res, events, opts.chunkDelayMs ?? 0);
    });
  });
  server.listen(opts.port ?? 0, opts.host ?? '127.0.0.1');
  await once(server, 'listening');
  const { port, address } = server.address() as AddressInfo;
  const host = address.includes(':') ? `[${address}]` : address;
  return {
    url: `http://${host}:${port}/v1`,
    port,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Writes the chunks and `[DONE]`, waiting `delayMs` between chunks; stops when the client goes away. */
async function streamChunks(res: http.ServerResponse, chunks: Array<Record<string, unknown>>, delayMs: number): Promise<void> {
  for (const [i, chunk] of chunks.entries()) {
    if (delayMs > 0 && i > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
    if (res.destroyed) return;
    res.write(sseEvent(chunk));
  }
  if (!res.destroyed) res.end(sseEvent('[DONE]'));
}

function apiError(message: string) {
  return { error: { message, type: 'invalid_request_error', param: null, code: null } };
}

/** The offered tools of a request, each with its name, description and parameters. */
function offeredTools(body: Record<string, any>): Array<{ name: string; description: string; parameters?: unknown }> {
  return Array.isArray(body.tools)
    ? body.tools.map((t: any) => ({ name: String(t?.function?.name ?? ''), description: String(t?.function?.description ?? ''), parameters: t?.function?.parameters }))
    : [];
}

/** The transfer of this reply, when transfer tools are offered and may be called (not on the closing call). */
function transferOf(request: OfflineRequest, body: Record<string, any>): OfflineTransfer | undefined {
  const transfers = offeredTools(body).filter(isTransferTool);
  if (transfers.length === 0 || body.tool_choice === 'none') return undefined;
  const view = agentPromptOf(request);
  const user = request.messages.find((m) => m.role === 'user')?.content ?? '';
  return offlineTransfer(agentNameOf(request), topicOf(user), view, transfers);
}

/** The tool side of a request: the worker tools offered (not transfers) and the tool rounds so far (assistant calls, then their results). */
function offlineToolRequest(request: OfflineRequest, body: Record<string, any>): OfflineToolRequest {
  const tools = offeredTools(body)
    .filter((t) => !isTransferTool(t))
    .map((t) => ({ name: t.name, parameters: t.parameters }));
  const rounds: OfflineToolRequest['rounds'] = [];
  const byId = new Map<string, { name: string; arguments: string; result: string }>();
  for (const m of Array.isArray(body.messages) ? body.messages : []) {
    if (m?.role === 'assistant' && Array.isArray(m.tool_calls)) {
      const round = m.tool_calls.map((c: any) => ({ name: String(c?.function?.name ?? ''), arguments: String(c?.function?.arguments ?? ''), result: '' }));
      m.tool_calls.forEach((c: any, i: number) => byId.set(String(c?.id), round[i]));
      rounds.push(round);
    } else if (m?.role === 'tool') {
      const call = byId.get(String(m.tool_call_id));
      if (call) call.result = text(m.content);
    }
  }
  const user = request.messages.filter((m) => m.role === 'user').map((m) => m.content).join('\n');
  return { agent: request.agent ?? 'agent', topic: topicOf(user), tools, toolChoice: body.tool_choice, rounds };
}
