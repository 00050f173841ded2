/**
 * Secrets never come back (docs/security.md): a real `troupe worker` process holds an API key and a
 * tools file whose servers get tokens from its environment. The model endpoint echoes the key in a
 * 200 JSON completion and in a 200 body that is not JSON; a stdio MCP server says its token on stderr
 * and, started again, dies, so the worker's error quotes its stderr tail; an HTTP MCP server answers a
 * call with HTTP 500 and a body that repeats its Authorization header. None of the three secrets is
 * found in the worker's log, the CLI's output (`run`, `status --json`, `transcript --json`, `result`),
 * `temporal workflow show`, or the model's requests. The control: each secret was in use.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { REDACTED } from '../../src/secrets/redactor';
import { startRun } from '../../src/client';
import type { RunResult } from '../../src/core/ending/result';
import type { CompiledGraph } from '../../src/core/graph/types';
import { troupe } from '../helpers/cli';
import { compileYaml } from '../helpers/compile';
import { startStubLlm, type StubLlm } from '../helpers/stub-llm';
import { connectClient, testAddress, uniqueTaskQueue, type TestClient } from '../helpers/temporal';
import { startWorkerProcess, type WorkerProcess } from '../helpers/worker-process';
import { FIXTURE_SERVER_ARGS, tempDir, removeDirs } from '../fixtures/tools/helpers';
import { TestHttpMcpServer } from '../fixtures/tools/http-server';

const secret = (name: string) => `${name}-${randomBytes(20).toString('hex')}`;
const KEY = secret('sk-canary');
const STDIO_TOKEN = secret('stdio-token');
const HTTP_TOKEN = secret('http-token');
/** Any 16 characters of a secret's random part count as a leak. */
const FRAGMENTS = [KEY, STDIO_TOKEN, HTTP_TOKEN].flatMap((s) => [s, s.slice(-16), s.slice(-30, -14)]);
const leaks = (text: string) => FRAGMENTS.filter((f) => text.includes(f));

let stub: StubLlm;
let tc: TestClient;
let worker: WorkerProcess;
let web: TestHttpMcpServer;
let queue: string;
const runs: string[] = [];

beforeAll(async () => {
  stub = await startStubLlm();
  tc = await connectClient();
  web = new TestHttpMcpServer();
  web.leakAuthorizationOnCall = true;
  await web.start();
  const dir = tempDir('troupe-secrets-');
  const toolsFile = path.join(dir, 'tools.yaml');
  fs.writeFileSync(
    toolsFile,
    `mcp_servers:
  leaky:
    command: ${JSON.stringify(process.execPath)}
    args: ${JSON.stringify([...FIXTURE_SERVER_ARGS, 'leaky', path.join(dir, 'started-once')])}
    env: { LEAK_TOKEN: "\${STDIO_TOKEN}" }
    retries: 0
  web:
    url: ${web.url}
    headers: { Authorization: "Bearer \${HTTP_TOKEN}" }
    retries: 0
`,
  );
  queue = uniqueTaskQueue('secrets');
  worker = await startWorkerProcess(
    {
      TEMPORAL_ADDRESS: testAddress(),
      TROUPE_TASK_QUEUE: queue,
      OPENAI_BASE_URL: stub.url,
      OPENAI_API_KEY: KEY,
      STDIO_TOKEN,
      HTTP_TOKEN,
      TROUPE_PAYLOAD_KEY: '',
    },
    60_000,
    ['--tools', toolsFile],
  );
}, 120_000);

afterAll(async () => {
  await worker?.kill();
  await web?.stop();
  await tc?.close();
  await stub?.close();
  removeDirs();
});

async function run(graph: CompiledGraph): Promise<RunResult> {
  const handle = await startRun(tc.client, { role: graph, task: 'go', taskQueue: queue });
  runs.push(handle.workflowId);
  return handle.result();
}

const solo = (name: string, tools = '') =>
  compileYaml(`
name: ${name}
agents:
  writer: { instructions: "Write."${tools} }
collaboration: { topology: pipeline, agents: [writer] }
`);

test('an echoed key and echoed tool tokens are nowhere a run leaves a trace', async () => {
  // a 200 completion that repeats the key, and a 200 body that is not JSON and repeats it
  stub.script('writer', [{ text: `Your key is ${KEY}, keep it safe.` }]);
  const echoed = await run(solo('echo-json'));
  expect(echoed).toMatchObject({ status: 'completed', finalText: `Your key is ${REDACTED}, keep it safe.` });
  stub.script('writer', [{ body: `<html>bad gateway for ${KEY}</html>`, contentType: 'text/html' }]);
  const notJson = await run(solo('echo-html'));
  expect(notJson).toMatchObject({ status: 'failed', reason: 'activity_failed' });
  expect(notJson.diagnostics?.message).toContain(REDACTED);

  // the tool servers: a stderr tail and an HTTP error body
  stub.script('writer', [
    { toolCalls: [{ name: 'leaky__die', arguments: {} }] },
    { toolCalls: [{ name: 'leaky__pid', arguments: {} }, { name: 'web__whoami', arguments: {} }] },
    { text: 'tools failed' },
  ]);
  const tools = await run(solo('echo-tools', ', tools: [leaky.die, leaky.pid, web.whoami]'));
  expect(tools).toMatchObject({ status: 'completed', finalText: 'tools failed' });
  const answers = stub.requestsFor('writer').at(-1)!.messages.filter((m) => m.role === 'tool').map((m) => m.content);
  // the control: what the servers said quoted each token, and the model reads it redacted
  expect(answers.find((a) => a.includes('stderr ended with'))).toContain(`fixture: using token ${REDACTED}`);
  expect(answers.find((a) => a.includes('authorization'))).toContain(`authorization: ${REDACTED}`);

  const texts: string[] = [worker.output(), JSON.stringify(stub.requests.map((r) => r.body))];
  for (const id of runs) {
    for (const args of [['result', id, '--json'], ['status', id, '--json'], ['transcript', id, '--json'], ['result', id]]) {
      const cli = await troupe(...args);
      texts.push(cli.stdout, cli.stderr);
    }
    texts.push(execFileSync(process.env.TEMPORAL_TEST_CLI!, ['workflow', 'show', '--workflow-id', id, '--address', testAddress(), '--output', 'json'], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 }));
  }
  expect(texts.map(leaks)).toEqual(texts.map(() => []));
  // the control: the key was sent as a bearer token, and the HTTP server saw its token
  for (const r of stub.requests) expect(r.headers.authorization).toBe(`Bearer ${KEY}`);
  expect(worker.output()).toContain(REDACTED);
});
