/**
 * The chaos run (RELIABILITY.md): many troupe runs in flight while their workers are SIGKILLed and
 * replaced, workers are added, and the Temporal server (and, on a target that has one to restart, its
 * database) is killed and restarted, against a stub model whose replies take a random 0.2–3 s. Every
 * run must end exactly as an undisturbed run of the same script; the stub must never see a request
 * for a model call whose activity had completed; no tool side effect may happen twice.
 *
 * Every run has a deadline in each phase; one that does not end by it is reported as "did not end",
 * with its status and the tail of its history, instead of being waited for forever.
 *
 * Used by `npm run chaos` (test/chaos/main.ts, the full run) and by a shortened version in `npm test`
 * (test/server/chaos-...test.ts), both on the driver's own target: a dev server persisted to a
 * SQLite file. A plan may name another target (test/chaos/target.ts), such as a cluster. Everything
 * is real: `troupe worker` processes with a tools file, the HTTP stub, the library's own client.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client, Connection, WorkflowExecutionAlreadyStartedError, type WorkflowHandle } from '@temporalio/client';
import { approve, startRun, type RunHandle } from '../../src/client';
import type { RunResult, RunStatusView } from '../../src/core/ending/result';
import { statusQuery } from '../../src/contract';
import type { troupeRun } from '../../src/workflows/run';
import { startStubLlm } from '../helpers/stub-llm';
import { pause, retrying, withinDeadline, type Deadlines } from './deadline';
import type { ChaosReport, FaultRecord, Outcome, RunComparison } from './report';
import { APPROVED_KINDS, replyOf, rolesOf, type ScenarioKind } from './scenarios';
import { diagnose, type StuckRun } from './stuck';
import { DEFAULT_FAULT_LABELS, FAULT_KINDS, startDevServerTarget, type ChaosTarget, type DevServerTarget, type FaultKind, type WorkerProcess } from './target';

export type { Deadlines } from './deadline';
export { reportMarkdown, type ChaosReport, type FaultRecord, type Outcome, type PlanSummary, type RunComparison } from './report';
export { EFFECTS_OF, SCENARIO_KINDS, type ScenarioKind } from './scenarios';
export { DEFAULT_FAULT_LABELS, FAULT_KINDS, startDevServerTarget, type ChaosTarget, type DevServerTarget, type FaultKind, type WorkerProcess } from './target';

/** What to run, where, and what to break. */
export interface ChaosPlan {
  /** The runs, by kind (run i is `runs[i]`). */
  runs: ScenarioKind[];
  /** How many faults of each kind the chaos phase injects (a kind left out: none). */
  faults: Partial<Record<FaultKind, number>>;
  /** Workers on the chaos phase's queue at its start (default 1); the undisturbed phase has one on its own queue. */
  workers?: number;
  /** Each model reply takes a random time in this range (ms). */
  latencyMs: [number, number];
  /** Seeds the moments of the faults and the workers they kill. */
  seed: number;
  /** How long each run of a phase may take, counted from the phase's start (default `DEADLINES_MS`). */
  deadlineMs?: Deadlines;
  /**
   * Model requests in flight before a fault is injected (default 1): with many runs on several
   * workers, a higher figure puts each fault in the thick of them.
   */
  openCallsBeforeFault?: number;
  /**
   * The order of the fault kinds (default: seeded); e.g. a worker that takes long to start first,
   * so that it joins while the runs still go.
   */
  faultOrder?: FaultKind[];
  /** Where to run (default: a dev server persisted to a SQLite file, which the driver starts and stops). */
  target?: ChaosTarget;
  log?: (line: string) => void;
}

/**
 * The full run's deadlines: 3 and 5 minutes, eight and three times the slowest phases seen (22 s
 * undisturbed, 100 s under chaos on a busy 2-core VM; RELIABILITY.md §1), so only a run that is
 * really stuck meets them.
 */
export const DEADLINES_MS: Deadlines = { baseline: 180_000, chaos: 300_000 };

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
  const roles = rolesOf(dir);
  const counts = Object.fromEntries(FAULT_KINDS.map((k) => [k, plan.faults[k] ?? 0])) as Record<FaultKind, number>;
  const crewSize = plan.workers ?? 1;
  if (crewSize < 1) throw new Error(`the chaos phase needs a worker to start with, not ${crewSize}`);
  if (counts.database_restart > 0 && !plan.target?.restartDatabase) throw new Error('the plan restarts the database, and its target cannot');
  let own: DevServerTarget | undefined;
  if (!plan.target) {
    own = await startDevServerTarget(path.join(dir, 'temporal.db'));
    log(`dev server ${own.address}, persisted to ${own.dbFile}`);
  }
  const target = plan.target ?? own!;
  const labels = { ...DEFAULT_FAULT_LABELS, ...target.faultLabels };
  const stub = await startStubLlm();
  const workers: WorkerProcess[] = [];
  const connection = await Connection.connect({ address: target.address });
  const client = new Client({ connection, namespace: target.namespace });

  // by the run's own id; a team's child run (`<run id>/<run id of the run>/<agent>-<n>`) is its run's
  const scenarios = new Map<string, { kind: ScenarioKind; receipts: string }>();
  const topOf = (workflowId: string) => workflowId.split('/')[0];
  // Like a real model, the stub answers the conversation it is sent: the n-th distinct conversation an
  // agent opens in a run gets the n-th reply of its script, however often it is sent (the retries of
  // an interrupted call, or the call dispatched again after its worker was lost every time).
  const ordinals = new Map<string, number>();
  const conversationOf = new Map<number, string>();
  stub.respond((req) => {
    const scenario = req.workflowId ? scenarios.get(topOf(req.workflowId)) : undefined;
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
    const w = await target.startWorker(
      queue,
      { TROUPE_TASK_QUEUE: queue, OPENAI_BASE_URL: stub.url, OPENAI_API_KEY: 'chaos-key', TROUPE_SHUTDOWN_GRACE_MS: '1000' },
      ['--tools', toolsFile],
    );
    workers.push(w);
    return w;
  };

  /**
   * Start every run of the plan on `queue`, approve the runs that wait for it, and wait for each until the
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
            startRun(client, { role: roles[kind], task: `chaos ${kind} run ${i}`, workflowId, taskQueue: queue }).catch((err: unknown) => {
              // a start that reached the server before a restart cut its answer
              if (err instanceof WorkflowExecutionAlreadyStartedError) return client.workflow.getHandle<typeof troupeRun>(workflowId);
              throw err;
            }),
          );
          if (APPROVED_KINDS.has(kind)) await approveWhenAsked(handle, within, signal);
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
    const crew = await Promise.all(Array.from({ length: crewSize }, () => spawnWorker(queue)));
    const t1 = Date.now();
    const running = phase('chaos', queue, t1);
    const faults: FaultRecord[] = [];
    // the faults in a seeded order, each after a seeded pause and while some model call is in flight
    const seeded: FaultKind[] = FAULT_KINDS.flatMap((kind) => Array<FaultKind>(counts[kind]).fill(kind))
      .map((kind) => ({ kind, order: rand() }))
      .sort((a, b) => a.order - b.order)
      .map((f) => f.kind);
    const schedule = plan.faultOrder ? [...seeded].sort((a, b) => plan.faultOrder!.indexOf(a) - plan.faultOrder!.indexOf(b)) : seeded;
    let finished = false;
    void running.then(
      () => (finished = true),
      () => (finished = true),
    );
    const inFlight = () => stub.requests.filter((r) => r.endedAt === undefined);
    const openCalls = plan.openCallsBeforeFault ?? 1;
    // workers started during the chaos phase: each resolves with the moment it polls
    const joining: Array<Promise<number>> = [];
    const join = () => {
      const polling = spawnWorker(queue).then((w) => {
        crew.push(w);
        return Date.now();
      });
      joining.push(polling);
      return polling;
    };
    for (const kind of schedule) {
      await pause(300 + rand() * 2000);
      for (let waited = 0; inFlight().length < openCalls && !finished && waited < 15_000; waited += 50) await pause(50);
      if (finished) log(`warning: the runs finished before the ${kind}`);
      const down = Date.now();
      const open = inFlight();
      let requestsCut = 0;
      let starting: Promise<number> | undefined;
      switch (kind) {
        case 'worker_kill': {
          // one worker of several, chosen by the seeded random (no draw for a lone worker)
          const [victim] = crew.splice(crew.length > 1 ? Math.floor(rand() * crew.length) : 0, 1);
          await victim.kill();
          await pause(300 + rand() * 1200);
          // its open calls: all of them for a lone worker; of several, those its death cut off
          requestsCut = crew.length === 0 ? open.length : open.filter((r) => r.aborted && (r.abortedAt ?? 0) >= down).length;
          // a lone worker's place is taken before the next fault; beside others, the new one starts
          // while the schedule goes on (a worker takes 10–30 s to bundle on a loaded machine)
          if (crew.length === 0) crew.push(await spawnWorker(queue));
          else starting = join();
          break;
        }
        case 'server_restart':
          await target.restartServer();
          break;
        case 'database_restart':
          await target.restartDatabase!();
          break;
        case 'worker_added':
          starting = join();
          break;
      }
      const record: FaultRecord = { kind, label: labels[kind], atMs: down - t1, requestsCut, downMs: Date.now() - down };
      faults.push(record);
      if (starting) {
        // downMs: until the new worker polls
        void starting.then((at) => {
          record.downMs = at - down;
          log(`${kind} at ${(record.atMs / 1000).toFixed(1)} s: the new worker polls after ${(record.downMs / 1000).toFixed(1)} s`);
        });
        log(`${kind} at ${(record.atMs / 1000).toFixed(1)} s with ${open.length} model requests open; a new worker is starting`);
      } else log(`${kind} at ${(record.atMs / 1000).toFixed(1)} s with ${open.length} model requests open; back after ${(record.downMs / 1000).toFixed(1)} s`);
    }
    const chaos = await running;
    const chaosMs = Date.now() - t1;
    await Promise.all(joining);
    await Promise.all(crew.map((w) => w.stop()));
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
      // the run's calls and those of its teams' child runs
      const completedAt = await completionTimes(client, workflowId);
      const mine = stub.requests.filter((r) => r.workflowId !== undefined && topOf(r.workflowId) === workflowId && r.callId);
      for (const r of mine) {
        const done = completedAt.get(r.callId!);
        if (done !== undefined && r.startedAt > done) requestsAfterCompletion += 1;
      }
      callsRetried += new Set(mine.filter((r) => (r.attempt ?? 1) > 1).map((r) => r.callId)).size;
    }
    const effects = (name: string) => readLines(dir, name, 'effects.log');
    const chaosEffects = effects('chaos');
    const attempts = readLines(dir, 'chaos', 'attempts.log');
    const keys = chaosEffects.map((l) => l.split(' ')[0]);
    return {
      plan: { runs: plan.runs, faults: counts, workers: crewSize, latencyMs: plan.latencyMs, seed: plan.seed, deadlineMs: deadlines, labels, address: target.address },
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
    await own?.close();
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

/**
 * When each activity of the run, and of the child runs its team agents started, completed: the
 * call's id as the stub sees it (`<workflowId>/<runId>/<activityId>`) → epoch ms.
 */
async function completionTimes(client: Client, workflowId: string, done = new Map<string, number>()): Promise<Map<string, number>> {
  const handle = client.workflow.getHandle(workflowId);
  const history = await retrying(() => handle.fetchHistory(), { timeoutMs: 120_000 });
  const runId = (await retrying(() => handle.describe(), { timeoutMs: 120_000 })).runId;
  const scheduled = new Map<string, string>();
  const children: string[] = [];
  for (const e of history.events ?? []) {
    const id = String(e.eventId);
    if (e.activityTaskScheduledEventAttributes) scheduled.set(id, e.activityTaskScheduledEventAttributes.activityId ?? '');
    const child = e.childWorkflowExecutionStartedEventAttributes?.workflowExecution?.workflowId;
    if (child) children.push(child);
    const completed = e.activityTaskCompletedEventAttributes;
    if (completed) {
      const activityId = scheduled.get(String(completed.scheduledEventId));
      const seconds = Number(e.eventTime?.seconds ?? 0);
      const nanos = e.eventTime?.nanos ?? 0;
      if (activityId !== undefined) done.set(`${workflowId}/${runId}/${activityId}`, seconds * 1000 + nanos / 1e6);
    }
  }
  for (const child of children) await completionTimes(client, child, done);
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
