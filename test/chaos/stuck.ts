/**
 * A chaos run that did not end by its deadline (RELIABILITY.md §1), described for the maintainer who
 * has to find out why: what the run's `status` query says it waits for, and the tail of its history.
 */
import type { Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import type { RunStatusView } from '../../src/core/ending/result';
import { statusQuery } from '../../src/contract';
import { retrying } from './deadline';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

/** The parts of the `status` query that say what a run waits for. */
export interface StatusSnapshot {
  phase: RunStatusView['phase'];
  steps: number;
  round: number;
  wave: number;
  frontier: string[];
  inFlight: string[];
  pending: Array<{ id: string; kind: string; agent?: string; summary: string }>;
  decisions: Array<{ requestId: string; kind: string }>;
  warnings: string[];
}

/** One history event as a line: its id, type (`ActivityTaskScheduled`), time and a short detail. */
export interface EventLine {
  id: number;
  type: string;
  /** ISO time of the event. */
  time: string;
  /** ms after the phase began (the fault times of the report count from the same moment). */
  atMs: number;
  detail?: string;
}

/** A run that did not end by its deadline. */
export interface StuckRun {
  phase: 'baseline' | 'chaos';
  index: number;
  kind: string;
  workflowId: string;
  deadlineMs: number;
  /** The `status` query's answer, or why there was none. */
  status: { answered: true; view: StatusSnapshot } | { answered: false; error: string };
  /** The history's length and its last events, oldest first (or why it could not be read). */
  history: { length: number; last: EventLine[] } | { error: string };
}

/** How many of a stuck run's last history events the report shows. */
export const TAIL = 15;

/** Ask a run that did not end what it waits for, and read the tail of its history. */
export async function diagnose(
  client: Client,
  run: Pick<StuckRun, 'phase' | 'index' | 'kind' | 'workflowId' | 'deadlineMs'>,
  phaseStartedAt: number,
): Promise<StuckRun> {
  const handle = client.workflow.getHandle(run.workflowId);
  // each question gets 20 s: tried again through a server restart for 15 s, every call ended at 20
  const ask = async <T>(fn: () => Promise<T>): Promise<{ ok: true; value: T } | { ok: false; error: string }> => {
    const until = Date.now() + 20_000;
    try {
      return { ok: true, value: await retrying(() => client.withDeadline(until, fn), { timeoutMs: 15_000 }) };
    } catch (err) {
      return { ok: false, error: err instanceof Error ? err.message : String(err) };
    }
  };
  const status = await ask(() => handle.query(statusQuery));
  const history = await ask(() => handle.fetchHistory());
  return {
    ...run,
    status: status.ok ? { answered: true, view: statusSnapshot(status.value) } : { answered: false, error: status.error },
    history: history.ok
      ? { length: history.value.events?.length ?? 0, last: historyTail(history.value.events ?? [], TAIL, phaseStartedAt) }
      : { error: history.error },
  };
}

/** The status view cut to what says why a run waits. */
export function statusSnapshot(view: RunStatusView): StatusSnapshot {
  return {
    phase: view.phase,
    steps: view.steps,
    round: view.round,
    wave: view.wave,
    frontier: view.frontier,
    inFlight: view.inFlight,
    pending: view.pending.map((p) => ({ id: p.id, kind: p.kind, ...(p.agent ? { agent: p.agent } : {}), summary: p.summary })),
    decisions: view.decisions.map((d) => ({ requestId: d.requestId, kind: d.kind })),
    warnings: view.warnings,
  };
}

/** The last `n` events of a history as lines, their times counted from `startedAt` (epoch ms). */
export function historyTail(events: HistoryEvent[], n: number, startedAt: number): EventLine[] {
  const activities = new Map<string, string>();
  for (const e of events) {
    const scheduled = e.activityTaskScheduledEventAttributes;
    if (scheduled) activities.set(String(e.eventId), `${scheduled.activityType?.name ?? '?'} ${scheduled.activityId ?? ''}`.trim());
  }
  return events.slice(-n).map((e) => {
    const ms = Number(e.eventTime?.seconds ?? 0) * 1000 + Math.round((e.eventTime?.nanos ?? 0) / 1e6);
    const detail = eventDetail(e, activities);
    return {
      id: Number(e.eventId ?? 0),
      type: eventTypeName(e.eventType),
      time: new Date(ms).toISOString(),
      atMs: ms - startedAt,
      ...(detail ? { detail } : {}),
    };
  });
}

/** `EVENT_TYPE_ACTIVITY_TASK_SCHEDULED` → `ActivityTaskScheduled`. */
function eventTypeName(type: temporal.api.enums.v1.EventType | null | undefined): string {
  const name = temporal.api.enums.v1.EventType[type ?? 0] ?? `EVENT_TYPE_${type}`;
  return name
    .replace(/^EVENT_TYPE_/, '')
    .toLowerCase()
    .replace(/(^|_)([a-z])/g, (_, __, c: string) => c.toUpperCase());
}

/** What an event is about: the activity, the signal's name, the failure's message. */
function eventDetail(e: HistoryEvent, activities: Map<string, string>): string | undefined {
  const of = (scheduledEventId: unknown) => activities.get(String(scheduledEventId)) ?? `event ${String(scheduledEventId)}`;
  if (e.activityTaskScheduledEventAttributes) return activities.get(String(e.eventId));
  if (e.activityTaskStartedEventAttributes) {
    const a = e.activityTaskStartedEventAttributes;
    return `${of(a.scheduledEventId)}, attempt ${a.attempt ?? 1}`;
  }
  if (e.activityTaskCompletedEventAttributes) return of(e.activityTaskCompletedEventAttributes.scheduledEventId);
  if (e.activityTaskFailedEventAttributes) {
    const a = e.activityTaskFailedEventAttributes;
    return `${of(a.scheduledEventId)}: ${a.failure?.message ?? ''}`;
  }
  if (e.activityTaskTimedOutEventAttributes) {
    const a = e.activityTaskTimedOutEventAttributes;
    return `${of(a.scheduledEventId)}: ${a.failure?.message ?? ''}`;
  }
  if (e.workflowExecutionSignaledEventAttributes) return e.workflowExecutionSignaledEventAttributes.signalName ?? undefined;
  if (e.workflowTaskFailedEventAttributes) return e.workflowTaskFailedEventAttributes.failure?.message ?? undefined;
  if (e.workflowExecutionFailedEventAttributes) return e.workflowExecutionFailedEventAttributes.failure?.message ?? undefined;
  if (e.markerRecordedEventAttributes) return e.markerRecordedEventAttributes.markerName ?? undefined;
  if (e.timerStartedEventAttributes) return e.timerStartedEventAttributes.timerId ?? undefined;
  return undefined;
}

/** The "did not end" section of the chaos report: one block per run, the status and the history tail. */
export function stuckMarkdown(stuck: StuckRun[]): string {
  const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
  const blocks = stuck.map((s) => {
    const head = `### ${s.phase} run ${s.index} (${s.kind}): \`${s.workflowId}\`, no end within ${seconds(s.deadlineMs)}`;
    const status = s.status.answered ? statusLines(s.status.view) : [`- status query: no answer (${s.status.error})`];
    const history =
      'error' in s.history
        ? [`history: could not be read (${s.history.error})`]
        : [
            `last ${s.history.last.length} of ${s.history.length} history events (time after the phase began):`,
            '',
            '| event | type | at | detail |',
            '|---|---|---|---|',
            ...s.history.last.map((e) => `| ${e.id} | ${e.type} | ${seconds(e.atMs)} (${e.time.slice(11)}) | ${cell(e.detail ?? '')} |`),
          ];
    return [head, '', ...status, '', ...history].join('\n');
  });
  return [`## did not end (${stuck.length})`, '', blocks.join('\n\n')].join('\n');
}

function statusLines(v: StatusSnapshot): string[] {
  const list = (xs: string[]) => (xs.length > 0 ? xs.join(', ') : 'none');
  return [
    `- phase: ${v.phase}; steps ${v.steps}; round ${v.round}, wave ${v.wave}`,
    `- pending requests: ${list(v.pending.map((p) => `${p.id} ${p.kind}${p.agent ? ` (${p.agent})` : ''}: ${p.summary}`))}`,
    `- decisions: ${list(v.decisions.map((d) => `${d.kind} ${d.requestId}`))}`,
    `- in flight: ${list(v.inFlight)}; frontier: ${list(v.frontier)}`,
    `- warnings: ${list(v.warnings)}`,
  ];
}

/** Text safe inside a markdown table cell. */
function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\s*\n\s*/g, ' ').slice(0, 200);
}
