/**
 * `troupe codec-server` (a real process with the key) decodes what a real worker encoded: over
 * HTTP for a caller with the bearer token and the configured origin, and in the Temporal Web UI of
 * a dev server started with `--ui-codec-endpoint`, which a headless Chromium opens on an encrypted
 * run: the task shows decrypted, and with the codec server unreachable it does not. The browser
 * test is skipped, saying so, where no Chromium is installed (`apt-get install chromium`).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import { Client, Connection } from '@temporalio/client';
import type { Payload } from '@temporalio/common';
import type { Worker } from '@temporalio/worker';
import { startRun, waitResult } from '../../src/client';
import { CODEC_ENV, CODEC_SERVER_DEFAULTS, CODEC_TEXTS, troupeDataConverter } from '../../src/codec';
import { freePort, type DevServer } from '../../src/dev/temporal-server';
import { bundleWorkflows, createWorker } from '../../src/worker';
import { compileYaml } from '../helpers/compile';
import { rawHistory } from '../helpers/history-scan';
import { startStubLlm, type StubLlm } from '../helpers/stub-llm';
import { installQuietRuntime, startDedicatedServer, uniqueTaskQueue } from '../helpers/temporal';
import { startTroupeProcess, type TroupeProcess } from '../helpers/troupe-process';

const CHROMIUM = process.env.TROUPE_TEST_CHROMIUM || '/usr/bin/chromium';
const HAS_CHROMIUM = fs.existsSync(CHROMIUM);
const SOLO = compileYaml(`
name: ui-solo
agents:
  writer: { instructions: "Write." }
collaboration:
  topology: pipeline
  agents: [writer]
`);
const KEY = randomBytes(32).toString('base64');
const TOKEN = `token-${randomUUID()}`;
const TOKEN_ORIGIN = 'http://ops.example:8080';
const TASK = `UI-TASK-${randomUUID()}`;
/** base64 of `binary/encrypted`, as the UI shows an encrypted payload it could not decode. */
const ENCRYPTED_MARKER = Buffer.from('binary/encrypted').toString('base64');
const LISTENING = /troupe codec server at (http:\/\/[^\s]+) /;

let server: DevServer;
let stub: StubLlm;
let worker: Worker | undefined;
let running: Promise<void> | undefined;
let connection: Connection | undefined;
let uiCodec: TroupeProcess;
let tokenCodec: TroupeProcess;
let workflowId: string;
let inputPayloads: Payload[];

beforeAll(async () => {
  if (!HAS_CHROMIUM) process.stderr.write(`\nskipping the Web UI browser test: no Chromium at ${CHROMIUM} (apt-get install chromium, or set TROUPE_TEST_CHROMIUM)\n`);
  installQuietRuntime();
  const uiPort = await freePort();
  // the codec server the UI calls allows only the UI's origin; another one requires a token
  [uiCodec, tokenCodec] = await Promise.all([
    startTroupeProcess(['codec-server', '--port', '0', '--origin', `http://127.0.0.1:${uiPort}`], { [CODEC_ENV.key]: KEY }, LISTENING),
    startTroupeProcess(['codec-server', '--port', '0', '--origin', TOKEN_ORIGIN], { [CODEC_ENV.key]: KEY, [CODEC_ENV.token]: TOKEN }, LISTENING),
  ]);
  server = await startDedicatedServer({}, { headless: false, uiPort, uiCodecEndpoint: uiCodec.match[1] });
  stub = await startStubLlm();
  stub.script('writer', [{ text: 'a short essay' }]);
  const dataConverter = troupeDataConverter({ [CODEC_ENV.key]: KEY });
  const taskQueue = uniqueTaskQueue('ui');
  worker = await createWorker({
    address: server.address,
    taskQueue,
    dataConverter,
    workflowBundle: await bundleWorkflows(undefined, dataConverter),
    shutdownGraceMs: 0,
    llm: { baseUrl: stub.url, apiKey: 'test-key', env: {} },
  });
  running = worker.run();
  connection = await Connection.connect({ address: server.address });
  const handle = await startRun(new Client({ connection, dataConverter }), { role: SOLO, task: TASK, taskQueue });
  workflowId = handle.workflowId;
  expect(await waitResult(handle)).toMatchObject({ status: 'completed' });
  const history = await rawHistory(new Client({ connection }), workflowId);
  inputPayloads = history.events![0].workflowExecutionStartedEventAttributes!.input!.payloads! as Payload[];
}, 240_000);

afterAll(async () => {
  if (worker?.getState() === 'RUNNING') worker.shutdown();
  await running?.catch(() => undefined);
  await connection?.close();
  await stub?.close();
  await server?.stop();
  await uiCodec?.stop();
  await tokenCodec?.stop();
});

const toJson = (p: Payload) => ({
  metadata: Object.fromEntries(Object.entries(p.metadata ?? {}).map(([k, v]) => [k, Buffer.from(v!).toString('base64')])),
  data: Buffer.from(p.data ?? new Uint8Array()).toString('base64'),
});

async function decodeWith(headers: Record<string, string>) {
  const res = await fetch(`${tokenCodec.match[1]}/decode`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-namespace': 'default', origin: TOKEN_ORIGIN, ...headers },
    body: JSON.stringify({ payloads: inputPayloads.map(toJson) }),
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as { payloads?: Array<{ data: string }>; error?: string } };
}

test('the codec server decodes the input the worker stored encrypted, for the token holder only', async () => {
  expect(Buffer.from(inputPayloads[0].metadata!.encoding!).toString()).toBe('binary/encrypted');
  expect(Buffer.from(inputPayloads[0].data!).includes(TASK)).toBe(false);

  const ok = await decodeWith({ authorization: `Bearer ${TOKEN}` });
  expect(ok.status).toBe(200);
  expect(ok.headers.get('access-control-allow-origin')).toBe(TOKEN_ORIGIN);
  expect(JSON.parse(Buffer.from(ok.body.payloads![0].data, 'base64').toString('utf8'))).toMatchObject({ task: TASK });

  for (const headers of [{}, { authorization: 'Bearer not-the-token' }] as Array<Record<string, string>>) {
    const refused = await decodeWith(headers);
    expect(refused.status).toBe(401);
    expect(refused.body).toEqual({ error: CODEC_TEXTS.unauthorized });
  }
  expect(tokenCodec.output()).not.toContain(TOKEN);
  expect(tokenCodec.output()).not.toContain(TASK);
});

test('a CORS preflight from the configured origin is answered; one from another origin is refused', async () => {
  const preflight = (origin: string) =>
    fetch(`${tokenCodec.match[1]}/decode`, {
      method: 'OPTIONS',
      headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization,content-type,x-namespace' },
    });
  const ok = await preflight(TOKEN_ORIGIN);
  expect(ok.status).toBe(204);
  expect(ok.headers.get('access-control-allow-origin')).toBe(TOKEN_ORIGIN);
  expect(ok.headers.get('access-control-allow-headers')).toBe(CODEC_SERVER_DEFAULTS.allowHeaders);
  const other = await preflight('http://127.0.0.1:9');
  expect(other.status).toBe(403);
  expect(other.headers.get('access-control-allow-origin')).toBeNull();
});

(HAS_CHROMIUM ? test : test.skip)('the Web UI shows the decrypted task through the codec server, and only encrypted bytes without it', async () => {
  const { chromium } = await import('playwright-core');
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  try {
    const url = `${server.uiUrl}/namespaces/${server.namespace}/workflows/${encodeURIComponent(workflowId)}`;
    // these functions run in the browser, where `document` exists
    const shows = (text: string) => (globalThis as any).document.body.innerText.includes(text) as boolean;
    const bodyText = (page: import('playwright-core').Page) => page.evaluate(() => (globalThis as any).document.body.innerText as string);
    // a tall viewport, so the Input card renders its whole JSON
    const viewport = { width: 1400, height: 3000 };

    // without the codec server (its requests fail), the page shows only the encrypted payload
    const blind = await browser.newPage({ viewport });
    await blind.route(`${uiCodec.match[1]}/**`, (route) => route.abort());
    await blind.goto(url);
    await blind.waitForFunction(shows, ENCRYPTED_MARKER, { timeout: 60_000 });
    expect(await bodyText(blind)).not.toContain(TASK);
    await blind.close();

    // with it, the UI decrypts the input in the browser
    const decodesBefore = (uiCodec.output().match(/POST \/decode 200/g) ?? []).length;
    const page = await browser.newPage({ viewport });
    await page.goto(url);
    // decoding is asynchronous, payload by payload: wait until the task shows and no payload is left encrypted
    const decrypted = ([task, marker]: string[]) => {
      const text = (globalThis as any).document.body.innerText as string;
      return text.includes(task) && !text.includes(marker);
    };
    await page.waitForFunction(decrypted, [TASK, ENCRYPTED_MARKER], { timeout: 60_000 });
    expect((uiCodec.output().match(/POST \/decode 200/g) ?? []).length).toBeGreaterThan(decodesBefore);
    await page.close();
  } finally {
    await browser.close();
  }
});
