/**
 * The chaos run (test/chaos/driver.ts, RELIABILITY.md §1) on the deployment of docker-compose.yml
 * started as local processes (test/cluster/cluster.ts): Temporal on PostgreSQL, three `troupe worker`
 * processes on one task queue. 100 runs of mixed shapes (review loops, stars, swarms, nested teams,
 * gated tool calls the test approves, handoffs to the user, goal and approval runs, tool runs) with
 * model replies of 0.2–3 s; while they run, a worker is SIGKILLed, the Temporal server is killed and
 * restarted, PostgreSQL is crashed and restarted (`pg_ctl restart -m immediate`), and a fourth worker
 * joins. Every run ends exactly as its undisturbed twin (same status, reason, final text, steps and
 * calls), no step is lost or repeated, no completed call is sent again, each tool side effect happens once.
 *
 * The report is printed; with TROUPE_UPDATE_RELIABILITY=1 it replaces RELIABILITY.md's cluster section.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { reportMarkdown, runChaos, type ChaosReport, type ChaosTarget, type ScenarioKind } from '../chaos/driver';
import { startCluster, type Cluster } from './cluster';

jest.setTimeout(1_500_000);

/** The mix: every shape the issue names, 100 runs. */
const RUNS: ScenarioKind[] = [
  ...Array<ScenarioKind>(30).fill('review'),
  ...Array<ScenarioKind>(10).fill('star'),
  ...Array<ScenarioKind>(10).fill('swarm'),
  ...Array<ScenarioKind>(10).fill('team'),
  ...Array<ScenarioKind>(10).fill('gated_tool'),
  ...Array<ScenarioKind>(10).fill('handoff_user'),
  ...Array<ScenarioKind>(6).fill('approval'),
  ...Array<ScenarioKind>(6).fill('goal'),
  ...Array<ScenarioKind>(8).fill('tools'),
];

const RELIABILITY = path.resolve(__dirname, '..', '..', 'RELIABILITY.md');
const BEGIN = '<!-- cluster chaos: begin (written by npm run test:cluster with TROUPE_UPDATE_RELIABILITY=1) -->';
const END = '<!-- cluster chaos: end -->';

let cluster: Cluster;
const log = (line: string) => process.stderr.write(`[cluster chaos] ${line}\n`);

beforeAll(async () => {
  cluster = await startCluster({ log });
}, 600_000);

afterAll(async () => {
  await cluster?.stop();
});

test('100 runs on three workers end as undisturbed through a worker SIGKILL, a server and a PostgreSQL restart, and a fourth worker', async () => {
  const target: ChaosTarget = {
    address: cluster.address,
    namespace: cluster.namespace,
    startWorker: (_queue, env, args) => cluster.startWorker(env, args),
    restartServer: () => cluster.server.restart(),
    restartDatabase: () => cluster.postgres.restart(),
    faultLabels: {
      worker_kill: 'worker SIGKILL + a new worker in its place',
      server_restart: 'Temporal server (all four services) SIGKILL + restart',
      database_restart: 'PostgreSQL crash + restart (pg_ctl restart -m immediate)',
      worker_added: 'a fourth worker joins (kept to the end)',
    },
  };
  const seed = Number(process.env.TROUPE_CHAOS_SEED ?? Date.now() % 100_000);
  const report: ChaosReport = await runChaos({
    runs: RUNS,
    workers: 3,
    faults: { worker_kill: 1, server_restart: 1, database_restart: 1, worker_added: 1 },
    latencyMs: [200, 3000],
    openCallsBeforeFault: 30,
    // the new workers first: on two busy cores a worker bundles for 20-40 s before it polls
    faultOrder: ['worker_added', 'worker_kill', 'server_restart', 'database_restart'],
    seed,
    target,
    log,
  });
  const markdown = reportMarkdown(report);
  process.stdout.write(`\n[cluster chaos] seed ${seed}\n${markdown}\n`);
  if (process.env.TROUPE_UPDATE_RELIABILITY === '1') {
    const text = fs.readFileSync(RELIABILITY, 'utf8');
    const begin = text.indexOf(BEGIN);
    const end = text.indexOf(END);
    expect(begin).toBeGreaterThanOrEqual(0);
    expect(end).toBeGreaterThan(begin);
    const dated = `Measured ${new Date().toISOString().slice(0, 10)} by \`TROUPE_UPDATE_RELIABILITY=1 npm run test:cluster\`:\n\n${markdown}\n`;
    fs.writeFileSync(RELIABILITY, `${text.slice(0, begin + BEGIN.length)}\n${dated}${text.slice(end)}`);
  }

  // every fault happened, and ended (a new worker polled), while runs were still going
  expect(report.faults.map((f) => f.kind).sort()).toEqual(['database_restart', 'server_restart', 'worker_added', 'worker_kill']);
  for (const f of report.faults) expect(f.atMs + f.downMs).toBeLessThan(report.chaosMs);
  expect(report.didNotEnd).toEqual([]);
  expect(report.runs.filter((r) => !r.same)).toEqual([]);
  expect(report.stepsLost).toBe(0);
  expect(report.stepsRepeated).toBe(0);
  expect(report.requestsAfterCompletion).toBe(0);
  expect(report.duplicateEffects).toBe(0);
  expect(report.effects.chaos).toBe(report.effects.baseline);
  expect(report.effects.baseline).toBeGreaterThan(0);
});
