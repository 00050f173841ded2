/**
 * A worker's API key stays on the worker: a real `troupe worker` process holds a canary key, runs
 * succeed and fail against the stub (a provider that echoes the key in its error, 5xx retries, a
 * dropped connection, a refused endpoint), and the key is found nowhere the run leaves a trace:
 * the exported histories, the memo, the RunResults and their diagnostics, the CLI's output and the
 * worker's own log. The stub's record of the Authorization header is the control: the key was in use.
 */
import { randomBytes } from 'node:crypto';
import { REDACTED } from '../../src/secrets/redactor';
import type { RunResult } from '../../src/core/ending/result';
import type { CompiledGraph } from '../../src/core/graph/types';
import { startRun } from '../../src/client';
import { troupe } from '../helpers/cli';
import { compileYaml } from '../helpers/compile';
import { historyBytes, rawHistory } from '../helpers/history-scan';
import { openAiError, startStubLlm, type StubLlm } from '../helpers/stub-llm';
import { connectClient, testAddress, testNamespace, uniqueTaskQueue, type TestClient } from '../helpers/temporal';
import { startWorkerProcess, type WorkerProcess } from '../helpers/worker-process';

const KEY = `sk-canary-${randomBytes(24).toString('hex')}`;
/** A run that leaks even part of the key is caught: any 16 characters of its random part. */
const FRAGMENTS = [KEY, KEY.slice(10, 26), KEY.slice(-16)];
const solo = (name: string, model = '') =>
  compileYaml(`
name: ${name}
${model}
agents:
  writer: { instructions: "Write." }
collaboration:
  topology: pipeline
  agents: [writer]
`);

let stub: StubLlm;
let tc: TestClient;
let worker: WorkerProcess;
let queue: string;
const runs: Array<{ workflowId: string; result: RunResult }> = [];

function leaks(text: string | Buffer): string[] {
  return FRAGMENTS.filter((f) => text.includes(f));
}

async function run(graph: CompiledGraph): Promise<RunResult> {
  const handle = await startRun(tc.client, { role: graph, task: 'write something', taskQueue: queue });
  const result = await handle.result();
  runs.push({ workflowId: handle.workflowId, result });
  return result;
}

beforeAll(async () => {
  stub = await startStubLlm();
  tc = await connectClient();
  queue = uniqueTaskQueue('keys');
  worker = await startWorkerProcess({
    TEMPORAL_ADDRESS: testAddress(),
    TROUPE_TASK_QUEUE: queue,
    OPENAI_BASE_URL: stub.url,
    OPENAI_API_KEY: KEY,
    TROUPE_PAYLOAD_KEY: '',
  });
}, 120_000);

afterAll(async () => {
  await worker?.kill();
  await tc?.close();
  await stub?.close();
});

test('successful and failed calls with a canary key: the key reached the provider and nowhere else', async () => {
  stub.script('writer', [{ text: 'a fine essay' }]);
  expect(await run(solo('keys-ok'))).toMatchObject({ status: 'completed' });

  // a provider that puts the whole key in its error message (real ones mask all but a few characters)
  stub.script('writer', [{ status: 401, errorBody: openAiError(`Incorrect API key provided: ${KEY}.`, 'invalid_request_error', 'invalid_api_key') }]);
  const refused = await run(solo('keys-401'));
  expect(refused).toMatchObject({ status: 'failed', reason: 'fatal_error' });
  // the diagnostics keep the provider's words, with the key replaced
  expect(refused.diagnostics?.message).toBe(`Incorrect API key provided: ${REDACTED}.`);

  stub.script('writer', [{ status: 500, errorMessage: `upstream failed for key ${KEY}` }]);
  expect(await run(solo('keys-500'))).toMatchObject({ status: 'failed', reason: 'activity_failed' });

  stub.script('writer', [{ dropConnection: true }]);
  expect(await run(solo('keys-drop'))).toMatchObject({ status: 'failed' });

  // a role that points the worker's key at an address of its choosing is refused before any request
  const before = stub.requests.length;
  expect(await run(solo('keys-elsewhere', 'model: { name: m, base_url: "http://127.0.0.1:9/v1" }'))).toMatchObject({ status: 'failed' });
  expect(stub.requests.length).toBe(before);

  // the control: the key was sent, as a bearer token, with every request that reached the provider
  expect(stub.requests.length).toBeGreaterThanOrEqual(4);
  for (const r of stub.requests) expect(r.headers.authorization).toBe(`Bearer ${KEY}`);

  for (const { workflowId, result } of runs) {
    expect({ workflowId, leaks: leaks(historyBytes(await rawHistory(tc.client, workflowId))) }).toEqual({ workflowId, leaks: [] });
    const described = await tc.connection.workflowService.describeWorkflowExecution({ namespace: testNamespace(), execution: { workflowId } });
    expect(leaks(JSON.stringify(described.workflowExecutionInfo?.memo ?? {}))).toEqual([]);
    expect(leaks(JSON.stringify(result))).toEqual([]);
    const cli = await troupe('result', workflowId);
    expect(leaks(cli.stdout + cli.stderr)).toEqual([]);
  }
  // the worker's log, which records the failed attempts with the provider's (redacted) words
  expect(worker.output()).toContain(REDACTED);
  expect(leaks(worker.output())).toEqual([]);
});
