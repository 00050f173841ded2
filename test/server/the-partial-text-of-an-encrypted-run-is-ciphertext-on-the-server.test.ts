/**
 * The partial text of a streamed call travels in heartbeat details, and heartbeat details are
 * payloads: with TROUPE_PAYLOAD_KEY on the worker (the product's createWorker), the details the
 * server holds for the pending activity are encrypted (a client without the codec sees
 * `binary/encrypted` and none of the text in the bytes), and the codec decodes them to the LiveText.
 * The same worker without a key is the control: there the server holds the text in plain JSON.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { defaultPayloadConverter, type Client } from '@temporalio/client';
import type { Payload } from '@temporalio/common';
import type { Worker, WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { temporal } from '@temporalio/proto';
import { startRun } from '../../src/client';
import { CODEC_ENV, troupeDataConverter } from '../../src/codec';
import { readLiveText } from '../../src/core/observe/live';
import { bundleWorkflows, createWorker } from '../../src/worker';
import { compileYaml } from '../helpers/compile';
import { startStubLlm, type StubLlm } from '../helpers/stub-llm';
import { connectClient, installQuietRuntime, testAddress, testNamespace, uniqueTaskQueue, type TestClient } from '../helpers/temporal';

const SOLO = compileYaml(`
name: sealed-live
agents:
  writer: { instructions: "Write." }
collaboration:
  topology: pipeline
  agents: [writer]
`);

const KEY = randomBytes(32).toString('base64');
const ENCRYPTED = 'binary/encrypted';

let stub: StubLlm;
let bundle: WorkflowBundleWithSourceMap;
let raw: TestClient;
const workers: Array<{ worker: Worker; running: Promise<void> }> = [];

async function startTroupeWorker(env: NodeJS.ProcessEnv): Promise<string> {
  const taskQueue = uniqueTaskQueue('live');
  const worker = await createWorker({
    address: testAddress(),
    namespace: testNamespace(),
    taskQueue,
    workflowBundle: bundle,
    dataConverter: troupeDataConverter(env),
    shutdownGraceMs: 0,
    llm: { baseUrl: stub.url, apiKey: 'test-key', env: {} },
  });
  workers.push({ worker, running: worker.run() });
  return taskQueue;
}

/** The heartbeat details payload the server holds for the run's pending activity, once it has one with text. */
async function heldDetails(client: Client, workflowId: string, hasText: (payload: Payload) => Promise<boolean>): Promise<Payload> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    const described = await client.workflow.getHandle(workflowId).describe();
    const payload = described.raw.pendingActivities?.[0]?.heartbeatDetails?.payloads?.[0];
    if (payload && (await hasText(payload as Payload))) return payload as Payload;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('the pending activity never held heartbeat details with text');
}

beforeAll(async () => {
  installQuietRuntime();
  stub = await startStubLlm();
  raw = await connectClient();
  bundle = await bundleWorkflows(undefined, troupeDataConverter({ [CODEC_ENV.key]: KEY }));
}, 180_000);

afterAll(async () => {
  for (const { worker, running } of workers) {
    if (worker.getState() === 'RUNNING') worker.shutdown();
    await running.catch(() => undefined);
  }
  await raw?.close();
  await stub?.close();
});

beforeEach(() => stub.reset());

test.each([
  ['with the payload key: ciphertext on the server, the LiveText through the codec', true],
  ['without a key (the control): the partial text is plain on the server', false],
])('%s', async (_name, keyed) => {
  const canary = randomUUID();
  const env = keyed ? { [CODEC_ENV.key]: KEY } : {};
  const codec = troupeDataConverter(env).payloadCodecs![0]!;
  const queue = await startTroupeWorker(env);
  // the stream stops after the role chunk and the canary's chunk and stays open
  stub.script('writer', [{ text: `${canary} and the rest of a draft`, stream: { chunkChars: canary.length, hangAfterChunks: 2 } }]);
  const handle = await startRun(raw.client, { role: SOLO, task: 'Write.', taskQueue: queue });
  try {
    await stub.waitForRequests(1, 'writer');
    const decode = async (payload: Payload) => readLiveText(defaultPayloadConverter.fromPayload((await codec.decode([payload]))[0]!));
    const payload = await heldDetails(raw.client, handle.workflowId, async (p) => ((await decode(p))?.chars ?? 0) > 0);
    const bytes = Buffer.from(temporal.api.common.v1.Payload.encode(payload).finish());
    const encoding = Buffer.from(payload.metadata!.encoding!).toString('utf8');
    expect(await decode(payload)).toEqual({ agent: 'writer', kind: 'agent', partialText: canary, chars: canary.length });
    if (keyed) {
      expect(encoding).toBe(ENCRYPTED);
      expect(bytes.includes(canary)).toBe(false);
    } else {
      expect(encoding).toBe('json/plain');
      expect(bytes.includes(canary)).toBe(true);
    }
  } finally {
    await raw.client.workflow.getHandle(handle.workflowId).terminate('test over');
  }
});
