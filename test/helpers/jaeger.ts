/**
 * A real Jaeger (v2) for trace tests and the trace bench: the binary from `scripts/get-jaeger.sh`
 * (`JAEGER_BIN`, PATH, the cache, else a build from its Go module: minutes the first time), started
 * with a config of its own that opens only three listeners, each on a free port of 127.0.0.1: OTLP
 * over HTTP, and the query service's HTTP and gRPC. Its other receivers (OTLP gRPC, Jaeger, Zipkin),
 * health check, zpages and its own metrics are left out, so runs in parallel never clash. Memory
 * storage; the trace is read back through the HTTP API (`/api/traces`), as a source build serves no UI.
 * When no Jaeger can be had, {@link startJaeger} throws with what to do: the test fails, as one
 * without a Temporal CLI does; it never skips.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

export const GET_JAEGER_SCRIPT = resolve(__dirname, '..', '..', 'scripts', 'get-jaeger.sh');

/** A span as Jaeger's HTTP API returns it. */
export interface JaegerSpan {
  traceID: string;
  spanID: string;
  operationName: string;
  references: Array<{ refType: string; traceID: string; spanID: string }>;
  startTime: number;
  duration: number;
  tags: Array<{ key: string; type: string; value: unknown }>;
  processID: string;
}

/** A trace as Jaeger's HTTP API returns it. */
export interface JaegerTrace {
  traceID: string;
  spans: JaegerSpan[];
  processes: Record<string, { serviceName: string; tags: Array<{ key: string; value: unknown }> }>;
}

export interface Jaeger {
  /** OTLP/HTTP base URL for `OTEL_EXPORTER_OTLP_ENDPOINT` (the exporter appends `/v1/traces`). */
  otlpEndpoint: string;
  /** Query API base URL (`/api/services`, `/api/traces`). */
  queryUrl: string;
  pid: number;
  /** The traces of `service` (newest first, at most `limit`). */
  traces(service: string, limit?: number): Promise<JaegerTrace[]>;
  stop(): Promise<void>;
}

/** Texts of this helper's failures. */
export const JAEGER_HELPER_TEXTS = {
  notFound: (detail: string) =>
    `could not get Jaeger for the trace test (run \`bash scripts/get-jaeger.sh\`, or set JAEGER_BIN; docs/testing.md):\n${detail}`,
  notReady: (ms: number, log: string) => `Jaeger did not answer on its query port within ${ms} ms; its log:\n${log}`,
  exited: (code: number | null, log: string) => `Jaeger exited (code ${code}) before it was ready; its log:\n${log}`,
} as const;

/** The Jaeger binary: `JAEGER_BIN` as given, else what `scripts/get-jaeger.sh` prints (it may build one). */
export async function jaegerBinary(): Promise<string> {
  return new Promise((done, fail) => {
    const child = spawn('bash', [GET_JAEGER_SCRIPT], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let log = '';
    child.stdout.on('data', (b: Buffer) => (out += b.toString()));
    child.stderr.on('data', (b: Buffer) => (log += b.toString()));
    child.on('error', (e) => fail(new Error(JAEGER_HELPER_TEXTS.notFound(e.message))));
    child.on('close', (code) => {
      const bin = out.trim().split('\n').pop();
      if (code === 0 && bin) done(bin);
      else fail(new Error(JAEGER_HELPER_TEXTS.notFound(log.trim() || `get-jaeger.sh exited ${code}`)));
    });
  });
}

/** A port of 127.0.0.1 that is free now. */
async function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = createServer();
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => done(port));
    });
  });
}

/** Jaeger's config: OTLP/HTTP in, memory storage, the query service; nothing else listens. */
function config(ports: { otlp: number; http: number; grpc: number }): string {
  return `service:
  extensions: [jaeger_storage, jaeger_query]
  pipelines:
    traces:
      receivers: [otlp]
      processors: [batch]
      exporters: [jaeger_storage_exporter]
  telemetry:
    metrics:
      level: none
    logs:
      level: warn
extensions:
  jaeger_query:
    storage:
      traces: memstore
    http:
      endpoint: 127.0.0.1:${ports.http}
    grpc:
      endpoint: 127.0.0.1:${ports.grpc}
  jaeger_storage:
    backends:
      memstore:
        memory:
          max_traces: 10000
receivers:
  otlp:
    protocols:
      http:
        endpoint: 127.0.0.1:${ports.otlp}
processors:
  batch:
    timeout: 100ms
exporters:
  jaeger_storage_exporter:
    trace_storage: memstore
`;
}

/** Start a Jaeger of its own; `stop()` it in `afterAll`. */
export async function startJaeger(opts: { readyMs?: number } = {}): Promise<Jaeger> {
  const bin = await jaegerBinary();
  const dir = await mkdtemp(join(tmpdir(), 'troupe-jaeger-'));
  const ports = { otlp: await freePort(), http: await freePort(), grpc: await freePort() };
  const file = join(dir, 'config.yaml');
  await writeFile(file, config(ports));
  const child: ChildProcess = spawn(bin, ['--config', file], { stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  const keep = (b: Buffer) => (log = (log + b.toString()).slice(-8000));
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  let exited: number | null | undefined;
  const gone = new Promise<void>((done) =>
    child.once('exit', (code) => {
      exited = code;
      done();
    }),
  );
  const queryUrl = `http://127.0.0.1:${ports.http}`;
  const stop = async () => {
    if (exited === undefined) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await gone;
      clearTimeout(timer);
    }
    await rm(dir, { recursive: true, force: true });
  };
  const readyMs = opts.readyMs ?? 30_000;
  const deadline = Date.now() + readyMs;
  for (;;) {
    if (exited !== undefined) {
      await stop();
      throw new Error(JAEGER_HELPER_TEXTS.exited(exited, log));
    }
    const ok = await fetch(`${queryUrl}/api/services`).then((r) => r.ok, () => false);
    if (ok) break;
    if (Date.now() > deadline) {
      await stop();
      throw new Error(JAEGER_HELPER_TEXTS.notReady(readyMs, log));
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    otlpEndpoint: `http://127.0.0.1:${ports.otlp}`,
    queryUrl,
    pid: child.pid ?? 0,
    async traces(service, limit = 20) {
      const res = await fetch(`${queryUrl}/api/traces?service=${encodeURIComponent(service)}&limit=${limit}&lookback=1h`);
      if (!res.ok) throw new Error(`Jaeger /api/traces: HTTP ${res.status}: ${await res.text()}`);
      const body = (await res.json()) as { data: JaegerTrace[] | null };
      return body.data ?? [];
    },
    stop,
  };
}

/** A span's tag value by key. */
export function tag(span: JaegerSpan, key: string): unknown {
  return span.tags.find((t) => t.key === key)?.value;
}

/** The span a span is a child of, within its trace. */
export function parentOf(trace: JaegerTrace, span: JaegerSpan): JaegerSpan | undefined {
  const ref = span.references.find((r) => r.refType === 'CHILD_OF');
  return ref ? trace.spans.find((s) => s.spanID === ref.spanID) : undefined;
}

/** Whether `ancestor` is above `span` in its trace. */
export function isBeneath(trace: JaegerTrace, span: JaegerSpan, ancestor: JaegerSpan): boolean {
  for (let p = parentOf(trace, span); p; p = parentOf(trace, p)) if (p.spanID === ancestor.spanID) return true;
  return false;
}
