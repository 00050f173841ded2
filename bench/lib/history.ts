/**
 * Reads a fetched workflow history (`handle.fetchHistory()`) into what the benchmarks report:
 * events and encoded bytes per event, the activity steps with their payload sizes, the server-side
 * phase timings of each sequential step, and iteration boundaries of a review loop.
 */
import { temporal } from '@temporalio/proto';

/** A history as the client returns it. */
export type History = temporal.api.history.v1.IHistory;
type Event = temporal.api.history.v1.IHistoryEvent;
type Payloads = temporal.api.common.v1.IPayloads | null | undefined;

const EventType = temporal.api.enums.v1.EventType;

/** One event, flattened: id, short type name, server time (epoch ms) and protobuf-encoded size. */
export interface EventRow {
  id: number;
  type: string;
  timeMs: number;
  bytes: number;
}

function timeMs(e: Event): number {
  const t = e.eventTime;
  if (!t) return Number.NaN;
  return Number(t.seconds ?? 0) * 1000 + (t.nanos ?? 0) / 1e6;
}

function typeName(e: Event): string {
  const name = EventType[e.eventType ?? 0] ?? String(e.eventType);
  return name.replace(/^EVENT_TYPE_/, '');
}

/** The events of a history as rows. */
export function eventRows(history: History): EventRow[] {
  return (history.events ?? []).map((e) => ({
    id: Number(e.eventId),
    type: typeName(e),
    timeMs: timeMs(e),
    bytes: temporal.api.history.v1.HistoryEvent.encode(e).finish().length,
  }));
}

/** How many events of each type a history holds. */
export function eventTypeCounts(rows: readonly EventRow[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const r of rows) counts[r.type] = (counts[r.type] ?? 0) + 1;
  return counts;
}

/** Bytes of the payload data (what the data converter produced), without metadata. */
export function payloadBytes(p: Payloads): number {
  return (p?.payloads ?? []).reduce((n, x) => n + (x.data?.length ?? 0), 0);
}

function decodeFirst(p: Payloads): unknown {
  const data = p?.payloads?.[0]?.data;
  if (!data) return undefined;
  try {
    return JSON.parse(Buffer.from(data).toString('utf8'));
  } catch {
    return undefined;
  }
}

/** One activity of a history, with the server times of its phases and the workflow task after it. */
export interface ActivityStep {
  activityType: string;
  /** `agent` field of the activity input (troupe's activities), when present. */
  agent?: string;
  scheduledId: number;
  scheduledMs: number;
  startedMs: number;
  completedMs: number;
  /** The workflow task the completion woke: started and completed times (NaN when none). */
  wftStartedMs: number;
  wftCompletedMs: number;
  inputBytes: number;
  resultBytes: number;
  attempt: number;
}

/** The activities of a history in scheduling order, joined with their start/complete events. */
export function activitySteps(history: History): ActivityStep[] {
  const events = history.events ?? [];
  const byId = new Map<number, Event>(events.map((e) => [Number(e.eventId), e]));
  const steps = new Map<number, ActivityStep>();
  for (const e of events) {
    const id = Number(e.eventId);
    const sched = e.activityTaskScheduledEventAttributes;
    if (sched) {
      const input = decodeFirst(sched.input) as { agent?: unknown } | undefined;
      steps.set(id, {
        activityType: sched.activityType?.name ?? '',
        agent: typeof input?.agent === 'string' ? input.agent : undefined,
        scheduledId: id,
        scheduledMs: timeMs(e),
        startedMs: Number.NaN,
        completedMs: Number.NaN,
        wftStartedMs: Number.NaN,
        wftCompletedMs: Number.NaN,
        inputBytes: payloadBytes(sched.input),
        resultBytes: 0,
        attempt: 0,
      });
    }
    const started = e.activityTaskStartedEventAttributes;
    if (started) {
      const step = steps.get(Number(started.scheduledEventId));
      if (step) {
        step.startedMs = timeMs(e);
        step.attempt = started.attempt ?? 1;
      }
    }
    const done = e.activityTaskCompletedEventAttributes;
    if (done) {
      const step = steps.get(Number(done.scheduledEventId));
      if (step) {
        step.completedMs = timeMs(e);
        step.resultBytes = payloadBytes(done.result);
        const wftStarted = byId.get(id + 2);
        const wftCompleted = byId.get(id + 3);
        if (wftStarted?.workflowTaskStartedEventAttributes) step.wftStartedMs = timeMs(wftStarted);
        if (wftCompleted?.workflowTaskCompletedEventAttributes) step.wftCompletedMs = timeMs(wftCompleted);
      }
    }
  }
  return [...steps.values()];
}

/** The server-side phases of one sequential step, in ms (see BENCHMARKS.md, B1). */
export interface StepPhases {
  /** ActivityTaskScheduled → ActivityTaskStarted: Matching hands the task to a poller. */
  dispatch: number;
  /** ActivityTaskStarted → ActivityTaskCompleted: the activity on the worker, HTTP call included. */
  execute: number;
  /** ActivityTaskCompleted → WorkflowTaskStarted: the workflow task reaches the (sticky) poller. */
  wakeup: number;
  /** WorkflowTaskStarted → WorkflowTaskCompleted: the worker runs the activation and answers. */
  decide: number;
  /** WorkflowTaskCompleted → next ActivityTaskScheduled. */
  schedule: number;
}

/** Phase timings of each step that has a following step. */
export function stepPhases(steps: readonly ActivityStep[]): StepPhases[] {
  const out: StepPhases[] = [];
  for (let i = 0; i + 1 < steps.length; i++) {
    const s = steps[i];
    out.push({
      dispatch: s.startedMs - s.scheduledMs,
      execute: s.completedMs - s.startedMs,
      wakeup: s.wftStartedMs - s.completedMs,
      decide: s.wftCompletedMs - s.wftStartedMs,
      schedule: steps[i + 1].scheduledMs - s.wftCompletedMs,
    });
  }
  return out;
}

/** The server's own history size (bytes) as of each workflow task start, by event id. */
export function serverHistorySizes(history: History): Array<{ id: number; bytes: number; length: number }> {
  const out: Array<{ id: number; bytes: number; length: number }> = [];
  for (const e of history.events ?? []) {
    const a = e.workflowTaskStartedEventAttributes;
    if (a && a.historySizeBytes != null) {
      out.push({ id: Number(e.eventId), bytes: Number(a.historySizeBytes), length: Number(e.eventId) });
    }
  }
  return out;
}

/** One review-loop iteration: the events from one first-agent scheduling to the next. */
export interface IterationSlice {
  iteration: number;
  firstId: number;
  events: number;
  bytes: number;
  inputBytes: number;
  resultBytes: number;
}

/** Splits a review-loop history into iterations at each scheduling of `firstAgent`. */
export function iterations(history: History, firstAgent: string): IterationSlice[] {
  const rows = eventRows(history);
  const steps = activitySteps(history);
  const starts = steps.filter((s) => s.agent === firstAgent).map((s) => s.scheduledId);
  const out: IterationSlice[] = [];
  for (let k = 0; k + 1 < starts.length; k++) {
    const [from, to] = [starts[k], starts[k + 1]];
    const inRange = rows.filter((r) => r.id >= from && r.id < to);
    const inSteps = steps.filter((s) => s.scheduledId >= from && s.scheduledId < to);
    out.push({
      iteration: k + 1,
      firstId: from,
      events: inRange.length,
      bytes: inRange.reduce((n, r) => n + r.bytes, 0),
      inputBytes: inSteps.reduce((n, s) => n + s.inputBytes, 0),
      resultBytes: inSteps.reduce((n, s) => n + s.resultBytes, 0),
    });
  }
  return out;
}

/** The run id a history continued as new into, if it did. */
export function continuedAsNewRunId(history: History): string | undefined {
  for (const e of history.events ?? []) {
    const a = e.workflowExecutionContinuedAsNewEventAttributes;
    if (a?.newExecutionRunId) return a.newExecutionRunId;
  }
  return undefined;
}
