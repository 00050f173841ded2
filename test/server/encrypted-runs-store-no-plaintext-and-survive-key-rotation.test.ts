/**
 * With TROUPE_PAYLOAD_KEY set for the worker and the client, runs work end to end while the
 * server stores none of their plaintext: the task, every agent output, a signal's text, the
 * memo and failure messages are all encrypted, as a client without the codec sees when it reads
 * the raw history. Keys rotate: the new key encrypts, an old key in TROUPE_PAYLOAD_OLD_KEYS
 * still decrypts, and without it reading fails naming the key id. The same run without a key
 * is the control: there the scan finds the plaintext.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import type { DataConverter } from '@temporalio/common';
import type { Worker, WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { connectClient as connectTroupeClient, runHandle, startRun, waitResult } from '../../src/client';
import { CODEC_ENV, CODEC_TEXTS, keyIdOf, troupeDataConverter } from '../../src/codec';
import { bundleWorkflows, createWorker } from '../../src/worker';
import { troupe } from '../helpers/cli';
import { compileYaml } from '../helpers/compile';
import { encodingsOf, historyBytes, rawHistory, storedPayloads } from '../helpers/history-scan';
import { startStubLlm, stubGate, type StubLlm } from '../helpers/stub-llm';
import { connectClient, installQuietRuntime, testAddress, testNamespace, uniqueTaskQueue, type TestClient } from '../helpers/temporal';

const LOOP = compileYaml(`
name: sealed-loop
agents:
  writer: { instructions: "Write." }
  critic: { instructions: "Critique." }
collaboration:
  topology: review-loop
  agents: [writer, critic]
  termination:
    any_of:
      - result_matches: { agent: critic, score_gte: 85 }
      - max_iterations: 4
`);
const SOLO = compileYaml(`
name: sealed-solo
agents:
  writer: { instructions: "Write." }
collaboration:
  topology: pipeline
  agents: [writer]
`);

const KEY_A = randomBytes(32).toString('base64');
const KEY_B = randomBytes(32).toString('base64');
const ID_A = keyIdOf(Buffer.from(KEY_A, 'base64'));
const ID_B = keyIdOf(Buffer.from(KEY_B, 'base64'));
const ENCRYPTED = 'binary/encrypted';

let stub: StubLlm;
let bundle: WorkflowBundleWithSourceMap;
let raw: TestClient;
const workers: Array<{ worker: Worker; running: Promise<void> }> = [];
const connections: Connection[] = [];
const savedEnv = { ...process.env };

/** Where a history has payloads that are not encrypted (their paths, with the encoding). */
const plainPayloads = (history: unknown) =>
  storedPayloads(history)
    .filter((p) => p.encoding !== ENCRYPTED)
    .map((p) => `${p.path} (${p.encoding})`);

/** A troupe worker (the product's createWorker) with the given data converter, on its own queue. */
async function startTroupeWorker(dataConverter: DataConverter, taskQueue = uniqueTaskQueue('sealed')): Promise<string> {
  const worker = await createWorker({
    address: testAddress(),
    namespace: testNamespace(),
    taskQueue,
    workflowBundle: bundle,
    dataConverter,
    shutdownGraceMs: 0,
    llm: { baseUrl: stub.url, apiKey: 'test-key', env: {} },
  });
  workers.push({ worker, running: worker.run() });
  return taskQueue;
}

/** A client whose data converter is the one of `env` (the product's factory). */
async function clientWith(env: NodeJS.ProcessEnv): Promise<Client> {
  const connection = await Connection.connect({ address: testAddress() });
  connections.push(connection);
  return new Client({ connection, namespace: testNamespace(), dataConverter: troupeDataConverter(env) });
}

beforeAll(async () => {
  installQuietRuntime();
  stub = await startStubLlm();
  raw = await connectClient();
  // one bundle with the encoded-failure converter in it; the codecs themselves stay outside the sandbox
  bundle = await bundleWorkflows(undefined, troupeDataConverter({ [CODEC_ENV.key]: KEY_A }));
  // the product's client and CLI read the key from the environment
  process.env.TEMPORAL_ADDRESS = testAddress();
  process.env[CODEC_ENV.key] = KEY_A;
  delete process.env[CODEC_ENV.oldKeys];
}, 180_000);

afterAll(async () => {
  for (const { worker, running } of workers) {
    if (worker.getState() === 'RUNNING') worker.shutdown();
    await running.catch(() => undefined);
  }
  for (const c of connections) await c.close();
  await raw?.close();
  await stub?.close();
  process.env = savedEnv;
});

beforeEach(() => stub.reset());

test('a review loop with a signal completes, and its stored history holds no task, output or signal text, only payloads encrypted with the key id', async () => {
  const canary = randomUUID();
  const queue = await startTroupeWorker(troupeDataConverter({ [CODEC_ENV.key]: KEY_A }));
  const gate = stubGate();
  stub.script('writer', [gate.hold({ text: `WRITER-DRAFT-1 ${canary}` }), { text: `WRITER-DRAFT-2 ${canary}` }]);
  stub.script('critic', [{ text: `CRITIC-NOTES-1 ${canary} score: 50` }, { text: `CRITIC-NOTES-2 ${canary} score: 90` }]);

  const conn = await connectTroupeClient();
  try {
    const handle = await startRun(conn.client, { role: LOOP, task: `THE-TASK ${canary}`, taskQueue: queue });
    await stub.waitForRequests(1, 'writer');
    expect(stub.requestsFor('writer')[0].prompt).toContain(`THE-TASK ${canary}`);
    // the CLI (its own client, from the environment) sends a signal and reads the status through the codec
    expect((await troupe('message', handle.workflowId, `SIGNAL-TEXT ${canary}`, '--to', 'writer')).code).toBe(0);
    const status = await troupe('status', handle.workflowId, '--json');
    expect(status.code).toBe(0);
    gate.open();
    const result = await waitResult(handle);
    expect(result).toMatchObject({ status: 'completed', reason: 'result_match', finalText: `CRITIC-NOTES-2 ${canary} score: 90` });
    // the worker decrypted the signal: it reached the writer's next prompt
    expect(stub.requestsFor('writer')[1].prompt).toContain(`SIGNAL-TEXT ${canary}`);
    const cliResult = await troupe('result', handle.workflowId, '--json');
    expect(JSON.parse(cliResult.stdout)).toMatchObject({ finalText: `CRITIC-NOTES-2 ${canary} score: 90` });

    const history = await rawHistory(raw.client, handle.workflowId);
    expect(historyBytes(history).includes(canary)).toBe(false);
    // every payload (inputs, results, activity payloads, signals, memo, markers) is encrypted with key A
    expect(plainPayloads(history)).toEqual([]);
    expect(encodingsOf(storedPayloads(history))).toEqual({ [ENCRYPTED]: [ID_A] });
    const described = await raw.connection.workflowService.describeWorkflowExecution({
      namespace: testNamespace(),
      execution: { workflowId: handle.workflowId },
    });
    const memo = described.workflowExecutionInfo?.memo;
    expect(Object.keys(memo?.fields ?? {}).sort()).toEqual(['troupeGraph', 'troupeReason', 'troupeStatus', 'troupeThread', 'troupeWaiting']);
    expect(encodingsOf(storedPayloads(memo))).toEqual({ [ENCRYPTED]: [ID_A] });
    // a client without the key is told which key it needs
    await expect(raw.client.workflow.getHandle(handle.workflowId).result()).rejects.toThrow();
    const noKey = await clientWith({});
    await expect(runHandle(noKey, handle.workflowId).result()).rejects.toThrow(CODEC_TEXTS.noKeyForEncrypted(ID_A));
  } finally {
    await conn.close();
  }
});

test('a failed call keeps its provider message out of the stored history; the keyed client reads it in the diagnostics', async () => {
  const canary = randomUUID();
  const queue = await startTroupeWorker(troupeDataConverter({ [CODEC_ENV.key]: KEY_A }));
  stub.script('writer', [{ status: 400, errorMessage: `PROVIDER-SAYS ${canary}` }]);
  const conn = await connectTroupeClient();
  try {
    const handle = await startRun(conn.client, { role: SOLO, task: 'short task', taskQueue: queue });
    const result = await waitResult(handle);
    expect(result).toMatchObject({ status: 'failed', reason: 'fatal_error' });
    expect(result.diagnostics?.message).toBe(`PROVIDER-SAYS ${canary}`);
    const history = await rawHistory(raw.client, handle.workflowId);
    expect(historyBytes(history).includes(canary)).toBe(false);
    // the activity failure's message is "Encoded failure"; the real one is an encrypted payload
    const failed = history.events!.find((e) => e.activityTaskFailedEventAttributes)?.activityTaskFailedEventAttributes;
    expect(failed?.failure?.message).toBe('Encoded failure');
    expect(encodingsOf(storedPayloads(history))).toEqual({ [ENCRYPTED]: [ID_A] });
  } finally {
    await conn.close();
  }
});

test('control: the same run without a key stores its plaintext, so the scan above can see it', async () => {
  const canary = randomUUID();
  const queue = await startTroupeWorker(troupeDataConverter({}));
  stub.script('writer', [{ text: `WRITER-DRAFT ${canary}` }]);
  const plain = await clientWith({});
  const handle = await startRun(plain, { role: SOLO, task: `THE-TASK ${canary}`, taskQueue: queue });
  expect(await waitResult(handle)).toMatchObject({ status: 'completed', finalText: `WRITER-DRAFT ${canary}` });
  const history = await rawHistory(raw.client, handle.workflowId);
  expect(historyBytes(history).includes(`THE-TASK ${canary}`)).toBe(true);
  expect(historyBytes(history).includes(`WRITER-DRAFT ${canary}`)).toBe(true);
  expect(Object.keys(encodingsOf(storedPayloads(history)))).not.toContain(ENCRYPTED);
});

test('key rotation: a run started under the old key finishes under the new one; OLD_KEYS decrypts both; without it the old key id is named', async () => {
  const before = { [CODEC_ENV.key]: KEY_A };
  const rotated = { [CODEC_ENV.key]: KEY_B, [CODEC_ENV.oldKeys]: KEY_A };
  stub.script('writer', [{ text: 'DRAFT-AFTER-ROTATION' }]);

  // started by a client with key A while no worker polls; a rotated worker then runs it
  const queue = uniqueTaskQueue('rotate');
  const oldClient = await clientWith(before);
  const handle = await startRun(oldClient, { role: SOLO, task: 'TASK-BEFORE-ROTATION', taskQueue: queue });
  await startTroupeWorker(troupeDataConverter(rotated), queue);
  const rotatedClient = await clientWith(rotated);
  const result = await waitResult(runHandle(rotatedClient, handle.workflowId));
  expect(result).toMatchObject({ status: 'completed', finalText: 'DRAFT-AFTER-ROTATION' });
  expect(stub.requestsFor('writer')[0].prompt).toContain('TASK-BEFORE-ROTATION');

  // the input was encrypted with A, everything the rotated worker wrote with B
  const history = await rawHistory(raw.client, handle.workflowId);
  expect(encodingsOf(storedPayloads(history))).toEqual({ [ENCRYPTED]: [ID_A, ID_B].sort() });
  const started = history.events![0].workflowExecutionStartedEventAttributes!;
  expect(encodingsOf(storedPayloads(started.input))).toEqual({ [ENCRYPTED]: [ID_A] });
  const completed = history.events!.find((e) => e.workflowExecutionCompletedEventAttributes)!;
  expect(encodingsOf(storedPayloads(completed))).toEqual({ [ENCRYPTED]: [ID_B] });

  // a client with only the new key reads the result but not the old input, and says which key is missing
  const newOnly = await clientWith({ [CODEC_ENV.key]: KEY_B });
  expect(await waitResult(runHandle(newOnly, handle.workflowId))).toMatchObject({ finalText: 'DRAFT-AFTER-ROTATION' });
  const firstEvent = (await runHandle(newOnly, handle.workflowId).fetchHistory()).events![0];
  const input = firstEvent.workflowExecutionStartedEventAttributes!.input!.payloads!;
  await expect(troupeDataConverter({ [CODEC_ENV.key]: KEY_B }).payloadCodecs![0].decode(input)).rejects.toThrow(
    CODEC_TEXTS.unknownKeyId(ID_A, [ID_B]),
  );
});

test('the workflow bundle carries the encoded-failure converter (it runs in the sandbox) and not the codec (it runs outside)', () => {
  expect(bundle.code).toContain('codec/failure-converter');
  expect(bundle.code).not.toContain('codec/aes-gcm');
});
