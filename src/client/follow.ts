/**
 * Following a run to its result through the progress contract (`core/observe/progress.ts`,
 * docs/operating.md, "Following a run from code"). The client long-polls the run's history
 * (`run-history.ts`), which costs the worker nothing, and sends the run the `follow` Update once:
 * from then on the run writes a progress record into that history at the end of each workflow task
 * in which its position changed, and the follower turns the records into events without asking the
 * worker anything (BENCHMARKS.md, B8). The `progress` query — at most once per `minQueryGapMs` — is
 * asked only when a record left steps out for size, when the follower joined after the records
 * began, and on a run whose build writes no records (one older than the Update: it refuses it), where
 * the follower asks each time the history shows the run moved. A run waiting for a human writes no
 * history, so it costs nothing while it waits; the end comes from the RunResult, and the closed run is
 * asked once more only when its last steps were not seen. With `liveText`, the text each model call is
 * writing is read from the run's pending activities while one runs (`pending-activities.ts`: a
 * describe, served by the server alone, at most once a second).
 *
 * Events come in the order things happened to the run: a run's `started` before anything it did, a
 * `request` when a human is asked (what `approve`, `reject` and `answer` take). The callback may be
 * async: each event waits for the one before it to be handled, and a callback that throws stops
 * following (`followRun` rejects with its error); the run goes on either way.
 */
import { WorkflowNotFoundError, WorkflowUpdateFailedError, type WorkflowClient, type WorkflowHandle } from '@temporalio/client';
import { followUpdate, progressQuery, type TroupeRun } from '../contract';
import type { CompiledGraph } from '../core/graph/types';
import type { RunResult, RunStatusView } from '../core/ending/result';
import type { DecisionRecord, PendingRequest } from '../core/humans/requests';
import type { InFlightCall } from '../core/observe/live';
import type { ProgressRecord, RunningCall, RunProgress } from '../core/observe/progress';
import type { TranscriptStep } from '../core/state/state';
import { InFlightWatch, LIVE_TEXT_INTERVAL_MS } from './pending-activities';
import { RunHistoryWatch, type HistoryNews } from './run-history';

/** Deadline of each progress query while following a run. */
export const QUERY_DEADLINE_MS = 3_000;

/** Default least time between two progress queries of a followed run. */
export const MIN_QUERY_GAP_MS = 250;

/** Deadline of the `follow` Update (it waits for a workflow task, which a loaded worker may be slow to run). */
const FOLLOW_DEADLINE_MS = 10_000;

/** Wait before asking again after a history poll or a query failed (a restart, a network blip). */
const RETRY_MS = 1_000;

/** A call that started or ended, as the progress contract lists it. */
export interface CallActivity {
  /** Unique in the run chain. */
  id: string;
  agent: string;
  /** What the Temporal UI calls it (for display only). */
  label: string;
  state: 'started' | 'finished';
  /** Workflow time it started, or local time it was seen finished (ms). */
  at: number;
}

/** Progress events produced while following a run. */
export type FollowEvent =
  /** A new agent step of the transcript. */
  | { kind: 'step'; step: TranscriptStep }
  /** The phase or the pending requests changed (a wait began or ended). */
  | { kind: 'phase'; status: RunStatusView }
  /** A new warning of the run. */
  | { kind: 'warning'; text: string }
  /** A fresh status, taken after the run moved. */
  | { kind: 'status'; status: RunStatusView; at: number }
  /** A run of the chain started (the first, or the next after continue-as-new), with its graph. */
  | { kind: 'started'; runId: string; graph?: CompiledGraph; at: number }
  /** A worker tool call began or ended (`label`: `<tool> · <agent>`; `tool`: its name in the role). */
  | ({ kind: 'tool'; tool?: string } & CallActivity)
  /** An agent's model call began or ended. */
  | ({ kind: 'call' } & CallActivity)
  /**
   * A request to a human opened (once per request): what `approve`, `reject` and `answer` take, with its
   * id, kind, agent, summary and, on a gate, the digest of what it shows.
   */
  | { kind: 'request'; request: PendingRequest }
  /** A human decided a request. */
  | { kind: 'decision'; decision: DecisionRecord }
  /** What the model calls in flight have written so far (with `liveText`; `[]` once none runs). */
  | { kind: 'live'; calls: InFlightCall[]; at: number };

/** How to follow. */
export interface FollowOptions {
  /** Least time between two progress queries (default {@link MIN_QUERY_GAP_MS}). */
  minQueryGapMs?: number;
  /** Stop following (the run goes on); `followRun` then rejects with the signal's reason. */
  signal?: AbortSignal;
  /**
   * Emit `live` events: while a model call runs, read the text it is writing from the run's
   * pending activities, at most every `intervalMs` (default {@link LIVE_TEXT_INTERVAL_MS}). Off by
   * default.
   */
  liveText?: boolean | { intervalMs?: number };
}

type Handle = WorkflowHandle<TroupeRun>;

/** Turns progress answers into events: each step, decision, warning and call change once. */
class Progress {
  /** The number of the last step emitted. */
  lastStep = 0;
  private lastPhase = '';
  private seq = -1;
  private readonly decided = new Set<string>();
  /** Requests announced by a `request` event. */
  private readonly asked = new Set<string>();
  private readonly warnings = new Set<string>();
  /** Agent and tool calls running in the last answer, by id. */
  private calls = new Map<number, RunningCall>();
  /** The latest status. */
  private latest: RunStatusView | undefined;
  /** Whether the last answer had a model call running (an agent, judge, compaction or selector). */
  writing = false;

  constructor(
    private readonly handle: Handle,
    private readonly emit: (e: FollowEvent) => void,
  ) {}

  /** Whether the worker's answer holds every step and decision the run recorded. */
  saw(result: RunResult): boolean {
    return this.lastStep >= result.steps && (result.decisions ?? []).every((d) => this.decided.has(d.requestId));
  }

  /** Ask `progress` and emit what changed; false when the worker could not answer (it restarts, or is busy). */
  async take(): Promise<boolean> {
    const client = this.handle.client;
    try {
      // a query can wait up to Temporal's 30 s query timeout (e.g. while a new worker loads the
      // workflow); following must not stall on one, so each has its own short deadline
      const answer = await client.withDeadline(Date.now() + QUERY_DEADLINE_MS, () => this.handle.query(progressQuery, this.lastStep));
      this.apply(answer);
      return true;
    } catch {
      // queries fail briefly while a worker restarts; keep following
      return false;
    }
  }

  /**
   * Emit a progress record's news (`core/observe/progress.ts`); true, and nothing emitted, when the
   * follower must ask the `progress` query instead: the record left steps out for size, or has no
   * status, or does not follow on from the last step emitted (this follower joined after the run's
   * records began).
   */
  record(record: ProgressRecord): boolean {
    // nothing of such a record is emitted: the query's answer holds all of it, in order
    if (record.more === true || record.status === undefined || record.from > this.lastStep) return true;
    this.apply({ seq: record.seq, status: record.status, calls: record.calls, steps: record.steps });
    return false;
  }

  /**
   * Emit an answer's news: its steps, decisions and call changes, then its status once per counter.
   * An answer older than the last one applied (a record read after a fresher query) adds only steps.
   */
  private apply(answer: RunProgress): void {
    for (const step of answer.steps) {
      if (step.step <= this.lastStep) continue;
      this.lastStep = step.step;
      this.emit({ kind: 'step', step });
    }
    if (answer.seq < this.seq) return;
    this.decisions(answer.status.decisions);
    this.callChanges(answer.calls);
    this.writing = answer.calls.some((c) => c.kind !== 'tool');
    if (answer.seq === this.seq) return;
    this.seq = answer.seq;
    this.show(answer.status);
  }

  /** A `call` (model calls of agents) or `tool` event for each call that started or ended since the last answer. */
  private callChanges(calls: RunningCall[]): void {
    const now = new Map(calls.filter((c) => c.kind === 'agent' || c.kind === 'tool').map((c) => [c.id, c]));
    for (const [id, c] of this.calls) {
      if (!now.has(id)) this.emit(callEvent(c, 'finished', Date.now()));
    }
    for (const [id, c] of now) {
      if (!this.calls.has(id)) this.emit(callEvent(c, 'started', c.since));
    }
    this.calls = now;
  }

  private decisions(decisions: readonly DecisionRecord[]): void {
    for (const d of decisions) {
      if (this.decided.has(d.requestId)) continue;
      this.decided.add(d.requestId);
      this.emit({ kind: 'decision', decision: d });
    }
  }

  /** The end, from the RunResult: its decisions and warnings, the calls ended, and a last status. */
  finished(result: RunResult): void {
    this.decisions(result.decisions ?? []);
    this.callChanges([]);
    this.warn(result.warnings);
    if (this.latest?.phase === 'finished') return;
    const base: RunStatusView = this.latest ?? {
      workflowId: result.workflowId,
      phase: 'finished',
      round: 0,
      wave: 0,
      frontier: [],
      inFlight: [],
      iterations: {},
      steps: 0,
      usage: result.usage,
      activeMs: 0,
      pending: [],
      decisions: [],
      latest: {},
      warnings: [],
    };
    this.show({
      ...base,
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

  /** Emit a status, the phase when it changed, the requests that opened, and new warnings. */
  private show(status: RunStatusView): void {
    this.latest = status;
    this.emit({ kind: 'status', status, at: Date.now() });
    const phaseKey = `${status.phase}:${status.pending.map((p) => p.id).join(',')}`;
    if (phaseKey !== this.lastPhase) {
      this.lastPhase = phaseKey;
      this.emit({ kind: 'phase', status });
    }
    for (const request of status.pending) {
      if (this.asked.has(request.id)) continue;
      this.asked.add(request.id);
      this.emit({ kind: 'request', request });
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
}

/**
 * Hands events to the caller's callback in order, one at a time: one whose callback returned a
 * promise holds the events after it until it settles, so a callback may `await` (an `approve`, a
 * write) without events overtaking each other; a callback that throws or rejects ends the delivery,
 * and `onFailure` stops the following. A callback that returns nothing is called at once, as events
 * come.
 */
class Delivery {
  private readonly queue: FollowEvent[] = [];
  private busy: Promise<void> | undefined;
  private failed = false;

  constructor(
    private readonly onEvent: (e: FollowEvent) => unknown,
    private readonly onFailure: (err: unknown) => void,
  ) {}

  /** Deliver `e` now, or after the events before it are handled. */
  readonly emit = (e: FollowEvent): void => {
    if (this.failed) return;
    if (this.busy) this.queue.push(e);
    else this.deliver(e);
  };

  /** Resolves once every event emitted so far is handled. */
  async drained(): Promise<void> {
    while (this.busy) await this.busy;
  }

  private deliver(e: FollowEvent): void {
    let handled: unknown;
    try {
      handled = this.onEvent(e);
    } catch (err) {
      this.fail(err);
      return;
    }
    if (typeof (handled as Promise<void> | undefined)?.then === 'function') {
      this.busy = Promise.resolve(handled).then(
        () => this.next(),
        (err: unknown) => this.fail(err),
      );
    }
  }

  private next(): void {
    this.busy = undefined;
    while (!this.busy && !this.failed && this.queue.length > 0) this.deliver(this.queue.shift() as FollowEvent);
  }

  private fail(err: unknown): void {
    this.failed = true;
    this.busy = undefined;
    this.queue.length = 0;
    this.onFailure(err);
  }
}

/** The follow event of a call that started or ended. */
function callEvent(c: RunningCall, state: CallActivity['state'], at: number): FollowEvent {
  const activity: CallActivity = { id: String(c.id), agent: c.agent, label: c.label, state, at };
  return c.kind === 'tool' ? { kind: 'tool', ...activity, ...(c.tool !== undefined ? { tool: c.tool } : {}) } : { kind: 'call', ...activity };
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
 * Follow a run until it finishes: emit its starts, steps, tool calls, waits (with the pending
 * requests, and a `request` event for each that opens), decisions, warnings and status snapshots as
 * they happen, then return the RunResult. The run is followed across continue-as-new. `onEvent` may
 * be async (events wait for it, in order; its failure stops following). `options` may also be a
 * number: the least gap between snapshots.
 */
export async function followRun(
  handle: Handle,
  onEvent: (e: FollowEvent) => unknown,
  options: FollowOptions | number = {},
): Promise<RunResult> {
  const opts: FollowOptions = typeof options === 'number' ? { minQueryGapMs: options } : options;
  const gap = opts.minQueryGapMs ?? MIN_QUERY_GAP_MS;
  const client: WorkflowClient = handle.client;
  const history = new RunHistoryWatch(client, handle.workflowId, firstRunId(handle));
  const stop = new AbortController();
  const delivery = new Delivery(onEvent, (err) => stop.abort(err));
  const emit = delivery.emit;
  const progress = new Progress(handle, emit);
  const live = opts.liveText
    ? new InFlightWatch(handle, (calls) => emit({ kind: 'live', calls, at: Date.now() }), (typeof opts.liveText === 'object' && opts.liveText.intervalMs) || LIVE_TEXT_INTERVAL_MS)
    : undefined;
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

  // `records`: the run's own records, once it writes them (`on`), or none on its build (`off`: ask the
  // query); `failed`: the follow Update failed for now (a worker restarting, a deadline), so follow
  // by query meanwhile and ask again after `after`; `run`: the run of the chain asked
  const follow = { records: 'unknown' as 'unknown' | 'on' | 'off', failed: false, after: 0, run: -1 };
  let asking: Promise<'asked'> | undefined;
  let runIndex = 0;
  let runRecorded = false;
  const current = client.getHandle<TroupeRun>(handle.workflowId);
  const ask = async (): Promise<'asked'> => {
    follow.run = runIndex;
    try {
      const answer = await client.withDeadline(Date.now() + FOLLOW_DEADLINE_MS, () => current.executeUpdate(followUpdate, { args: [progress.lastStep] }));
      follow.records = answer.recording ? 'on' : 'off';
      follow.failed = false;
    } catch (err) {
      // an older build has no such Update; a closed run ends the following by its history
      if (err instanceof WorkflowUpdateFailedError) follow.records = 'off';
      else if (!(err instanceof WorkflowNotFoundError)) {
        follow.failed = true;
        follow.after = Date.now() + RETRY_MS;
        follow.run = -1;
      }
    }
    return 'asked';
  };

  try {
    // in query mode, asked as soon as the first page of history said how the run started (`started`
    // comes first): a run joined mid-way shows where it is before its next move
    let dirty = true;
    let read = false;
    let nextQuery = 0;
    // a record left something out: the query answers it
    let recordGap = false;
    let pending = startPoll();
    const queryMode = () => follow.records === 'off' || (follow.failed && !asking);
    while (!history.closed) {
      const wait = delay((recordGap || (dirty && queryMode())) && read ? nextQuery - Date.now() : Infinity);
      const woke = await Promise.race([pending, wait.done, aborted, ...(asking ? [asking] : [])]);
      wait.clear();
      if (woke === 'abort') throw stop.signal.reason ?? new Error('followRun: aborted');
      if (woke === 'asked') asking = undefined;
      else if (woke !== 'tick') {
        read = true;
        if (woke !== 'failed') {
          for (const s of woke.started) {
            emit({ kind: 'started', runId: s.runId, graph: s.graph, at: s.at });
            runIndex += 1;
            runRecorded = false;
          }
          dirty ||= woke.moved;
          if (woke.records.length > 0) {
            runRecorded = true;
            follow.records = 'on';
          }
          for (const r of recordGap ? [] : woke.records) {
            if (!progress.record(r)) continue;
            recordGap = true;
            break;
          }
          if (!recordGap && woke.records.length > 0) live?.set(progress.writing);
          const askNow = woke.moved && !history.closed && follow.records !== 'off' && !runRecorded && !asking && follow.run !== runIndex && Date.now() >= follow.after;
          if (askNow) asking = ask();
        }
        if (history.closed) break;
        pending = startPoll();
      }
      if ((recordGap || (dirty && queryMode())) && read && Date.now() >= nextQuery) {
        const ok = await progress.take();
        if (ok) live?.set(progress.writing);
        // a worker that cannot answer (restarting, or down) is asked again later, not at every event
        dirty = !ok;
        if (ok) recordGap = false;
        nextQuery = Date.now() + (ok ? gap : Math.max(gap, RETRY_MS));
      }
    }
    live?.stop();
    const result = await handle.result();
    // the last steps or decisions: a closed run's query needs a worker to replay it, so only when
    // they were not seen, with a few tries
    for (let attempt = 0; attempt < 3 && !progress.saw(result); attempt++) {
      if (await progress.take()) break;
    }
    progress.finished(result);
    // the caller has handled every event when the result is returned
    await Promise.race([delivery.drained(), aborted]);
    if (stop.signal.aborted) throw stop.signal.reason ?? new Error('followRun: aborted');
    return result;
  } finally {
    live?.stop();
    opts.signal?.removeEventListener('abort', onAbort);
    stop.abort();
  }
}
