/**
 * A failed model call in traces (docs/observability.md, "Traces"): a worker that traces over real
 * OTLP/HTTP (to a receiver in this test) runs a writer whose endpoint answers HTTP 400 with a body
 * that repeats the worker's key and a text of its own. With content capture off, no span carries that
 * body: the `chat` span's and the activity's `RunActivity` span's status messages, and the latter's
 * exception event, say the error's class, failure type and HTTP status, with a line saying the message
 * was withheld. With capture on, the body is there, redacted. The key is in no span either way.
 */
import type { Worker } from '@temporalio/worker';
import { startRun } from '../../src/client';
import { flushTracing, shutdownTracing } from '../../src/telemetry/tracing';
import { SPAN_ERROR_TEXTS } from '../../src/telemetry/span-errors';
import { bundleWorkflows, createWorker } from '../../src/worker';
import { compileYaml } from '../helpers/compile';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../helpers/otlp-receiver';
import { startStubLlm, type StubLlm } from '../helpers/stub-llm';
import { connectClient, installQuietRuntime, testAddress, testNamespace, uniqueTaskQueue, uniqueWorkflowId, type TestClient } from '../helpers/temporal';

const SECRET = 'sk-span-test-0123456789abcdef';
const BODY_TEXT = 'REPLY-SECRET-TEXT';
const CAPTURE = 'OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT';
const OTEL_VARIABLES = ['OTEL_EXPORTER_OTLP_ENDPOINT', 'OTEL_BSP_SCHEDULE_DELAY', CAPTURE] as const;

const ROLE = `
name: traced-failure
model: { name: span-model }
agents:
  writer: { instructions: "Write." }
collaboration:
  topology: pipeline
  agents: [writer]
`;

/** What the spans of a failed HTTP 400 call say failed. */
const SUMMARY = 'ApplicationFailure TroupeFatalLlmError, HTTP 400';

describe('a failed model call in traces', () => {
  let receiver: OtlpReceiver;
  let stub: StubLlm;
  let tc: TestClient;
  let traced: Awaited<ReturnType<typeof bundleWorkflows>>;
  const saved: Record<string, string | undefined> = {};

  beforeAll(async () => {
    installQuietRuntime();
    [receiver, stub, tc] = await Promise.all([startOtlpReceiver(), startStubLlm(), connectClient()]);
    for (const v of OTEL_VARIABLES) saved[v] = process.env[v];
    process.env.OTEL_EXPORTER_OTLP_ENDPOINT = receiver.endpoint;
    process.env.OTEL_BSP_SCHEDULE_DELAY = '200';
    stub.script('writer', [{ status: 400, errorMessage: `bad key ${SECRET} ${BODY_TEXT}` }]);
    traced = await bundleWorkflows(undefined, undefined, true);
  });

  afterAll(async () => {
    await shutdownTracing();
    await Promise.all([stub?.close(), receiver?.close(), tc?.close()]);
    for (const v of OTEL_VARIABLES) {
      if (saved[v] === undefined) delete process.env[v];
      else process.env[v] = saved[v];
    }
  });

  /** Runs the role on a new tracing worker (tracing set up from the environment now) and returns the spans it exported. */
  async function tracedFailure(): Promise<ReceivedSpan[]> {
    receiver.spans.length = 0;
    const taskQueue = uniqueTaskQueue('span-errors');
    const worker: Worker = await createWorker({ address: testAddress(), namespace: testNamespace(), taskQueue, env: false, workflowBundle: traced, llm: { baseUrl: stub.url, apiKey: SECRET, env: {} } });
    const running = worker.run();
    try {
      const handle = await startRun(tc.client, { role: compileYaml(ROLE), task: 'write', taskQueue, workflowId: uniqueWorkflowId('span-errors') });
      const result = await handle.result();
      expect(result).toMatchObject({ status: 'failed', reason: 'fatal_error' });
      expect(result.reasonText).toContain(BODY_TEXT);
    } finally {
      worker.shutdown();
      await running;
    }
    await flushTracing();
    // the exporter sends its last batch on the flush: every span of the call is in
    expect(receiver.spans.map((s) => s.name)).toEqual(expect.arrayContaining(['chat span-model', 'RunActivity:callAgent']));
    return [...receiver.spans];
  }

  const named = (spans: ReceivedSpan[], name: string) => {
    const found = spans.filter((s) => s.name === name);
    expect(found).toHaveLength(1);
    return found[0];
  };

  test("content capture off: the spans say the error's class and HTTP status, never the provider's body", async () => {
    delete process.env[CAPTURE];
    await shutdownTracing();
    const spans = await tracedFailure();
    const text = JSON.stringify(spans);
    expect(text).not.toContain(BODY_TEXT);
    expect(text).not.toContain(SECRET);
    expect(text).not.toContain('bad key');

    const chat = named(spans, 'chat span-model');
    expect(chat.status).toEqual({ code: 2, message: SPAN_ERROR_TEXTS.withheld(SUMMARY) });
    expect(chat.attributes).toMatchObject({ 'error.type': '400', 'troupe.error': SUMMARY });

    const activity = named(spans, 'RunActivity:callAgent');
    expect(activity.status).toEqual({ code: 2, message: SPAN_ERROR_TEXTS.withheld(SUMMARY) });
    expect(activity.attributes).toMatchObject({ 'error.type': '400', 'troupe.error': SUMMARY });
    const exceptions = activity.events.filter((e) => e.name === 'exception');
    expect(exceptions).toHaveLength(1);
    expect(exceptions[0].attributes).toMatchObject({ 'exception.type': 'ApplicationFailure', 'exception.message': SPAN_ERROR_TEXTS.withheld(SUMMARY) });
    expect(exceptions[0].attributes).not.toHaveProperty('exception.stacktrace');
  });

  test('content capture on: the body is in the spans, with the key redacted', async () => {
    process.env[CAPTURE] = 'true';
    await shutdownTracing();
    const spans = await tracedFailure();
    expect(JSON.stringify(spans)).not.toContain(SECRET);
    const chat = named(spans, 'chat span-model');
    expect(chat.status.message).toContain(`bad key [redacted] ${BODY_TEXT}`);
    expect(chat.attributes).toMatchObject({ 'error.type': '400', 'troupe.error': SUMMARY });
    expect(named(spans, 'RunActivity:callAgent').status.message).toContain(BODY_TEXT);
  });
});
