/**
 * Which model calls stream (docs/observability.md, "Live output"): every call, unless the worker
 * turned streaming off (`TROUPE_STREAM=off`, `LlmEndpointOptions.stream: false`) or the endpoint
 * refused a streamed request before. A refusing endpoint is remembered by base URL for the life of
 * the worker, like an endpoint that refuses response schemas (./model.ts), so it pays for one
 * refused request, not one per call.
 */
import type OpenAI from 'openai';
import { ENDPOINT_SETTINGS, type LlmEndpointOptions } from './endpoints';

/** Values of `TROUPE_STREAM` that turn streaming off. */
const OFF = new Set(['off', 'false', '0', 'no']);

/** Whether a worker with these options streams its model calls. */
export function streamingOn(opts: Pick<LlmEndpointOptions, 'stream' | 'env'>): boolean {
  if (opts.stream !== undefined) return opts.stream;
  return !OFF.has((opts.env?.[ENDPOINT_SETTINGS.streamVar] ?? '').trim().toLowerCase());
}

/** Clients of workers that do not stream (a client belongs to one setting: see `createOpenAIClient`). */
const unstreamed = new WeakSet<OpenAI>();

/** Endpoints that refused `stream: true`, by base URL. */
const refusing = new Set<string>();

/** Endpoints whose streams came without usage, by base URL (warned about once). */
const withoutUsage = new Set<string>();

/** A worker keeps at most this many base URLs in each memory (it talks to a handful). */
const MAX_REMEMBERED = 256;

/** Marks a client as one whose calls are never streamed. */
export function neverStream(client: OpenAI): void {
  unstreamed.add(client);
}

/** Whether a call through `client` is sent streamed. */
export function streamsTo(client: OpenAI): boolean {
  return !unstreamed.has(client) && !refusing.has(client.baseURL);
}

/** Remember that `client`'s endpoint refuses streaming: this worker does not stream to it again. */
export function rememberRefusesStreaming(client: OpenAI): void {
  if (refusing.size >= MAX_REMEMBERED) refusing.clear();
  refusing.add(client.baseURL);
}

/** Records that `client`'s endpoint streamed without usage; true the first time for that endpoint. */
export function firstStreamWithoutUsage(client: OpenAI): boolean {
  if (withoutUsage.has(client.baseURL)) return false;
  if (withoutUsage.size >= MAX_REMEMBERED) withoutUsage.clear();
  withoutUsage.add(client.baseURL);
  return true;
}
