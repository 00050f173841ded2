/**
 * A real OTLP/HTTP trace receiver for tests that need the spans a process exports but not Jaeger's
 * query API: node:http on a free port of 127.0.0.1 taking `POST /v1/traces` as the OTLP JSON encoding
 * (what `@opentelemetry/exporter-trace-otlp-http` sends), keeping every span with its service name,
 * attributes, events and status, and answering as a collector does. Protobuf and gzip bodies are
 * refused with 415, so a test never passes by reading nothing.
 */
import * as http from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';

/** An attribute value of OTLP JSON, read to a plain value. */
type Plain = string | number | boolean | Plain[] | undefined;

/** One received span. */
export interface ReceivedSpan {
  service: string;
  name: string;
  traceId: string;
  spanId: string;
  attributes: Record<string, Plain>;
  events: Array<{ name: string; attributes: Record<string, Plain> }>;
  status: { code: number; message?: string };
}

/** The running receiver. */
export interface OtlpReceiver {
  /** For `OTEL_EXPORTER_OTLP_ENDPOINT` (the exporter appends `/v1/traces`). */
  endpoint: string;
  readonly spans: ReceivedSpan[];
  close(): Promise<void>;
}

interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
  doubleValue?: number;
  boolValue?: boolean;
  arrayValue?: { values?: OtlpValue[] };
}

interface OtlpKeyValue {
  key: string;
  value: OtlpValue;
}

function plain(v: OtlpValue | undefined): Plain {
  if (!v) return undefined;
  if (v.stringValue !== undefined) return v.stringValue;
  if (v.intValue !== undefined) return Number(v.intValue);
  if (v.doubleValue !== undefined) return v.doubleValue;
  if (v.boolValue !== undefined) return v.boolValue;
  if (v.arrayValue) return (v.arrayValue.values ?? []).map(plain);
  return undefined;
}

function record(list: OtlpKeyValue[] | undefined): Record<string, Plain> {
  return Object.fromEntries((list ?? []).map((kv) => [kv.key, plain(kv.value)]));
}

/** Starts the receiver. */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const type = req.headers['content-type'] ?? '';
      if (req.method !== 'POST' || req.url !== '/v1/traces' || !type.includes('json') || req.headers['content-encoding']) {
        res.writeHead(415).end();
        return;
      }
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
        resourceSpans?: Array<{ resource?: { attributes?: OtlpKeyValue[] }; scopeSpans?: Array<{ spans?: any[] }> }>;
      };
      for (const rs of body.resourceSpans ?? []) {
        const service = String(record(rs.resource?.attributes)['service.name'] ?? '');
        for (const ss of rs.scopeSpans ?? []) {
          for (const s of ss.spans ?? []) {
            spans.push({
              service,
              name: s.name,
              traceId: s.traceId,
              spanId: s.spanId,
              attributes: record(s.attributes),
              events: (s.events ?? []).map((e: { name: string; attributes?: OtlpKeyValue[] }) => ({ name: e.name, attributes: record(e.attributes) })),
              status: { code: s.status?.code ?? 0, ...(s.status?.message ? { message: s.status.message } : {}) },
            });
          }
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    spans,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
