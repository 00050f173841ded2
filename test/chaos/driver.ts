/**
 * The chaos run (RELIABILITY.md): many troupe runs in flight while their worker is SIGKILLed and
 * restarted several times and the Temporal server itself is killed and restarted once, against a
 * stub model whose replies take a random 0.2–3 s. Every run must end exactly as an undisturbed run of
 * the same script; the stub must never see a request for a model call whose activity had completed;
 * no tool side effect may happen twice.
 *
 * Every run has a deadline in each phase; one that does not end by it is reported as "did not end",
 * with its status and the tail of its history, instead of being waited for forever.
 *
 * Used by `npm run chaos` (test/chaos/main.ts, the full run) and by a shortened version in `npm test`
 * (test/server/chaos-...test.ts). Everything is real: a dev server persisted to a SQLite file,
 * `troupe worker` processes with a tools file, the HTTP stub, the library's own client.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client, Connection, WorkflowExecutionAlreadyStartedError, type WorkflowHandle } from '@temporalio/client';
import { approve, startRun, type RunHandle } from '../../src/client';
import type { RunResult, RunStatusView } from '../../src/core/ending/result';
import { FAST_LOCAL_DYNAMIC_CONFIG, freePort, startDevServer, type DevServer } from '../../src/dev/temporal-server';
import { statusQuery } from '../../src/contract';
import type { troupeRun } from '../../src/workflows/run';
import { compileYaml } from '../helpers/compile';
import { startStubLlm, type StubStep } from '../helpers/stub-llm';
import { startWorkerProcess, type WorkerProcess } from '../helpers/worker-process';
import { pause, retrying, withinDeadline } from './deadline';
import { diagnose, stuckMarkdown, type StuckRun } from './stuck';

/** The kinds of run the chaos mixes. */
export type ScenarioKind = 'review' | 'star' | 'goal' | 'approval' | 'tools';

/** What to run and what to break. */
export interface ChaosPlan {
  /** The runs, by kind (run i is `runs[i]`). */
  runs: ScenarioKind[];
  workerKills: number;
  serverRestarts: number;
  /** Each model reply takes a random time in this range (ms). */
  latencyMs: [number, number];
  /** Seeds the moments of the faults. */
  seed: number;
  /** How long each run of a phase may take, counted from the phase's start (default `DEADLINES_MS`). */
  deadlineMs?: Deadlines;
  log?: (line: string) => void;
}

/** Per-run deadlines of the two phases, in ms. */
export interface Deadlines {
  baseline: number;
  chaos: number;
}

/**
 * The full run's deadlines: 3 and 5 minutes, eight and three times the slowest phases seen (22 s
 * undisturbed, 100 s under chaos on a busy 2-core VM; RELIABILITY.md §1), so only a run that is
 * really stuck meets them.
 */
export const DEADLINES_MS: Deadlines = { baseline: 180_000, chaos: 300_000 };

/** One fault as it happened. */
export interface FaultRecord {
  kind: 'worker_kill' | 'server_restart';
  /** ms after the chaos phase started. */
  atMs: number;
  /** Model requests the fault cut off (the killed worker's open calls, or every open call for the server). */
  requestsCut: number;
  /** ms until the worker (or server) was back. */
  downMs: number;
}

/** One run's outcome in both phases (absent from a phase in which it did not end by its deadline). */
export interface RunComparison {
  index: number;
  kind: ScenarioKind;
  baseline?: Outcome;
  chaos?: Outcome;
  same: boolean;
}

/** The parts of a RunResult that must not change under faults. */
export interface Outcome {
  status: string;
  reason: string;
  finalText: string;
  steps: number;
  agentCalls: number;
  toolCalls: number;
}

/** What the chaos run found. */
export interface ChaosReport {
  plan: Omit<ChaosPlan, 'log' | 'deadlineMs'> & { deadlineMs: Deadlines };
  faults: FaultRecord[];
  runs: RunComparison[];
  /** Runs whose outcome differed from the undisturbed run, or that did not end in a phase. */
  different: number;
  /** Runs that did not end by their deadline, in either phase, with what they were waiting for. */
  didNotEnd: StuckRun[];
  /** Agent results recorded fewer times than undisturbed (steps lost). */
  stepsLost: number;
  /** Agent results recorded more times than undisturbed (steps repeated). */
  stepsRepeated: number;
  /** Model requests for a call whose activity had already completed: must be 0. */
  requestsAfterCompletion: number;
  /** Model calls interrupted by a fault and sent again (a new attempt of an activity that had not completed). */
  callsRetried: number;
  /** Model calls lost with their worker on every attempt and dispatched again as a new activity. */
  callsRedispatched: number;
  /** Tool side effects that happened twice: must be 0. */
  duplicateEffects: number;
  /** Tool attempts beyond the first (interrupted calls tried again with the same idempotency key). */
  toolAttemptsRetried: number;
  /** Tool side effects in each phase (equal when none was lost or repeated). */
  effects: { baseline: number; chaos: number };
  baselineMs: number;
  chaosMs: number;
}

/** A small seeded random generator (mulberry32), so a plan's faults fall at reproducible moments. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The role of each kind; `dir` is where the tool of the `tools` kind files its receipts. */
function configOf(kind: ScenarioKind): string {
  switch (kind) {
    case 'review':
      return `
name: chaos-review
agents:
  writer: { instructions: "Write." }
  critic: { instructions: "Review. End with score: N." }
collaboration:
  topology: review-loop
  agents: [writer, critic]
  max_iterations: 6
  termination:
    any_of:
      - result_matches: { agent: critic, score_gte: 85 }
`;
    case 'star':
      return `
name: chaos-star
agents:
  security: { instructions: "Review security." }
  performance: { instructions: "Review performance." }
  style: { instructions: "Review style." }
  docs: { instructions: "Review docs." }
collaboration:
  topology: star
  agents: [security, performance, style, docs]
`;
    case 'goal':
      return `
name: chaos-goal
agents:
  worker: { instructions: "Work toward the goal.", tools: [goal] }
collaboration:
  topology: pipeline
  agents: [worker]
goal:
  objective: "ship the report"
  max_turns: 4
`;
    case 'approval':
      return `
name: chaos-approval
agents:
  writer: { instructions: "Write." }
  editor: { instructions: "Edit." }
collaboration:
  topology: pipeline
  agents: [writer, editor]
approval:
  before_exit: true
`;
    case 'tools':
      return `
name: chaos-tools
agents:
  clerk: { instructions: "File the receipts.", tools: [file_receipt] }
collaboration:
  topology: pipeline
  agents: [clerk]
`;
  }
}

/**
 * The model's reply to the `ordinal`-th call of `agent` in a run of `kind` (retries of one call share
 * its ordinal), `index` being the request's place within its attempt (built-in tool rounds).
 */
function replyOf(kind: ScenarioKind, agent: string, ordinal: number, index: number, receipts: string): StubStep {
  switch (kind) {
    case 'review':
      return agent === 'critic' ? { text: `Tighten the intro.\nscore: ${60 + 10 * ordinal}` } : { text: `draft ${ordinal + 1} of the essay` };
    case 'star':
      return { text: `${agent} review: two findings` };
    case 'goal':
      if (ordinal === 0) return { text: 'step 1: outline written' };
      return index === 0
        ? { toolCalls: [{ name: 'goal', arguments: { action: 'update_status', status: 'completed', evidence: 'report shipped' } }] }
        : { text: 'report shipped' };
    case 'approval':
      return { text: `${agent} text, version 1` };
    case 'tools':
      if (ordinal < 2) return { toolCalls: [{ name: 'file_receipt', arguments: { dir: receipts, amount: 10 * (ordinal + 1) } }] };
      return { text: 'filed two receipts' };
  }
}

/** The tools file of every worker: the receipt tool. */
function writeToolsFile(dir: string): string {
  const file = path.join(dir, 'tools.yaml');
  const module = path.resolve(__dirname, '..', 'fixtures', 'tools', 'chaos-tools.ts');
  fs.writeFileSync(file, `modules: [${JSON.stringify(module)}]\n`);
  return file;
}

/** How one run of a phase came out: its result, or what it was stuck on at its deadline. */
type Ending = { kind: 'ended'; workflowId: string; result: RunResult } | { kind: 'stuck'; workflowId: string; stuck: StuckRun };

/** Run the plan: an undisturbed phase, then the same runs under faults; compare. */
export async function runChaos(plan: ChaosPlan): Promise<ChaosReport> {
  const log = plan.log ?? (() => undefined);
  const deadlines = plan.deadlineMs ?? DEADLINES_MS;
  const rand = random(plan.seed);
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'troupe-chaos-')));
  const toolsFile = writeToolsFile(dir);
  const port = await freePort();
  const dbFile = path.join(dir, 'temporal.db');
  const serverOptions = { port, dbFile, headless: true, dynamicConfig: { ...FAST_LOCAL_DYNAMIC_CONFIG } };
  let server: DevServer = await startDevServer(serverOptions);
  log(`dev server ${server.address}, persisted to ${dbFile}`);
  const stub = await startStubLlm();
  const workers: WorkerProcess[] = [];
  const connection = await Connection.connect({ address: server.address });
  const client = new Client({ connection });

  const scenarios = new Map<string, { kind: ScenarioKind; receipts: string }>();
  // Like a real model, the stub answers the conversation it is sent: the n-th distinct conversation an
  // agent opens in a run gets the n-th reply of its script, however often it is sent (the retries of
  // an interrupted call, or the call dispatched again after its worker was lost every time).
  const ordinals = new Map<string, number>();
  const conversationOf = new Map<number, string>();
  stub.respond((req) => {
    const scenario = req.workflowId ? scenarios.get(req.workflowId) : undefined;
    if (!scenario || !req.callId) return undefined;
    const earlier = stub.requests.filter((r) => r.callId === req.callId && r.attempt === req.attempt && r.n < req.n);
    const index = earlier.length;
    const conversation = index === 0 ? JSON.stringify(req.messages) : conversationOf.get(earlier[0].n)!;
    conversationOf.set(req.n, conversation);
    const agentKey = `${req.workflowId}/${req.agent}`;
    const key = `${agentKey}/${conversation}`;
    let ordinal = ordinals.get(key);
    if (ordinal === undefined) {
      ordinal = ordinals.get(agentKey) ?? 0;
      ordinals.set(agentKey, ordinal + 1);
      ordinals.set(key, ordinal);
    }
    const [min, max] = plan.latencyMs;
    return { ...replyOf(scenario.kind, req.agent, ordinal, index, scenario.receipts), delayMs: Math.round(min + Math.random() * (max - min)) };
  });

  const spawnWorker = async (queue: string) => {
    const w = await startWorkerProcess(
      { TEMPORAL_ADDRESS: server.address, TROUPE_TASK_QUEUE: queue, OPENAI_BASE_URL: stub.url, OPENAI_API_KEY: 'chaos-key', TROUPE_SHUTDOWN_GRACE_MS: '1000' },
      120_000,
      ['--tools', toolsFile],
    );
    workers.push(w);
    return w;
  };

  /**
   * Start every run of the plan on `queue`, approve the approval runs, and wait for each until the
   * phase's deadline (counted from `startedAt`); a run still going then is diagnosed and left.
   */
  const phase = (name: 'baseline' | 'chaos', queue: string, startedAt: number): Promise<Ending[]> =>
    Promise.all(
      plan.runs.map(async (kind, i): Promise<Ending> => {
        const workflowId = `chaos-${name}-${i}-${kind}-${plan.seed}`;
        const receipts = path.join(dir, name, String(i));
        fs.mkdirSync(receipts, { recursive: true });
        scenarios.set(workflowId, { kind, receipts });
        const deadlineAt = startedAt + deadlines[name];
        const ending = await withinDeadline(deadlineAt - Date.now(), async (signal) => {
          // Every call of the run ends by its deadline. A gRPC deadline, unlike an abort signal, also
          // ends the calls the client retries by itself after a server restart, and those started after
          // the abort; one left open would outlive the connection and crash the driver when it closes.
          const within = <T>(fn: () => Promise<T>) => client.withDeadline(deadlineAt, fn);
          const call = <T>(fn: () => Promise<T>) => retrying(() => within(fn), { signal });
          const handle = await call(() =>
            startRun(client, { role: compileYaml(configOf(kind)), task: `chaos ${kind} run ${i}`, workflowId, taskQueue: queue }).catch((err: unknown) => {
              // a start that reached the server before a restart cut its answer
              if (err instanceof WorkflowExecutionAlreadyStartedError) return client.workflow.getHandle<typeof troupeRun>(workflowId);
              throw err;
            }),
          );
          if (kind === 'approval') await approveWhenAsked(handle, within, signal);
          return call(() => handle.result());
        });
        if (ending.kind === 'ended') return { kind: 'ended', workflowId, result: ending.value };
        log(`${workflowId} did not end within ${(deadlines[name] / 1000).toFixed(0)} s of the ${name} phase's start`);
        return { kind: 'stuck', workflowId, stuck: await diagnose(client, { phase: name, index: i, kind, workflowId, deadlineMs: deadlines[name] }, startedAt) };
      }),
    );

  try {
    // 1. the undisturbed runs
    const baselineQueue = `chaos-baseline-${plan.seed}`;
    const baselineWorker = await spawnWorker(baselineQueue);
    const t0 = Date.now();
    const baseline = await phase('baseline', baselineQueue, t0);
    const baselineMs = Date.now() - t0;
    await baselineWorker.stop();
    log(`baseline: ${plan.runs.length} runs in ${(baselineMs / 1000).toFixed(1)} s`);

    // 2. the same runs under faults
    const queue = `chaos-${plan.seed}`;
    let worker = await spawnWorker(queue);
    const t1 = Date.now();
    const running = phase('chaos', queue, t1);
    const faults: FaultRecord[] = [];
    // the faults in a seeded order, each after a seeded pause and while some model call is in flight
    const schedule: Array<FaultRecord['kind']> = [
      ...Array<FaultRecord['kind']>(plan.workerKills).fill('worker_kill'),
      ...Array<FaultRecord['kind']>(plan.serverRestarts).fill('server_restart'),
    ]
      .map((kind) => ({ kind, order: rand() }))
      .sort((a, b) => a.order - b.order)
      .map((f) => f.kind);
    let finished = false;
    void running.then(
      () => (finished = true),
      () => (finished = true),
    );
    const inFlight = () => stub.requests.filter((r) => r.endedAt === undefined);
    for (const kind of schedule) {
      await pause(300 + rand() * 2000);
      for (let waited = 0; inFlight().length === 0 && !finished && waited < 15_000; waited += 50) await pause(50);
      if (finished) log(`warning: the runs finished before the ${kind}`);
      const down = Date.now();
      const open = inFlight().length;
      if (kind === 'worker_kill') {
        await worker.kill();
        await pause(300 + rand() * 1200);
        worker = await spawnWorker(queue);
      } else {
        await killServer(server);
        server = await startDevServer(serverOptions);
      }
      const record = { kind, atMs: down - t1, requestsCut: kind === 'worker_kill' ? open : 0, downMs: Date.now() - down };
      faults.push(record);
      log(`${kind} at ${(record.atMs / 1000).toFixed(1)} s with ${open} model requests open; back after ${(record.downMs / 1000).toFixed(1)} s`);
    }
    const chaos = await running;
    const chaosMs = Date.now() - t1;
    await worker.stop();
    log(`chaos: ${plan.runs.length} runs in ${(chaosMs / 1000).toFixed(1)} s`);

    // 3. compare
    const outcome = (r: RunResult): Outcome => ({
      status: r.status,
      reason: r.reason,
      finalText: r.finalText,
      steps: r.steps,
      agentCalls: r.usage.agentCalls,
      toolCalls: r.usage.toolCalls?.total ?? 0,
    });
    const ended = (e: Ending) => (e.kind === 'ended' ? e.result : undefined);
    const runs = plan.runs.map((kind, i): RunComparison => {
      const b = ended(baseline[i]);
      const c = ended(chaos[i]);
      const pair = { baseline: b && outcome(b), chaos: c && outcome(c) };
      return { index: i, kind, ...pair, same: pair.baseline !== undefined && JSON.stringify(pair.baseline) === JSON.stringify(pair.chaos) };
    });
    const compared = runs.flatMap((r) => (r.baseline && r.chaos ? [{ baseline: r.baseline, chaos: r.chaos }] : []));
    let requestsAfterCompletion = 0;
    let callsRetried = 0;
    for (const { workflowId } of chaos) {
      const completedAt = await completionTimes(client.workflow.getHandle(workflowId));
      const mine = stub.requests.filter((r) => r.workflowId === workflowId && r.callId);
      for (const r of mine) {
        const done = completedAt.get(r.callId!.split('/').slice(1).join('/'));
        if (done !== undefined && r.startedAt > done) requestsAfterCompletion += 1;
      }
      callsRetried += new Set(mine.filter((r) => (r.attempt ?? 1) > 1).map((r) => r.callId)).size;
    }
    const effects = (name: string) => readLines(dir, name, 'effects.log');
    const chaosEffects = effects('chaos');
    const attempts = readLines(dir, 'chaos', 'attempts.log');
    const keys = chaosEffects.map((l) => l.split(' ')[0]);
    return {
      plan: { runs: plan.runs, workerKills: plan.workerKills, serverRestarts: plan.serverRestarts, latencyMs: plan.latencyMs, seed: plan.seed, deadlineMs: deadlines },
      faults,
      runs,
      different: runs.filter((r) => !r.same).length,
      didNotEnd: [...baseline, ...chaos].flatMap((e) => (e.kind === 'stuck' ? [e.stuck] : [])),
      stepsLost: compared.reduce((n, r) => n + Math.max(0, r.baseline.steps - r.chaos.steps), 0),
      stepsRepeated: compared.reduce((n, r) => n + Math.max(0, r.chaos.steps - r.baseline.steps), 0),
      requestsAfterCompletion,
      callsRetried,
      callsRedispatched: chaos.reduce((n, e) => n + (ended(e)?.warnings.filter((w) => w.includes('was lost with its worker')).length ?? 0), 0),
      duplicateEffects: keys.length - new Set(keys).size,
      toolAttemptsRetried: attempts.length - new Set(attempts.map((l) => l.split(' ')[0])).size,
      effects: { baseline: effects('baseline').length, chaos: chaosEffects.length },
      baselineMs,
      chaosMs,
    };
  } finally {
    for (const w of workers) await w.kill().catch(() => undefined);
    await connection.close().catch(() => undefined);
    await stub.close();
    await server.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Approve the run's first request once it is pending (the status query may fail while faults are
 * injected); gives up when `signal` is aborted (the run's deadline). `within` bounds each call.
 */
async function approveWhenAsked(handle: WorkflowHandle, within: <T>(fn: () => Promise<T>) => Promise<T>, signal: AbortSignal): Promise<void> {
  while (!signal.aborted) {
    const status = await within(() => handle.query(statusQuery)).catch(() => undefined as RunStatusView | undefined);
    const r1 = status?.pending.find((p) => p.id === 'r1');
    if (r1) {
      // a gate (before_exit): the decision names the digest it shows. Sent again after a fault with
      // the same Update id, it is applied once and answered again (docs/semantics.md, "Humans in the loop")
      const updateId = `approve-r1-${handle.workflowId}`;
      await retrying(
        () =>
          within(async () => {
            const answered = await approve(handle as RunHandle, r1, { by: 'chaos', updateId });
            if (answered.outcome === 'refused' && answered.refusal.code !== 'decided') throw new Error(answered.text);
          }),
        { signal },
      );
      return;
    }
    if (status?.phase === 'finished') return;
    await pause(300, signal);
  }
}

/** Kill the dev server the hard way (SIGKILL to its process group) and wait for it to go. */
async function killServer(server: DevServer): Promise<void> {
  try {
    process.kill(-server.pid, 'SIGKILL');
  } catch {
    /* already gone */
  }
  await server.stop();
}

/** When each activity of the run completed: `<runId>/<activityId>` → epoch ms. */
async function completionTimes(handle: WorkflowHandle): Promise<Map<string, number>> {
  const history = await retrying(() => handle.fetchHistory(), { timeoutMs: 120_000 });
  const runId = (await retrying(() => handle.describe(), { timeoutMs: 120_000 })).runId;
  const scheduled = new Map<string, string>();
  const done = new Map<string, number>();
  for (const e of history.events ?? []) {
    const id = String(e.eventId);
    if (e.activityTaskScheduledEventAttributes) scheduled.set(id, e.activityTaskScheduledEventAttributes.activityId ?? '');
    const completed = e.activityTaskCompletedEventAttributes;
    if (completed) {
      const activityId = scheduled.get(String(completed.scheduledEventId));
      const seconds = Number(e.eventTime?.seconds ?? 0);
      const nanos = e.eventTime?.nanos ?? 0;
      if (activityId !== undefined) done.set(`${runId}/${activityId}`, seconds * 1000 + nanos / 1e6);
    }
  }
  return done;
}

/** Lines of a log file the receipt tool writes, over every run of a phase. */
function readLines(dir: string, phaseName: string, file: string): string[] {
  const root = path.join(dir, phaseName);
  if (!fs.existsSync(root)) return [];
  return fs
    .readdirSync(root)
    .flatMap((run) => {
      const f = path.join(root, run, file);
      return fs.existsSync(f) ? fs.readFileSync(f, 'utf8').split('\n').filter(Boolean) : [];
    });
}

/** The report as the rows of RELIABILITY.md's chaos table. */
export function reportMarkdown(r: ChaosReport): string {
  const kinds = [...new Set(r.plan.runs)].map((k) => `${r.plan.runs.filter((x) => x === k).length} ${k}`).join(', ');
  const kills = r.faults.filter((f) => f.kind === 'worker_kill');
  const restarts = r.faults.filter((f) => f.kind === 'server_restart');
  const rows = [
    ['worker SIGKILL + restart', `${kills.length} × at ${kills.map((f) => `${(f.atMs / 1000).toFixed(1)} s`).join(', ')} (${kills.reduce((n, f) => n + f.requestsCut, 0)} model requests cut)`],
    ['dev server SIGKILL + restart (same SQLite file)', `${restarts.length} × at ${restarts.map((f) => `${(f.atMs / 1000).toFixed(1)} s`).join(', ')} (down ${restarts.map((f) => `${(f.downMs / 1000).toFixed(1)} s`).join(', ')})`],
  ];
  return [
    `runs: ${r.plan.runs.length} (${kinds}); model latency ${r.plan.latencyMs[0]}–${r.plan.latencyMs[1]} ms; seed ${r.plan.seed}; ` +
      `each run given ${r.plan.deadlineMs.baseline / 1000} s undisturbed, ${r.plan.deadlineMs.chaos / 1000} s under chaos`,
    '',
    '| fault | injected |',
    '|---|---|',
    ...rows.map(([a, b]) => `| ${a} | ${b} |`),
    '',
    '| measure | result |',
    '|---|---|',
    `| runs ending as the undisturbed run (status, reason, final text, steps, calls) | ${r.runs.length - r.different} of ${r.runs.length} |`,
    `| steps lost | ${r.stepsLost} |`,
    `| steps repeated | ${r.stepsRepeated} |`,
    `| model requests for a call whose activity had completed | ${r.requestsAfterCompletion} |`,
    `| model calls cut by a fault and sent again (same call, next attempt) | ${r.callsRetried} |`,
    `| model calls lost with their worker on all 3 attempts, dispatched again | ${r.callsRedispatched} |`,
    `| tool side effects (undisturbed / chaos) | ${r.effects.baseline} / ${r.effects.chaos} |`,
    `| tool side effects that happened twice | ${r.duplicateEffects} |`,
    `| tool attempts retried with the same idempotency key | ${r.toolAttemptsRetried} |`,
    `| wall time (undisturbed / chaos) | ${(r.baselineMs / 1000).toFixed(1)} s / ${(r.chaosMs / 1000).toFixed(1)} s |`,
    ...(r.didNotEnd.length > 0 ? ['', stuckMarkdown(r.didNotEnd)] : []),
  ].join('\n');
}
