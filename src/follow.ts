/**
 * Following a run to its result without loading the worker: the client long-polls the run's
 * history (`run-history.ts`), which costs the worker nothing, and reads from it the agent and tool
 * calls in flight and each step as the workflow records it (the same pure code builds the
 * transcript entry). It asks the worker for a snapshot (the `status` query, and `transcript` when
 * steps or decisions were added) only when the history cannot tell what changed: at the start of
 * following (unless it follows the run from its start: the first snapshot is then built from the
 * run's graph and task, as the workflow builds it), and after a signal, a wait for a human, a
 * retry, a tool loop's step or a failed call — at most once per `minQueryGapMs`. The end comes from
 * the RunResult. A run followed from its start without any of those costs the worker no query
 * (BENCHMARKS.md, B8).
 */
import { WorkflowNotFoundError, type WorkflowClient, type WorkflowHandle } from '@temporalio/client';
import type { CompiledGraph } from './core/graph/types';
import { buildStatusView, type RunResult, type RunStatusView } from './core/ending/result';
import { createRunState } from './core/state/state';
import { beginWave } from './core/waves/routing';
import type { DecisionRecord } from './core/humans/requests';
import type { TranscriptStep } from './core/state/state';
import { capturedResult, transcriptStep } from './core/waves/record';
import { RunHistoryWatch, type AgentCallActivity, type HistoryNews, type RecordedStep, type ToolActivity } from './run-history';
import { statusQuery, transcriptQuery } from './workflows/messages';
import type { troupeRun } from './workflows/run';

/** Deadline of each status/transcript query while following a run. */
export const QUERY_DEADLINE_MS = 3_000;

/** Default least time between two snapshots of a followed run. */
export const MIN_QUERY_GAP_MS = 250;

/** Wait before asking again after a history poll or a query failed (a restart, a network blip). */
const RETRY_MS = 1_000;

/** Progress events produced while following a run. */
export type FollowEvent =
  /** A new agent step of the transcript. */
  | { kind: 'step'; step: TranscriptStep }
  /** The phase or the pending requests changed (a wait began or ended). */
  | { kind: 'phase'; status: RunStatusView }
  /** A new warning of the run. */
  | { kind: 'warning'; text: string }
  /** A fresh `status` snapshot, taken after the run moved. */
  | { kind: 'status'; status: RunStatusView; at: number }
  /** A run of the chain started (the first, or the next after continue-as-new), with its graph. */
  | { kind: 'started'; runId: string; graph?: CompiledGraph; at: number }
  /** A worker tool call began or ended (from the history, `<tool> · <agent>`). */
  | ({ kind: 'tool' } & ToolActivity)
  /** An agent's model call began or ended (from the history). */
  | ({ kind: 'call' } & AgentCallActivity)
  /** A human decided a request. */
  | { kind: 'decision'; decision: DecisionRecord };

/** How to follow. */
export interface FollowOptions {
  /** Least time between two snapshots (default {@link MIN_QUERY_GAP_MS}). */
  minQueryGapMs?: number;
  /** Stop following (the run goes on); `followRun` then rejects with the signal's reason. */
  signal?: AbortSignal;
}

type Handle = WorkflowHandle<typeof troupeRun>;

/** Reads snapshots and the steps of the history and turns them into events, each step, decision and warning once. */
class Snapshots {
  private lastStep = 0;
  private lastPhase = '';
  private steps = -1;
  private decisions = -1;
  private readonly decided = new Set<string>();
  private readonly warnings = new Set<string>();
  /** The latest snapshot. */
  private latest: RunStatusView | undefined;

  constructor(
    private readonly handle: Handle,
    private readonly emit: (e: FollowEvent) => void,
  ) {}

  /** Whether a snapshot was ever taken. */
  get taken(): boolean {
    return this.latest !== undefined;
  }

  /**
   * Steps recorded by the workflow, read from the history: each once (a snapshot may have shown it
   * first). Returns false when the history lost count of the steps (a step it could not read): a
   * snapshot must tell them.
   */
  recorded(steps: RecordedStep[]): boolean {
    for (const s of steps) {
      if (!Number.isFinite(s.step)) return false;
      if (s.step <= this.lastStep) continue;
      const step = transcriptStep(
        { step: s.step, agent: s.position.agent, round: s.position.round, wave: s.position.wave, at: s.at, kind: 'agent' },
        s.result,
        capturedResult(s.result.text, s.result.resultHash),
      );
      this.lastStep = step.step;
      this.emit({ kind: 'step', step });
    }
    return true;
  }

  /** The end, from the RunResult: its warnings and decisions, and a last status. */
  finished(result: RunResult): void {
    for (const d of result.decisions ?? []) {
      if (this.decided.has(d.requestId)) continue;
      this.decided.add(d.requestId);
      this.emit({ kind: 'decision', decision: d });
    }
    this.warn(result.warnings);
    if (!this.latest || this.latest.phase === 'finished') return;
    this.show({
      ...this.latest,
      phase: 'finished',
      inFlight: [],
      pending: [],
      steps: result.steps,
      iterations: result.iterations,
      usage: result.usage,
      activeMs: result.activeMs,
      decisions: result.decisions ?? [],
      warnings: result.warnings,
      final: { status: result.status, reason: result.reason, reasonText: result.reasonText },
    });
  }

  /** Whether the history has shown every step the run recorded. */
  saw(steps: number): boolean {
    return this.lastStep >= steps;
  }

  /** Emit a status, the phase when it changed, and new warnings. */
  show(status: RunStatusView): void {
    this.latest = status;
    this.emit({ kind: 'status', status, at: Date.now() });
    const phaseKey = `${status.phase}:${status.pending.map((p) => p.id).join(',')}`;
    if (phaseKey !== this.lastPhase) {
      this.lastPhase = phaseKey;
      this.emit({ kind: 'phase', status });
    }
    this.warn(status.warnings);
  }

  private warn(warnings: string[]): void {
    for (const w of warnings) {
      if (this.warnings.has(w)) continue;
      this.warnings.add(w);
      this.emit({ kind: 'warning', text: w });
    }
  }

  /**
   * Query and emit; false when the worker could not answer (it restarts, or is busy). `steps`: the
   * history may not show every step (it lost count, or showed a retry, a tool loop or a failed
   * call), so read the steps the status counts but the history has not shown from the transcript.
   * Otherwise the history's next poll shows them, and the transcript is read only for new decisions.
   */
  async take(steps = true): Promise<boolean> {
    const client = this.handle.client;
    try {
      // a query can wait up to Temporal's 30 s query timeout (e.g. while a new worker loads the
      // workflow); following must not stall on one, so each has its own short deadline
      const status = await client.withDeadline(Date.now() + QUERY_DEADLINE_MS, () => this.handle.query(statusQuery));
      const decisions = status.decisions?.length ?? 0;
      // the transcript only when it holds entries not shown yet (the history shows most steps)
      const unseen = (steps && status.steps > this.lastStep) || decisions > this.decided.size;
      if (unseen && (status.steps !== this.steps || decisions !== this.decisions)) {
        const transcript = await client.withDeadline(Date.now() + QUERY_DEADLINE_MS, () => this.handle.query(transcriptQuery));
        this.steps = status.steps;
        this.decisions = decisions;
        this.transcript(transcript);
      }
      this.show(status);
      return true;
    } catch {
      // queries fail briefly while a worker restarts; keep following
      return false;
    }
  }

  private transcript(entries: TranscriptStep[]): void {
    for (const entry of entries) {
      if (entry.decision) {
        if (this.decided.has(entry.decision.requestId)) continue;
        this.decided.add(entry.decision.requestId);
        this.emit({ kind: 'decision', decision: entry.decision });
      } else if (entry.step > this.lastStep) {
        this.lastStep = entry.step;
        this.emit({ kind: 'step', step: entry });
      }
    }
  }
}

/**
 * The snapshot of a run seen from its start, built by the workflow's own pure code instead of a
 * query: its state as created from the graph and task, with the first wave begun. Only when `start`
 * is a fresh start and `news` shows the first wave's calls and nothing else (no step, nothing
 * irregular); undefined otherwise, and the worker is asked.
 */
export function firstSnapshot(start: HistoryNews['started'][number], news: HistoryNews, workflowId: string): RunStatusView | undefined {
  if (!start.graph || !start.fresh || start.task === undefined || news.irregular || news.steps.length > 0) return undefined;
  const state = createRunState(start.graph, start.task, workflowId, start.at);
  const wave = beginWave(state).map((item) => item.agent);
  const calls = news.calls.filter((c) => c.state === 'started').map((c) => c.agent);
  if (news.calls.some((c) => c.state === 'finished') || calls.length !== wave.length || wave.some((a) => !calls.includes(a))) return undefined;
  return buildStatusView(state, start.at, wave);
}

/** A promise that resolves after `ms` (never when `ms` is infinite) and can be cleared. */
function delay(ms: number): { done: Promise<'tick'>; clear: () => void } {
  let timer: NodeJS.Timeout | undefined;
  const done = new Promise<'tick'>((resolve) => {
    if (Number.isFinite(ms)) timer = setTimeout(() => resolve('tick'), Math.max(0, ms));
  });
  return { done, clear: () => clearTimeout(timer) };
}

function firstRunId(handle: Handle): string {
  const h = handle as Handle & { firstExecutionRunId?: string };
  return h.firstExecutionRunId ?? '';
}

/**
 * Follow a run until it finishes: emit its steps, tool calls, waits (with the pending requests),
 * decisions, warnings and status snapshots as they happen, then return the RunResult. The run is
 * followed across continue-as-new. `options` may also be a number: the least gap between snapshots.
 */
export async function followRun(
  handle: Handle,
  onEvent: (e: FollowEvent) => void,
  options: FollowOptions | number = {},
): Promise<RunResult> {
  const opts: FollowOptions = typeof options === 'number' ? { minQueryGapMs: options } : options;
  const gap = opts.minQueryGapMs ?? MIN_QUERY_GAP_MS;
  const client: WorkflowClient = handle.client;
  const history = new RunHistoryWatch(client, handle.workflowId, firstRunId(handle));
  const snapshots = new Snapshots(handle, onEvent);
  const stop = new AbortController();
  const onAbort = () => stop.abort(opts.signal?.reason);
  opts.signal?.addEventListener('abort', onAbort, { once: true });
  if (opts.signal?.aborted) onAbort();

  const poll = async (): Promise<HistoryNews | 'failed'> => {
    // each poll gets its own signal: the client leaves a listener on the signal of every call
    const one = new AbortController();
    const abortOne = () => one.abort();
    stop.signal.addEventListener('abort', abortOne, { once: true });
    try {
      return await history.next(one.signal);
    } catch (err) {
      if (stop.signal.aborted || err instanceof WorkflowNotFoundError) throw err;
      await new Promise((r) => setTimeout(r, RETRY_MS));
      return 'failed';
    } finally {
      stop.signal.removeEventListener('abort', abortOne);
    }
  };
  const startPoll = () => {
    const p = poll();
    p.catch(() => undefined); // rejections are seen by the race below, or not at all once stopped
    return p;
  };
  const aborted = new Promise<'abort'>((resolve) => stop.signal.addEventListener('abort', () => resolve('abort'), { once: true }));

  try {
    let dirty = false;
    /** The start of the run followed, while its first snapshot may still be built without a query. */
    let start: HistoryNews['started'][number] | undefined;
    /** Whether the history may not show every step (see `take`). */
    let stepsUnseen = false;
    let nextQuery = 0;
    let pending = startPoll();
    while (!history.closed) {
      const wait = delay(dirty ? nextQuery - Date.now() : Infinity);
      const woke = await Promise.race([pending, wait.done, aborted]);
      wait.clear();
      if (woke === 'abort') throw stop.signal.reason ?? new Error('followRun: aborted');
      if (woke !== 'tick') {
        if (woke !== 'failed') {
          for (const s of woke.started) {
            onEvent({ kind: 'started', runId: s.runId, graph: s.graph, at: s.at });
            start ??= s;
          }
          // a run followed from its start: its first snapshot is known without asking the worker
          if (start && !snapshots.taken) {
            const first = firstSnapshot(start, woke, handle.workflowId);
            if (first) snapshots.show(first);
            else if (woke.moved || woke.irregular || woke.steps.length > 0) start = undefined;
          }
          for (const c of woke.calls) onEvent({ kind: 'call', ...c });
          for (const t of woke.tools) onEvent({ kind: 'tool', ...t });
          const counted = snapshots.recorded(woke.steps);
          // the history tells steps and calls; the worker is asked for the rest
          stepsUnseen ||= woke.irregular || !counted;
          dirty ||= stepsUnseen || (woke.moved && !snapshots.taken);
        }
        if (history.closed) break;
        pending = startPoll();
      }
      if (dirty && Date.now() >= nextQuery) {
        const ok = await snapshots.take(stepsUnseen);
        if (ok) stepsUnseen = false;
        // a worker that cannot answer (restarting, or down) is asked again later, not at every event
        dirty = !ok;
        nextQuery = Date.now() + (ok ? gap : Math.max(gap, RETRY_MS));
      }
    }
    const result = await handle.result();
    // the history showed every step, and the RunResult tells the rest: the worker need not replay
    // the closed run to answer a query
    if (!dirty && snapshots.saw(result.steps)) {
      snapshots.finished(result);
      return result;
    }
    // the last steps: a closed run's query needs a worker to replay it, so give it a few tries
    for (let attempt = 0; attempt < 3; attempt++) {
      if (await snapshots.take()) break;
    }
    snapshots.finished(result);
    return result;
  } finally {
    opts.signal?.removeEventListener('abort', onAbort);
    stop.abort();
  }
}
