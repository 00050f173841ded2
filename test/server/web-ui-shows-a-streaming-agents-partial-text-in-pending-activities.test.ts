/**
 * The Temporal Web UI shows what an agent is writing while its model call streams (docs/observability.md,
 * "Live output"): headless Chromium (Debian's `chromium`, driven by playwright-core) opens the
 * run's Pending Activities tab on the dev server's UI and finds the call's heartbeat details, the
 * agent, its kind and the partial text so far, under "Heartbeat Details". Skipped, saying so,
 * where no Chromium is installed. With TROUPE_SCREENSHOTS=<dir> the card is saved there as
 * web-ui-pending-activity-partial-text.png (the picture in docs/images comes from
 * `TROUPE_SCREENSHOTS=docs/images`).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import type { Worker } from '@temporalio/worker';
import type { Browser, Page } from 'playwright-core';
import { startRun } from '../../src/client';
import { freePort, type DevServer } from '../../src/dev/temporal-server';
import { readInFlightCalls } from '../../src/client/pending-activities';
import { bundleWorkflows, createWorker } from '../../src/worker';
import { compileYaml } from '../helpers/compile';
import { startStubLlm, type StubLlm } from '../helpers/stub-llm';
import { installQuietRuntime, startDedicatedServer, uniqueTaskQueue } from '../helpers/temporal';

const CHROMIUM = process.env.TROUPE_TEST_CHROMIUM || '/usr/bin/chromium';
const HAS_CHROMIUM = fs.existsSync(CHROMIUM);
const SCREENSHOTS = process.env.TROUPE_SCREENSHOTS;
const ROLE = compileYaml(`
name: tide-essay
agents:
  writer: { instructions: "Write an essay about tides." }
collaboration:
  topology: pipeline
  agents: [writer]
`);

/** About 40 s of streaming at 12 characters every 150 ms: the page is read well before it ends. */
const ESSAY =
  'Tides are the slow breathing of the sea. Twice a day the water climbs the beach and twice it ' +
  'falls away, pulled by the moon and, more faintly, by the sun. When the two line up the tides run ' +
  'high and low together: spring tides. When they pull at right angles the range shrinks: neap ' +
  'tides. Harbours, estuaries and the shape of the sea floor bend this rhythm into local patterns, ' +
  'so that one coast sees a single tide a day while another, a few hundred miles away, sees four. ' +
  'Sailors learned these patterns long before anyone could explain them, and tide tables are still ' +
  'among the oldest predictions people trust with their lives. '.repeat(2);

let server: DevServer;
let stub: StubLlm;
let worker: Worker | undefined;
let running: Promise<void> | undefined;
let connection: Connection | undefined;
let browser: Browser | undefined;

beforeAll(async () => {
  if (!HAS_CHROMIUM) {
    process.stderr.write(`\nskipping the Web UI pending-activities test: no Chromium at ${CHROMIUM} (apt-get install chromium, or set TROUPE_TEST_CHROMIUM)\n`);
    return;
  }
  installQuietRuntime();
  server = await startDedicatedServer({}, { headless: false, uiPort: await freePort() });
  stub = await startStubLlm();
  const { chromium } = await import('playwright-core');
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
}, 240_000);

afterAll(async () => {
  await browser?.close();
  if (worker?.getState() === 'RUNNING') worker.shutdown();
  await running?.catch(() => undefined);
  await connection?.close();
  await stub?.close();
  await server?.stop();
});

/** Text of the page and of its frames. */
async function allText(page: Page): Promise<string> {
  const texts = await Promise.all(page.frames().map((f) => f.evaluate(() => (globalThis as any).document?.body?.innerText ?? '').catch(() => '')));
  return texts.join('\n');
}

/** Poll `read` until `pred` holds for what it reads. */
async function waitUntil(read: () => Promise<string>, pred: (text: string) => boolean, what: string, timeoutMs = 60_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  let last = '';
  while (Date.now() < deadline) {
    last = await read();
    if (pred(last)) return last;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`the page never showed ${what}; it showed:\n${last.slice(0, 3000)}`);
}

const maybe = HAS_CHROMIUM ? test : test.skip;

maybe('the Pending Activities tab shows the agent, its kind and the partial text under Heartbeat Details', async () => {
  const taskQueue = uniqueTaskQueue('ui-live');
  stub.script('writer', [{ text: ESSAY, stream: { chunkChars: 12, chunkDelayMs: 150 } }]);
  worker = await createWorker({
    address: server.address,
    taskQueue,
    workflowBundle: await bundleWorkflows(),
    shutdownGraceMs: 0,
    llm: { baseUrl: stub.url, apiKey: 'stub', env: {} },
  });
  running = worker.run();
  connection = await Connection.connect({ address: server.address });
  const client = new Client({ connection });
  const handle = await startRun(client, { role: ROLE, task: 'Write about tides.', taskQueue });

  // the worker has reported a sentence or two before the page opens
  const deadline = Date.now() + 60_000;
  while (!(await readInFlightCalls(handle)).some((c) => c.chars > 150)) {
    if (Date.now() > deadline) throw new Error('no partial text reached the server');
    await new Promise((r) => setTimeout(r, 200));
  }

  const url = `${server.uiUrl}/namespaces/${server.namespace}/workflows/${encodeURIComponent(handle.workflowId)}/${handle.firstExecutionRunId}/pending-activities`;
  const page = await browser!.newPage({ viewport: { width: 1400, height: 1000 } });
  await page.goto(url);
  const shown = await waitUntil(
    () => allText(page),
    (t) => t.includes('Heartbeat Details') && t.includes('"partialText"') && t.includes('Tides are the slow breathing of the sea.'),
    'the heartbeat details with the partial text',
  );
  expect(shown).toContain('callAgent');
  expect(shown).toMatch(/"agent":\s*"writer"/);
  expect(shown).toMatch(/"kind":\s*"agent"/);
  expect(shown).toMatch(/"chars":\s*\d+/);

  if (SCREENSHOTS) {
    fs.mkdirSync(SCREENSHOTS, { recursive: true });
    // the run's header, its tabs and the pending activity's card, no empty page below
    const card = await page.locator('div.surface-primary', { hasText: 'Heartbeat Details' }).first().boundingBox();
    const bottom = card ? card.y + card.height + 16 : 700;
    await page.screenshot({ path: path.join(SCREENSHOTS, 'web-ui-pending-activity-partial-text.png'), clip: { x: 80, y: 60, width: 1300, height: bottom - 60 } });
  }
  await page.close();
  await handle.terminate('the page was read');
}, 180_000);
