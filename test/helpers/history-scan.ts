/**
 * Reading what the Temporal server stores for a run, as someone with database access but no key
 * would: the raw history (fetched by a client without a codec) as protobuf bytes to search for
 * plaintext, and the payloads in it with their encoding and key id.
 */
import type { Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';

/** The run's stored history as a client without a codec fetches it. */
export async function rawHistory(rawClient: Client, workflowId: string): Promise<temporal.api.history.v1.IHistory> {
  return rawClient.workflow.getHandle(workflowId).fetchHistory();
}

/** The history as the protobuf bytes the server stores: any plaintext in any field shows up here. */
export function historyBytes(history: temporal.api.history.v1.IHistory): Buffer {
  return Buffer.from(temporal.api.history.v1.History.encode(history).finish());
}

const UNCODED_FIELDS = new Set(['searchAttributes', 'header', 'patch-data']);

/** One payload found in a history, with where it is. */
export interface StoredPayload {
  path: string;
  encoding?: string;
  keyId?: string;
}

/**
 * Every payload in the history except those the SDK never passes through codecs: search
 * attributes (the server indexes them), headers, and the `patch-data` of the markers that
 * `patched()` records (the SDK core writes them; they hold a patch id from
 * src/workflows/versions.ts and a flag).
 */
export function storedPayloads(value: unknown, path = 'history'): StoredPayload[] {
  if (value === null || typeof value !== 'object' || value instanceof Uint8Array) return [];
  if (Array.isArray(value)) return value.flatMap((v, i) => storedPayloads(v, `${path}[${i}]`));
  const o = value as Record<string, unknown>;
  const metadata = o.metadata as Record<string, Uint8Array> | undefined;
  if (metadata && typeof metadata === 'object' && metadata.encoding instanceof Uint8Array) {
    const text = (b?: Uint8Array) => (b ? Buffer.from(b).toString('utf8') : undefined);
    return [{ path, encoding: text(metadata.encoding), keyId: text(metadata['encryption-key-id']) }];
  }
  return Object.entries(o)
    .filter(([k]) => !UNCODED_FIELDS.has(k))
    .flatMap(([k, v]) => storedPayloads(v, `${path}.${k}`));
}

/** The distinct encodings and key ids of a history's payloads, e.g. `{ 'binary/encrypted': ['ab12…'] }`. */
export function encodingsOf(payloads: StoredPayload[]): Record<string, string[]> {
  const out: Record<string, Set<string>> = {};
  for (const p of payloads) (out[p.encoding ?? '?'] ??= new Set()).add(p.keyId ?? '-');
  return Object.fromEntries(Object.entries(out).map(([k, v]) => [k, [...v].sort()]));
}
