/**
 * The chaos driver's deadlines and its "did not end" report (RELIABILITY.md §1), without a server: a
 * wait that never ends becomes a report at its deadline, its signal is aborted, and no timer is left
 * behind to keep node alive.
 */
import { temporal } from '@temporalio/proto';
import { retrying, withinDeadline } from '../../chaos/deadline';
import { historyTail, stuckMarkdown, type StuckRun } from '../../chaos/stuck';

const EventType = temporal.api.enums.v1.EventType;
const timers = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;

describe('withinDeadline', () => {
  test('a wait that ends in time gives its value, and leaves no timer and an aborted signal', async () => {
    const before = timers();
    let seen: AbortSignal | undefined;
    const out = await withinDeadline(60_000, async (signal) => {
      seen = signal;
      return 'done';
    });
    expect(out).toEqual({ kind: 'ended', value: 'done' });
    expect(seen?.aborted).toBe(true);
    expect(timers()).toBeLessThanOrEqual(before);
  });

  test('a wait that never ends is cut at the deadline, its signal aborted and its rejection absorbed', async () => {
    const before = timers();
    let stoppedAt: number | undefined;
    const t0 = Date.now();
    const out = await withinDeadline(50, (signal) => {
      const never = new Promise<string>((_, reject) =>
        signal.addEventListener('abort', () => {
          stoppedAt = Date.now();
          reject(new Error('cancelled'));
        }),
      );
      return never;
    });
    expect(out).toEqual({ kind: 'deadline', afterMs: 50 });
    expect(stoppedAt! - t0).toBeGreaterThanOrEqual(45);
    expect(timers()).toBeLessThanOrEqual(before);
  });

  test('a wait that fails before its deadline rejects with its own error', async () => {
    await expect(withinDeadline(60_000, async () => Promise.reject(new Error('no such workflow')))).rejects.toThrow('no such workflow');
  });

  test('a retry loop under a deadline stops at it, with no poll left running', async () => {
    const before = timers();
    let tries = 0;
    const out = await withinDeadline(1_200, (signal) =>
      retrying(
        async () => {
          tries += 1;
          throw new Error('server away');
        },
        { signal },
      ),
    );
    expect(out.kind).toBe('deadline');
    expect(tries).toBe(3); // at 0, 0.5 and 1 s
    await new Promise((resolve) => setTimeout(resolve, 700));
    expect(tries).toBe(3);
    expect(timers()).toBeLessThanOrEqual(before);
  });

  test('retrying gives up after its own timeout with the last error', async () => {
    await expect(retrying(async () => Promise.reject(new Error('down')), { timeoutMs: 0 })).rejects.toThrow('down');
  });
});

describe('the "did not end" report', () => {
  const at = (ms: number) => ({ seconds: Math.floor(ms / 1000), nanos: (ms % 1000) * 1e6 });
  const start = Date.UTC(2026, 0, 1, 12, 0, 0);
  const events = [
    { eventId: 1, eventType: EventType.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED, eventTime: at(start + 100) },
    {
      eventId: 5,
      eventType: EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED,
      eventTime: at(start + 1_000),
      activityTaskScheduledEventAttributes: { activityId: 'agent:writer:1', activityType: { name: 'callAgent' } },
    },
    { eventId: 6, eventType: EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED, eventTime: at(start + 1_200), activityTaskStartedEventAttributes: { scheduledEventId: 5, attempt: 2 } },
    { eventId: 7, eventType: EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED, eventTime: at(start + 3_450), activityTaskCompletedEventAttributes: { scheduledEventId: 5 } },
    { eventId: 11, eventType: EventType.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED, eventTime: at(start + 4_000), workflowExecutionSignaledEventAttributes: { signalName: 'approve' } },
  ].map((e) => temporal.api.history.v1.HistoryEvent.fromObject(e));

  test('the history tail names each event, what it is about, and when after the phase began', () => {
    expect(historyTail(events, 4, start)).toEqual([
      { id: 5, type: 'ActivityTaskScheduled', time: '2026-01-01T12:00:01.000Z', atMs: 1_000, detail: 'callAgent agent:writer:1' },
      { id: 6, type: 'ActivityTaskStarted', time: '2026-01-01T12:00:01.200Z', atMs: 1_200, detail: 'callAgent agent:writer:1, attempt 2' },
      { id: 7, type: 'ActivityTaskCompleted', time: '2026-01-01T12:00:03.450Z', atMs: 3_450, detail: 'callAgent agent:writer:1' },
      { id: 11, type: 'WorkflowExecutionSignaled', time: '2026-01-01T12:00:04.000Z', atMs: 4_000, detail: 'approve' },
    ]);
  });

  test('each stuck run shows its id, its status and its last events', () => {
    const stuck: StuckRun[] = [
      {
        phase: 'chaos',
        index: 14,
        kind: 'approval',
        workflowId: 'chaos-chaos-14-approval-4242',
        deadlineMs: 300_000,
        status: {
          answered: true,
          view: {
            phase: 'running',
            steps: 2,
            round: 1,
            wave: 2,
            frontier: [],
            inFlight: [],
            pending: [],
            decisions: [{ requestId: 'r1', kind: 'approve' }],
            warnings: ['a decision for r1 arrived before its request'],
          },
        },
        history: { length: 40, last: historyTail(events, 2, start) },
      },
      { phase: 'baseline', index: 3, kind: 'review', workflowId: 'chaos-baseline-3-review-7', deadlineMs: 180_000, status: { answered: false, error: 'no answer within 20 s' }, history: { error: 'workflow not found' } },
    ];
    expect(stuckMarkdown(stuck)).toBe(
      [
        '## did not end (2)',
        '',
        '### chaos run 14 (approval): `chaos-chaos-14-approval-4242`, no end within 300.0 s',
        '',
        '- phase: running; steps 2; round 1, wave 2',
        '- pending requests: none',
        '- decisions: approve r1',
        '- in flight: none; frontier: none',
        '- warnings: a decision for r1 arrived before its request',
        '',
        'last 2 of 40 history events (time after the phase began):',
        '',
        '| event | type | at | detail |',
        '|---|---|---|---|',
        '| 7 | ActivityTaskCompleted | 3.5 s (12:00:03.450Z) | callAgent agent:writer:1 |',
        '| 11 | WorkflowExecutionSignaled | 4.0 s (12:00:04.000Z) | approve |',
        '',
        '### baseline run 3 (review): `chaos-baseline-3-review-7`, no end within 180.0 s',
        '',
        '- status query: no answer (no answer within 20 s)',
        '',
        'history: could not be read (workflow not found)',
      ].join('\n'),
    );
  });
});
