/**
 * The remote codec endpoint of the Temporal Web UI and CLI (`--codec-endpoint`): `POST /encode` and
 * `POST /decode` take and return `{"payloads":[{"metadata":{k: base64}, "data": base64}]}`. The
 * browser calls it directly from the UI page, so it answers CORS for the UI's origins only; with
 * a token it also requires `Authorization: Bearer <token>`. Whoever reaches it can read every
 * payload, so it binds to 127.0.0.1 unless told otherwise, and to anything but a loopback address
 * only with a token (docs/encryption.md).
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { once } from 'node:events';
import * as http from 'node:http';
import { isIPv4, isIPv6, type AddressInfo } from 'node:net';
import type { Payload, PayloadCodec } from '@temporalio/common';
import { z } from 'zod';
import { CODEC_TEXTS } from './texts';

/** Options of {@link startCodecServer}. */
export interface CodecServerOptions {
  codec: PayloadCodec;
  /** Default 8888; 0 picks a free port. */
  port?: number;
  /** Default 127.0.0.1; anything but a loopback address needs a `token` (see {@link openBindRefusal}). */
  host?: string;
  /** Origins the browser may call from, e.g. `http://localhost:8080` (the Web UI). */
  origins: string[];
  /** When set, every encode/decode needs `Authorization: Bearer <token>`. */
  token?: string;
  /** One line per request (method, path, status, payload count; never payloads or tokens). */
  log?: (line: string) => void;
}

/** A running codec server. */
export interface CodecServer {
  /** Base URL, e.g. `http://127.0.0.1:8888`: the UI's codec endpoint. */
  url: string;
  port: number;
  close(): Promise<void>;
}

/** Defaults of the codec server and the CORS answers it gives. */
export const CODEC_SERVER_DEFAULTS = {
  port: 8888,
  host: '127.0.0.1',
  /** The Web UI of `docker compose` (8080) and of `troupe dev` / `temporal server start-dev` (8233). */
  origins: ['http://localhost:8080', 'http://localhost:8233', 'http://127.0.0.1:8233'],
  maxBodyBytes: 32 * 1024 * 1024,
  allowMethods: 'POST, OPTIONS',
  /** What the UI sends: `X-Namespace` always, `Authorization(-Extras)` with "pass access token". */
  allowHeaders: 'Content-Type, X-Namespace, Authorization, Authorization-Extras',
  preflightMaxAgeSeconds: 600,
} as const;

const base64 = z.string().regex(/^[A-Za-z0-9+/]*={0,2}$/, 'not base64');
const BodySchema = z.object({
  payloads: z.array(
    z.object({
      metadata: z.record(z.string(), base64).nullish(),
      data: base64.nullish(),
    }),
  ),
});
type JsonPayload = z.infer<typeof BodySchema>['payloads'][number];

function fromJson(p: JsonPayload): Payload {
  return {
    metadata: Object.fromEntries(Object.entries(p.metadata ?? {}).map(([k, v]) => [k, Buffer.from(v, 'base64')])),
    data: Buffer.from(p.data ?? '', 'base64'),
  };
}

function toJson(p: Payload): JsonPayload {
  return {
    metadata: Object.fromEntries(Object.entries(p.metadata ?? {}).map(([k, v]) => [k, Buffer.from(v ?? new Uint8Array()).toString('base64')])),
    data: Buffer.from(p.data ?? new Uint8Array()).toString('base64'),
  };
}

const digest = (s: string) => createHash('sha256').update(s).digest();

/** Whether the request carries the bearer token (compared in constant time). */
function authorized(req: http.IncomingMessage, token: string | undefined): boolean {
  if (!token) return true;
  const header = req.headers.authorization ?? '';
  const match = /^Bearer\s+(.+)$/i.exec(header.trim());
  return match !== null && timingSafeEqual(digest(match[1]), digest(token));
}

class HttpError extends Error {
  constructor(readonly status: number, message: string) {
    super(message);
  }
}

async function readBody(req: http.IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > CODEC_SERVER_DEFAULTS.maxBodyBytes) throw new HttpError(413, CODEC_TEXTS.tooLarge(CODEC_SERVER_DEFAULTS.maxBodyBytes));
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function parseBody(raw: string): Payload[] {
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch (e) {
    throw new HttpError(400, CODEC_TEXTS.badBody((e as Error).message));
  }
  const parsed = BodySchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new HttpError(400, CODEC_TEXTS.badBody(`${issue.path.join('.') || 'body'}: ${issue.message}`));
  }
  return parsed.data.payloads.map(fromJson);
}

/**
 * Whether `host` is literally a loopback address: `localhost`, an IPv4 address in 127.0.0.0/8 or the
 * IPv6 `::1`. Decided from the text alone, never by resolving it: `0.0.0.0`, `::`, a LAN address and
 * any other name count as reachable from elsewhere.
 * @internal exported for tests
 */
export function isLoopbackHost(host: string): boolean {
  if (host.toLowerCase() === 'localhost') return true;
  if (isIPv4(host)) return host.startsWith('127.');
  if (!isIPv6(host)) return false;
  try {
    // the URL parser writes an IPv6 address in its shortest form, so every spelling of ::1 is caught
    return new URL(`http://[${host}]`).hostname === '[::1]';
  } catch {
    return false;
  }
}

/**
 * Why the codec server must not listen on `host` with `token`, or undefined when it may: without a
 * token it would decrypt for anyone who reaches it, so it listens beyond loopback only with one.
 */
export function openBindRefusal(host: string, token: string | undefined): string | undefined {
  return token || isLoopbackHost(host) ? undefined : CODEC_TEXTS.openBindWithoutToken(host);
}

/**
 * Start the codec server; resolves once it listens. Rejects, before opening any port, a host that is
 * not a loopback address when no `token` is set ({@link openBindRefusal}).
 */
export async function startCodecServer(opts: CodecServerOptions): Promise<CodecServer> {
  const bindHost = opts.host ?? CODEC_SERVER_DEFAULTS.host;
  const refusal = openBindRefusal(bindHost, opts.token);
  if (refusal) throw new Error(refusal);
  const origins = new Set(opts.origins.map((o) => new URL(o).origin));
  const log = opts.log ?? (() => undefined);

  const server = http.createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://codec').pathname;
    const origin = req.headers.origin;
    const send = (status: number, body?: unknown, count?: number) => {
      log(CODEC_TEXTS.request(req.method ?? '?', path, status, count));
      if (body === undefined) {
        res.writeHead(status).end();
        return;
      }
      res.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));
    };
    res.setHeader('Vary', 'Origin');
    if (origin !== undefined) {
      if (!origins.has(origin)) return send(403, { error: CODEC_TEXTS.forbiddenOrigin(origin) });
      res.setHeader('Access-Control-Allow-Origin', origin);
      res.setHeader('Access-Control-Allow-Credentials', 'true');
    }
    const operation = path.endsWith('/encode') ? 'encode' : path.endsWith('/decode') ? 'decode' : undefined;
    if (req.method === 'OPTIONS') {
      // a preflight carries no credentials: it is answered before the token check
      res.setHeader('Access-Control-Allow-Methods', CODEC_SERVER_DEFAULTS.allowMethods);
      res.setHeader('Access-Control-Allow-Headers', CODEC_SERVER_DEFAULTS.allowHeaders);
      res.setHeader('Access-Control-Max-Age', String(CODEC_SERVER_DEFAULTS.preflightMaxAgeSeconds));
      return send(204);
    }
    if (!operation) return send(404, { error: CODEC_TEXTS.notFound });
    if (req.method !== 'POST') {
      res.setHeader('Allow', 'POST, OPTIONS');
      return send(405, { error: CODEC_TEXTS.methodNotAllowed });
    }
    if (!authorized(req, opts.token)) {
      res.setHeader('WWW-Authenticate', 'Bearer');
      return send(401, { error: CODEC_TEXTS.unauthorized });
    }
    readBody(req)
      .then(async (raw) => {
        const payloads = parseBody(raw);
        let out: Payload[];
        try {
          out = operation === 'encode' ? await opts.codec.encode(payloads) : await opts.codec.decode(payloads);
        } catch (e) {
          throw new HttpError(422, (e as Error).message);
        }
        send(200, { payloads: out.map(toJson) }, payloads.length);
      })
      .catch((e: unknown) => send(e instanceof HttpError ? e.status : 500, { error: (e as Error).message }));
  });

  server.listen(opts.port ?? CODEC_SERVER_DEFAULTS.port, bindHost);
  await Promise.race([once(server, 'listening'), once(server, 'error').then(([e]) => Promise.reject(e as Error))]);
  const { address, port } = server.address() as AddressInfo;
  const host = address.includes(':') ? `[${address}]` : address;
  return {
    url: `http://${host}:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
