/**
 * The deployment of docker-compose.yml as local processes (test/cluster/cluster.ts): Temporal on
 * PostgreSQL with troupe's search attributes registered by deploy/scripts/setup-namespace.sh, three
 * `troupe worker --metrics` processes on one task queue, and Prometheus scraping them with the jobs of
 * deploy/prometheus/prometheus.yml (docs/deploying.md, "The deployment, run for real").
 *
 * `troupe list --waiting`, `--graph`, `--status` and `--thread` answer from SQL visibility (not the
 * memo fallback); Prometheus scraped all three workers, and its sums of troupe's token and tool-call
 * series equal the RunResults' sums; `troupe_runs_waiting` is the number of runs that wait.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { temporal } from '@temporalio/proto';
import { approve, startRun, type RunHandle } from '../../src/client';
import type { RunResult } from '../../src/core/ending/result';
import { TROUPE_METRICS } from '../../src/core/observe/metric-catalogue';
import { WAITING_POLL } from '../../src/telemetry/waiting';
import { CLI_LIST_TEXTS } from '../../src/cli/list';
import { troupeAt } from '../helpers/cli';
import { compileYaml } from '../helpers/compile';
import { waitForStatus } from '../helpers/runs';
import { startStubLlm, type StubLlm } from '../helpers/stub-llm';
import { connectClient, type TestClient } from '../helpers/temporal';
import { SERVER_TOOLS } from '../helpers/tools';
import { startCluster, type Cluster } from './cluster';

jest.setTimeout(600_000);

const QUEUE = 'troupe';

const LOOP = `
name: cluster-loop
agents:
  writer: { instructions: "Write." }
  critic: { instructions: "Review. End with score: N." }
collaboration:
  topology: review-loop
  agents: [writer, critic]
  max_iterations: 3
  termination:
    any_of:
      - result_matches: { agent: critic, score_gte: 85 }
`;

const CLERK = `
name: cluster-clerk
agents:
  clerk: { instructions: "File it.", tools: [append_line] }
collaboration:
  topology: pipeline
  agents: [clerk]
`;

const GATED = `
name: cluster-gated
agents:
  editor: { instructions: "Edit." }
collaboration:
  topology: pipeline
  agents: [editor]
approval:
  before_exit: true
`;

let cluster: Cluster;
let stub: StubLlm;
let tc: TestClient;
const log = (line: string) => process.stderr.write(`[cluster] ${line}\n`);

beforeAll(async () => {
  cluster = await startCluster({ log });
  stub = await startStubLlm();
  const toolsFile = path.join(cluster.dir, 'tools.yaml');
  fs.writeFileSync(toolsFile, `modules: [${JSON.stringify(SERVER_TOOLS)}]\n`);
  const env = { TROUPE_TASK_QUEUE: QUEUE, OPENAI_BASE_URL: stub.url, OPENAI_API_KEY: 'cluster-key', [WAITING_POLL.env]: '500' };
  await Promise.all([0, 1, 2].map(() => cluster.startWorker(env, ['--tools', toolsFile])));
  tc = await connectClient(cluster.address, cluster.namespace);
}, 600_000);

afterAll(async () => {
  await tc?.close();
  await stub?.close();
  await cluster?.stop();
});

/** Each worker's `troupe_runs_waiting` for the queue, as Prometheus last scraped it. */
async function waitingGauges(): Promise<number[]> {
  const rows = await cluster.prometheus.query(`${TROUPE_METRICS.runsWaiting.name}{taskQueue="${QUEUE}"}`);
  return rows.map((r) => r.value);
}

/** Wait until `check` holds for what `read` returns (Prometheus scrapes every second). */
async function until<T>(read: () => Promise<T>, check: (v: T) => boolean, what: string, ms = 60_000): Promise<T> {
  const deadline = Date.now() + ms;
  let last: T | undefined;
  let failure = '';
  for (;;) {
    last = await read().catch((e: unknown) => {
      failure = e instanceof Error ? e.message : String(e);
      return undefined;
    });
    if (last !== undefined && check(last)) return last;
    if (Date.now() > deadline) throw new Error(`${what}; last seen: ${JSON.stringify(last)}${failure ? ` (last error: ${failure})` : ''}`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

/** One instant vector summed to a number (0 when empty). */
async function sum(expr: string): Promise<number> {
  return (await cluster.prometheus.query(`sum(${expr})`)).reduce((n, r) => n + r.value, 0);
}

test('the deploy scripts set the server up: the namespace and the five search attributes with their types', async () => {
  expect(cluster.setupOutput).toContain('setup-postgres-schema: done');
  for (const name of ['TroupeGraph', 'TroupeStatus', 'TroupeReason', 'TroupeThread']) expect(cluster.setupOutput).toContain(`search attribute ${name} (Keyword) registered`);
  expect(cluster.setupOutput).toContain('search attribute TroupeWaiting (Bool) registered');
  const described = await tc.client.connection.operatorService.listSearchAttributes({ namespace: cluster.namespace });
  const custom = described.customAttributes ?? {};
  const { INDEXED_VALUE_TYPE_KEYWORD: KEYWORD, INDEXED_VALUE_TYPE_BOOL: BOOL } = temporal.api.enums.v1.IndexedValueType;
  expect(custom).toMatchObject({ TroupeGraph: KEYWORD, TroupeStatus: KEYWORD, TroupeReason: KEYWORD, TroupeThread: KEYWORD, TroupeWaiting: BOOL });
});

test('runs on three workers: list answers from SQL visibility, Prometheus sums equal the RunResults', async () => {
  // every worker is scraped before the runs start
  await until(() => cluster.prometheus.targetsUp(), (up) => cluster.workers.every((w) => up.includes(w.metrics)), 'Prometheus did not scrape all three workers');
  await until(waitingGauges, (g) => g.length === 3 && g.every((v) => v === 0), 'troupe_runs_waiting was not 0 on each worker');

  const receipts = path.join(cluster.dir, 'receipts');
  fs.mkdirSync(receipts);
  stub.respond((req) => {
    const n = Number(/run (\d+)/.exec(JSON.stringify(req.messages))?.[1] ?? 0);
    const usage = { prompt_tokens: 100 + n, completion_tokens: 10 + (n % 7) };
    if (req.agent === 'critic') {
      const round = stub.requests.filter((r) => r.workflowId === req.workflowId && r.agent === 'critic' && r.n < req.n && r.callId !== req.callId).length;
      return { text: `Fine.\nscore: ${70 + 10 * round}`, usage };
    }
    if (req.agent === 'clerk') {
      const told = JSON.stringify(req.messages).includes('appended');
      return told ? { text: 'filed', usage } : { toolCalls: [{ name: 'append_line', arguments: { file: path.join(receipts, `${n}.txt`), line: `run ${n}` } }], usage };
    }
    return { text: `draft for run ${n}`, usage };
  });

  const start = (yaml: string, i: number) =>
    startRun(tc.client, { role: compileYaml(yaml), task: `run ${i}`, workflowId: `cluster-${compileYaml(yaml).name}-${i}`, taskQueue: QUEUE });
  const loops = await Promise.all([1, 2, 3, 4, 5, 6].map((i) => start(LOOP, i)));
  const clerks = await Promise.all([7, 8, 9, 10].map((i) => start(CLERK, i)));
  const gated = await Promise.all([11, 12, 13].map((i) => start(GATED, i)));
  const finished: RunResult[] = await Promise.all([...loops, ...clerks].map((h) => h.result()));
  expect(finished.map((r) => r.status)).toEqual(Array(10).fill('completed'));
  for (const h of gated) await waitForStatus(h, (s) => s.phase === 'awaiting_human', 60_000);

  // visibility: the search attributes, in PostgreSQL (the list falls back to memos only when a query is refused)
  const ids = (out: string) => (JSON.parse(out) as Array<{ workflowId: string }>).map((r) => r.workflowId).sort();
  const listed = async (...args: string[]) => {
    const r = await troupeAt(cluster.address, 'list', ...args);
    expect(r.stderr).not.toContain(CLI_LIST_TEXTS.memoFallback);
    expect(r.code).toBe(0);
    return r.stdout;
  };
  await until(
    async () => ids(await listed('--waiting', '--json')),
    (w) => JSON.stringify(w) === JSON.stringify(gated.map((h) => h.workflowId).sort()),
    'troupe list --waiting did not list exactly the three waiting runs',
  );
  expect(await listed('--waiting')).toContain('cluster-gated-11');
  await until(
    async () => ids(await listed('--graph', 'cluster-loop', '--status', 'completed', '--json')),
    (l) => JSON.stringify(l) === JSON.stringify(loops.map((h) => h.workflowId).sort()),
    'troupe list --graph cluster-loop --status completed did not list the six loops',
  );
  expect(ids(await listed('--graph', 'cluster-clerk', '--json'))).toEqual(clerks.map((h) => h.workflowId).sort());

  // Prometheus: every worker scraped; troupe's series summed over the workers equal the RunResults'
  const prompt = finished.reduce((n, r) => n + r.usage.promptTokens, 0);
  const completion = finished.reduce((n, r) => n + r.usage.completionTokens, 0);
  const toolCalls = finished.reduce((n, r) => n + (r.usage.toolCalls?.total ?? 0), 0);
  expect(toolCalls).toBe(4);
  // the waiting runs' one call each is counted too (their results come once they are approved)
  const gatedPrompt = [11, 12, 13].reduce((n, i) => n + 100 + i, 0);
  const gatedCompletion = [11, 12, 13].reduce((n, i) => n + 10 + (i % 7), 0);
  const tokens = TROUPE_METRICS.tokens.name;
  await until(
    async () => [await sum(`${tokens}{type="input"}`), await sum(`${tokens}{type="output"}`), await sum(TROUPE_METRICS.toolCalls.name)],
    ([i, o, t]) => i === prompt + gatedPrompt && o === completion + gatedCompletion && t === toolCalls,
    `Prometheus's token and tool-call sums never equalled the RunResults' (${prompt + gatedPrompt} in, ${completion + gatedCompletion} out, ${toolCalls} tool calls)`,
  );
  const perWorker = await cluster.prometheus.query(`sum by (instance) (${TROUPE_METRICS.modelCalls.name})`);
  log(`model requests per worker: ${perWorker.map((r) => `${r.labels.instance} ${r.value}`).join(', ')}`);
  expect(await sum(TROUPE_METRICS.modelCalls.name)).toBe(stub.requests.length);
  expect(fs.readdirSync(receipts).sort()).toEqual(['10.txt', '7.txt', '8.txt', '9.txt']);

  // troupe_runs_waiting: each worker counts the queue's three waiting runs, then none
  await until(waitingGauges, (g) => g.length === 3 && g.every((v) => v === 3), 'troupe_runs_waiting never showed the three waiting runs on each worker');
  for (const h of gated) {
    const status = await waitForStatus(h, (s) => s.pending.length > 0, 10_000);
    const answered = await approve(h as RunHandle, status.pending[0], { by: 'cluster test' });
    expect(answered.outcome).toBe('applied');
  }
  expect((await Promise.all(gated.map((h) => h.result()))).map((r) => r.status)).toEqual(['completed', 'completed', 'completed']);
  await until(waitingGauges, (g) => g.length === 3 && g.every((v) => v === 0), 'troupe_runs_waiting did not go back to 0');
  await until(async () => ids(await listed('--waiting', '--json')), (w) => w.length === 0, 'troupe list --waiting still listed runs');
});

test('a continued run is found by its thread (TroupeThread, a Keyword in SQL visibility)', async () => {
  stub.respond(() => ({ text: 'second draft' }));
  const first = await troupeAt(cluster.address, 'list', '--graph', 'cluster-loop', '--json');
  const source = (JSON.parse(first.stdout) as Array<{ workflowId: string }>)[0].workflowId;
  const handle = await startRun(tc.client, { role: compileYaml(LOOP), task: 'go on', continueFrom: source, taskQueue: QUEUE });
  expect((await handle.result()).status).toBeDefined();
  const thread = await troupeAt(cluster.address, 'list', '--thread', source, '--json');
  expect(thread.code).toBe(0);
  expect((JSON.parse(thread.stdout) as Array<{ workflowId: string }>).map((r) => r.workflowId)).toEqual([source, handle.workflowId]);
});
