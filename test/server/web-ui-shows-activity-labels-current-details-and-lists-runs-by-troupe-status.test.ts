/**
 * The Temporal Web UI as troupe's history view, seen in a real browser (docs/operating.md): headless
 * Chromium (Debian's `chromium`, driven by playwright-core) opens the dev server's UI on a finished
 * run of the demo role and finds each agent call's label on the timeline, the run's summary, details
 * and current details (with its final status line) on the User Metadata tab; a second page lists runs
 * filtered by `TroupeStatus` and shows exactly the exhausted one. Skipped, saying so, where no
 * Chromium is installed. With TROUPE_SCREENSHOTS=<dir> the pages are saved there (the README's
 * pictures come from `TROUPE_SCREENSHOTS=docs/images`).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import type { Worker } from '@temporalio/worker';
import type { Browser, Page } from 'playwright-core';
import { startRun, waitResult } from '../../src/client';
import { loadRoleFile } from '../../src/config-file';
import { freePort, type DevServer } from '../../src/dev/temporal-server';
import { startOfflineModel, type OfflineModel } from '../../src/dev/offline-model';
import { bundleWorkflows, createWorker } from '../../src/worker';
import { compileYaml } from '../helpers/compile';
import { installQuietRuntime, startDedicatedServer, uniqueTaskQueue } from '../helpers/temporal';

const CHROMIUM = process.env.TROUPE_TEST_CHROMIUM || '/usr/bin/chromium';
const HAS_CHROMIUM = fs.existsSync(CHROMIUM);
const SCREENSHOTS = process.env.TROUPE_SCREENSHOTS;
const DEMO = path.resolve(__dirname, '..', '..', 'examples', 'review-loop.yaml');
const EXHAUSTING = compileYaml(`
name: round-table
agents:
  pro: { instructions: "Argue for." }
  con: { instructions: "Argue against." }
collaboration:
  topology: round-robin
  agents: [pro, con]
  termination:
    any_of:
      - max_messages: 3
`);

let server: DevServer;
let model: OfflineModel;
let worker: Worker | undefined;
let running: Promise<void> | undefined;
let connection: Connection | undefined;
let browser: Browser | undefined;
let completedId: string;
let exhaustedId: string;

beforeAll(async () => {
  if (!HAS_CHROMIUM) {
    process.stderr.write(`\nskipping the Web UI browser test: no Chromium at ${CHROMIUM} (apt-get install chromium, or set TROUPE_TEST_CHROMIUM)\n`);
    return;
  }
  installQuietRuntime();
  server = await startDedicatedServer({}, { headless: false, uiPort: await freePort() });
  model = await startOfflineModel();
  const taskQueue = uniqueTaskQueue('ui');
  worker = await createWorker({
    address: server.address,
    taskQueue,
    workflowBundle: await bundleWorkflows(),
    shutdownGraceMs: 0,
    llm: { baseUrl: model.url, apiKey: 'offline', env: {} },
  });
  running = worker.run();
  connection = await Connection.connect({ address: server.address });
  const client = new Client({ connection });
  const demo = await startRun(client, { role: loadRoleFile(DEMO).graph!, taskQueue });
  const table = await startRun(client, { role: EXHAUSTING, task: 'Should agents wait for humans?', taskQueue });
  expect(await waitResult(demo)).toMatchObject({ status: 'completed', reason: 'result_match' });
  expect(await waitResult(table)).toMatchObject({ status: 'exhausted', reason: 'max_messages' });
  completedId = demo.workflowId;
  exhaustedId = table.workflowId;
  const { chromium } = await import('playwright-core');
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
}, 240_000);

afterAll(async () => {
  await browser?.close();
  if (worker?.getState() === 'RUNNING') worker.shutdown();
  await running?.catch(() => undefined);
  await connection?.close();
  await model?.close();
  await server?.stop();
});

async function openPage(url: string, height = 1400): Promise<Page> {
  const page = await browser!.newPage({ viewport: { width: 1500, height } });
  await page.goto(url);
  return page;
}

async function screenshot(page: Page, name: string): Promise<void> {
  if (!SCREENSHOTS) return;
  fs.mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SCREENSHOTS, name) });
}

/** Text of the page and of its frames (the UI renders markdown in iframes). */
async function allText(page: Page): Promise<string> {
  const texts = await Promise.all(page.frames().map((f) => f.evaluate(() => (globalThis as any).document?.body?.innerText ?? '').catch(() => '')));
  return texts.join('\n');
}

/** Poll `read` until it contains every text (the UI loads its parts asynchronously). */
async function waitForTexts(read: () => Promise<string>, texts: string[], timeoutMs = 60_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  let last = '';
  while (Date.now() < deadline) {
    last = await read();
    if (texts.every((t) => last.includes(t))) return last;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`the page never showed ${JSON.stringify(texts.filter((t) => !last.includes(t)))}; it showed:\n${last.slice(0, 3000)}`);
}

const maybe = HAS_CHROMIUM ? test : test.skip;

maybe('the run page labels every agent call on the timeline; User Metadata shows the summary, details and current details', async () => {
  const base = `${server.uiUrl}/namespaces/${server.namespace}/workflows/${encodeURIComponent(completedId)}`;
  const history = await openPage(base);
  const labels = () => history.evaluate(() => Array.from((globalThis as any).document.querySelectorAll('svg text')).map((t: any) => t.textContent as string).join('\n'));
  await waitForTexts(labels, [
    'callAgent • writer · round 1 · wave 1 · iteration 1',
    'callAgent • critic · round 1 · wave 2 · iteration 1',
    'callAgent • writer · round 1 · wave 3 · iteration 2',
    'callAgent • critic · round 1 · wave 6 · iteration 3',
  ]);
  await screenshot(history, 'ui-timeline.png');
  await history.getByText('User Metadata', { exact: true }).click();
  const shown = await waitForTexts(() => allText(history), [
    'essay-review (topology review-loop): Write a 300-word essay',
    'flowchart TD',
    'any of: critic score ≥ 85',
    'completed: critic score 90 >= 85 after 1 round, 6 agent calls',
    'iterations critic ↔ writer',
  ]);
  expect(shown).toContain('writer · round 1 · wave 1 · iteration 1');
  await screenshot(history, 'ui-user-metadata.png');
  await history.close();
});

maybe('the workflow list filtered by TroupeStatus shows exactly the exhausted run', async () => {
  const query = encodeURIComponent("TroupeStatus = 'exhausted'");
  const list = await openPage(`${server.uiUrl}/namespaces/${server.namespace}/workflows?query=${query}`, 700);
  const shown = await waitForTexts(() => allText(list), [exhaustedId]);
  expect(shown).not.toContain(completedId);
  await screenshot(list, 'ui-list-by-status.png');
  await list.close();
});
