/**
 * A rolling upgrade under live runs on the deployment of docker-compose.yml (test/cluster/cluster.ts):
 * Temporal 1.30.1 on PostgreSQL, `troupe worker` processes. It runs the operator's commands of
 * docs/versioning.md, "A rolling upgrade on a cluster", in their order, and checks each as the doc
 * says to before the next:
 *
 * build A (this clone) has two workers and is current; runs waiting for a human (`before_exit`) are
 * on A. Build B — a copy of the release whose run workflow adds a warning at its end, unguarded —
 * gets two workers and is made current; A shows draining. New runs start and finish on B with B's
 * warning; the waiting runs are approved and finish on A without it, every workflow task completed
 * by an A worker. A becomes drained; its workers get SIGTERM and exit 0; a last run finishes on B.
 *
 * The server's drainage check is shortened by two dynamic config keys (the production defaults are
 * 3 min each; the doc says so). The figures for RELIABILITY.md are printed as `[cluster upgrade] …`.
 */
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { promisify } from 'node:util';
import type { Client, WorkflowHandle } from '@temporalio/client';
import { approve, runHandle, startRun, waitForRequest } from '../../src/client';
import type { RunResult } from '../../src/core/ending/result';
import { CLI_WORKER_STOP_TEXTS } from '../../src/cli/worker';
import { compileYaml } from '../helpers/compile';
import { patchedRelease, warnAtEnd } from '../helpers/patched-release';
import { waitForStatus } from '../helpers/runs';
import { startStubLlm, type StubLlm } from '../helpers/stub-llm';
import { connectClient, uniqueWorkflowId, type TestClient } from '../helpers/temporal';
import { startCluster, type Cluster, type ClusterWorker } from './cluster';

const execFileAsync = promisify(execFile);
const REPO = path.resolve(__dirname, '..', '..');

/** The warning build B adds at the end of every run it finishes. */
const B_WARNING = 'finished by build B';

/** A one-agent run that waits for a human before it ends. */
const APPROVED = `
name: upgraded
agents:
  writer: { instructions: "Write." }
collaboration:
  topology: pipeline
  agents: [writer]
approval:
  before_exit: true
`;

/** Runs started on A before the upgrade, waiting for a human through it. */
const WAITING_ON_A = 3;
/** Runs started once B is current, while A drains. */
const STARTED_ON_B = 2;

/**
 * The drainage check shortened from the production defaults (3 min each, Temporal 1.30.1's
 * `common/dynamicconfig/constants.go`): the first check a grace period after a build stops being
 * current, then one per refresh interval until no open run is pinned to it.
 */
const DRAINAGE = {
  'matching.wv.VersionDrainageStatusVisibilityGracePeriod': '2s',
  'matching.wv.VersionDrainageStatusRefreshInterval': '1s',
};

/** The commands of docs/versioning.md, "A rolling upgrade on a cluster", as the test runs them. */
const COMMANDS = {
  workerA: 'troupe worker --deployment-name troupe --build-id A',
  currentA: 'temporal worker deployment set-current-version --deployment-name troupe --build-id A --yes',
  workerB: 'troupe worker --deployment-name troupe --build-id B',
  currentB: 'temporal worker deployment set-current-version --deployment-name troupe --build-id B --yes',
  describeA: 'temporal worker deployment describe-version --deployment-name troupe --build-id A',
  describeB: 'temporal worker deployment describe-version --deployment-name troupe --build-id B',
  runningOnA: `temporal workflow count --query "TemporalWorkerDeploymentVersion = 'troupe:A' AND ExecutionStatus = 'Running'"`,
  approve: 'troupe approve <id>',
  stopA: 'kill -TERM',
} as const;

let cluster: Cluster;
let stub: StubLlm;
let tc: TestClient;
let copy: string;

/** The figures printed for RELIABILITY.md. */
function report(line: string): void {
  process.stdout.write(`[cluster upgrade] ${line}\n`);
}

/** A copy of the release (src/, bin/, package.json, tsconfig.json) whose run workflow warns {@link B_WARNING}; its `bin/troupe.js`. */
function releaseB(): string {
  copy = patchedRelease('build-B', warnAtEnd(B_WARNING), ['src', 'bin', 'package.json', 'tsconfig.json']);
  return path.join(copy, 'bin', 'troupe.js');
}

/**
 * `command` (one of {@link COMMANDS}, a `temporal` one) run against the cluster, as an operator's
 * shell with TEMPORAL_ADDRESS set runs it; a double-quoted part is one argument.
 */
async function temporal(command: string, ...extra: string[]): Promise<string> {
  const [, ...args] = (command.match(/"[^"]*"|\S+/g) ?? []).map((a) => a.replace(/^"(.*)"$/, '$1'));
  const { stdout } = await execFileAsync(cluster.cli, [...args, ...extra], {
    env: { ...process.env, TEMPORAL_ADDRESS: cluster.address, TEMPORAL_NAMESPACE: cluster.namespace },
  });
  return stdout;
}

/** What set-current-version refused before it accepted, and how long that took. */
interface Refusals {
  messages: string[];
  ms: number;
}

/**
 * Run a set-current-version command until the server accepts it, as docs/versioning.md says to:
 * it refuses a build no worker of which has polled yet, and a build whose workers have not yet
 * polled every task queue the current build's do.
 */
async function setCurrent(command: string): Promise<Refusals> {
  const started = Date.now();
  const messages: string[] = [];
  for (;;) {
    try {
      expect(await temporal(command)).toContain('Successfully set the current worker deployment version');
      return { messages, ms: Date.now() - started };
    } catch (e) {
      const { stderr = '' } = e as { stderr?: string };
      if (!/not found|missing active task queues/i.test(stderr) || Date.now() - started > 120_000) throw new Error(`${command} failed: ${stderr || (e as Error).message}`);
      messages.push(stderr.trim());
      await new Promise((r) => setTimeout(r, 500));
    }
  }
}

/**
 * A build's state as describe-version prints it, read as an operator reads it: `CurrentSinceTime` on
 * the current build, `DrainageStatus draining` once another is current, `drained` once no open run is
 * pinned to it (CLI 1.5.1's text; its `--output json` has the same as `currentSinceTime` and
 * `drainageInfo.drainageStatus`).
 */
async function describeVersion(command: string): Promise<{ current: boolean; drainage: string; text: string }> {
  const text = await temporal(command);
  return { current: /^\s*CurrentSinceTime\s/m.test(text), drainage: /^\s*DrainageStatus\s+(\w+)/m.exec(text)?.[1] ?? '', text };
}

/** Ask describe-version until `pred` holds (at most `ms`); the last answer. */
async function describeUntil(command: string, pred: (d: { current: boolean; drainage: string }) => boolean, ms: number) {
  const deadline = Date.now() + ms;
  for (;;) {
    const d = await describeVersion(command);
    if (pred(d)) return d;
    if (Date.now() > deadline) throw new Error(`${command}: never as expected; last:\n${d.text}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** How many runs are still open on A, as `temporal workflow count` prints it (`Total: N`). */
async function runningOnA(): Promise<number> {
  const total = /Total:\s*(\d+)/.exec(await temporal(COMMANDS.runningOnA))?.[1];
  expect(total).toBeDefined();
  return Number(total);
}

/** The workers of a build, started together as the doc's command (the harness adds `--metrics`). */
function startBuild(command: string, count: number, bin?: string): Promise<ClusterWorker[]> {
  const [, , ...args] = command.split(' ');
  const env = { OPENAI_BASE_URL: stub.url, OPENAI_API_KEY: 'test-key', TROUPE_TASK_QUEUE: 'troupe' };
  return Promise.all(Array.from({ length: count }, () => cluster.startWorker(env, args, bin)));
}

function start(client: Client) {
  const graph = compileYaml(APPROVED);
  return startRun(client, { role: graph, task: 'test task', taskQueue: 'troupe', workflowId: uniqueWorkflowId(graph.name) });
}

/** The build ids of the workers that completed the run's workflow tasks, in order. */
async function taskBuilds(handle: WorkflowHandle): Promise<string[]> {
  const events = (await handle.fetchHistory()).events ?? [];
  return events.flatMap((e) => (e.workflowTaskCompletedEventAttributes ? [e.workflowTaskCompletedEventAttributes.deploymentVersion?.buildId ?? '(none)'] : []));
}

/** The build a run is pinned to (`describe()` has it in `raw` only). */
async function pinnedBuild(handle: WorkflowHandle): Promise<string | undefined> {
  const info = (await handle.describe()).raw.workflowExecutionInfo?.versioningInfo;
  return `${info?.deploymentVersion?.deploymentName}:${info?.deploymentVersion?.buildId}`;
}

/** Approve a run's pending request with the library, as an application does. */
async function approveWithLibrary(workflowId: string): Promise<void> {
  const handle = runHandle(tc.client, workflowId);
  const request = await waitForRequest(handle);
  expect(request).toBeDefined();
  expect(await approve(handle, request!)).toMatchObject({ outcome: 'applied' });
}

/** `troupe approve <id>` as its own process, as an operator runs it. */
async function approveWithCli(workflowId: string): Promise<void> {
  const bin = path.join(REPO, 'bin', 'troupe.js');
  const { stdout, stderr } = await execFileAsync(process.execPath, [bin, 'approve', workflowId], {
    env: { ...process.env, TEMPORAL_ADDRESS: cluster.address, TEMPORAL_NAMESPACE: cluster.namespace },
  }).catch((e: { stdout?: string; stderr?: string; message: string }) => {
    throw new Error(`troupe approve ${workflowId} failed: ${e.stdout ?? ''}${e.stderr ?? e.message}`);
  });
  expect(`${stdout}${stderr}`).not.toMatch(/refused|not found/i);
}

beforeAll(async () => {
  stub = await startStubLlm();
  stub.script('writer', [{ text: 'the draft' }]);
  cluster = await startCluster({ extraDynamicConfig: DRAINAGE });
  tc = await connectClient(cluster.address, cluster.namespace);
}, 300_000);

afterAll(async () => {
  await tc?.close();
  await cluster?.stop();
  await stub?.close();
  if (copy) fs.rmSync(copy, { recursive: true, force: true });
}, 120_000);

test('runs waiting on build A finish on A while new runs take B; A drains, its workers stop on SIGTERM and B serves on', async () => {
  const began = Date.now();
  // the doc's commands are the ones run here
  const doc = fs.readFileSync(path.join(REPO, 'docs', 'versioning.md'), 'utf8');
  const section = doc.slice(doc.indexOf('## A rolling upgrade on a cluster'));
  expect(section.startsWith('## A rolling upgrade on a cluster')).toBe(true);
  for (const command of Object.values(COMMANDS)) expect(section).toContain(command);

  // 1–2. build A's workers, then A current
  let t = Date.now();
  const workersA = await startBuild(COMMANDS.workerA, 2);
  const startedA = Date.now() - t;
  const refusedA = await setCurrent(COMMANDS.currentA);
  expect(await describeVersion(COMMANDS.describeA)).toMatchObject({ current: true, drainage: '' });

  // runs that wait for a human, on A
  const onA = await Promise.all(Array.from({ length: WAITING_ON_A }, () => start(tc.client)));
  for (const h of onA) await waitForStatus(h, (s) => s.phase === 'awaiting_human', 60_000);
  for (const h of onA) expect(await pinnedBuild(h)).toBe('troupe:A');

  // 3–4. build B's workers beside A's, then B current; A shows draining
  const bin = releaseB();
  t = Date.now();
  const workersB = await startBuild(COMMANDS.workerB, 2, bin);
  const startedB = Date.now() - t;
  const refusedB = await setCurrent(COMMANDS.currentB);
  const madeCurrentB = Date.now();
  expect(await describeVersion(COMMANDS.describeB)).toMatchObject({ current: true, drainage: '' });
  expect(await describeUntil(COMMANDS.describeA, (d) => d.drainage !== '', 30_000)).toMatchObject({ current: false, drainage: 'draining' });

  // new runs start on B and finish on B, with B's warning
  const onB = await Promise.all(Array.from({ length: STARTED_ON_B }, () => start(tc.client)));
  for (const h of onB) await approveWithLibrary(h.workflowId);
  for (const h of onB) {
    const result: RunResult = await h.result();
    expect(result).toMatchObject({ status: 'completed', reason: 'exit', finalText: 'the draft' });
    expect(result.warnings).toContain(B_WARNING);
    expect(await pinnedBuild(h)).toBe('troupe:B');
    expect(new Set(await taskBuilds(h))).toEqual(new Set(['B']));
  }
  // A is still draining: its runs wait, and visibility lists them on A
  expect((await describeVersion(COMMANDS.describeA)).drainage).toBe('draining');
  expect(await runningOnA()).toBe(WAITING_ON_A);

  // 5. the waiting runs approved (`troupe approve <id>`): they finish on A, as A would
  for (const h of onA) await approveWithCli(h.workflowId);
  let lastOnA = 0;
  for (const h of onA) {
    const result: RunResult = await h.result();
    lastOnA = Math.max(lastOnA, (await h.describe()).closeTime?.getTime() ?? Infinity);
    expect(result).toMatchObject({ status: 'completed', reason: 'exit', finalText: 'the draft' });
    expect(result.warnings).not.toContain(B_WARNING);
    expect(await pinnedBuild(h)).toBe('troupe:A');
    const tasks = await taskBuilds(h);
    expect(tasks.length).toBeGreaterThan(1);
    expect(new Set(tasks)).toEqual(new Set(['A']));
  }

  // 6. A drained
  await describeUntil(COMMANDS.describeA, (d) => d.drainage === 'drained', 120_000);
  const drained = Date.now();
  expect(await runningOnA()).toBe(0);

  // 7. A's workers stopped with SIGTERM: they drain and exit 0
  for (const w of workersA) {
    await w.stop();
    cluster.dropWorker(w);
    expect(w.child.exitCode).toBe(0);
    expect(w.output()).toContain(CLI_WORKER_STOP_TEXTS.stopped);
  }

  // B serves on: a last run
  const last = await start(tc.client);
  await approveWithLibrary(last.workflowId);
  const lastResult: RunResult = await last.result();
  expect(lastResult).toMatchObject({ status: 'completed', reason: 'exit' });
  expect(lastResult.warnings).toContain(B_WARNING);
  expect(new Set(await taskBuilds(last))).toEqual(new Set(['B']));
  expect(workersB.every((w) => w.child.exitCode === null)).toBe(true);
  expect(stub.hits('writer')).toBe(WAITING_ON_A + STARTED_ON_B + 1);

  report(`runs on A: ${WAITING_ON_A} (waited for a human through the upgrade, every workflow task by A); runs on B: ${STARTED_ON_B + 1} (${STARTED_ON_B} while A drained, 1 after A stopped)`);
  report(`set-current-version A: ${refusedA.messages.length} refused over ${(refusedA.ms / 1000).toFixed(1)} s${refusedA.messages.length ? ` (${distinct(refusedA.messages)})` : ''}`);
  report(`set-current-version B: ${refusedB.messages.length} refused over ${(refusedB.ms / 1000).toFixed(1)} s${refusedB.messages.length ? ` (${distinct(refusedB.messages)})` : ''}`);
  report(`A drained ${((drained - lastOnA) / 1000).toFixed(1)} s after its last run ended, ${((drained - madeCurrentB) / 1000).toFixed(1)} s after B became current (grace ${DRAINAGE['matching.wv.VersionDrainageStatusVisibilityGracePeriod']}, refresh ${DRAINAGE['matching.wv.VersionDrainageStatusRefreshInterval']})`);
  report(`workers started (spawn to polling, a build's two together): A's 2 in ${(startedA / 1000).toFixed(1)} s, B's 2 in ${(startedB / 1000).toFixed(1)} s`);
  report(`A's ${workersA.length} workers exited 0 on SIGTERM; B's ${workersB.length} served on; scenario ${((Date.now() - began) / 1000).toFixed(0)} s`);
}, 600_000);

/** The distinct messages, each once. */
function distinct(messages: string[]): string {
  return [...new Set(messages.map((m) => m.replace(/\s+/g, ' ')))].join(' | ');
}
