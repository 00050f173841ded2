/**
 * The child runs a reset leaves behind (src/rewind/plan.ts `childrenLeft`; docs/cli.md, "troupe
 * rewind"): started after the reset point and not closed in the base run's history. A child started
 * before the point is the reset run's own (it replays it), and a closed one needs nothing.
 */
import { temporal } from '@temporalio/proto';
import { childrenLeft } from '../../../src/rewind/plan';

const T = temporal.api.enums.v1.EventType;
type Event = temporal.api.history.v1.IHistoryEvent;

const started = (eventId: number, initiated: number, workflowId: string): Event => ({
  eventId: eventId as never,
  eventType: T.EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_STARTED,
  childWorkflowExecutionStartedEventAttributes: { initiatedEventId: initiated as never, workflowExecution: { workflowId, runId: `run-of-${workflowId}` } },
});

describe('childrenLeft', () => {
  test('only the children started after the reset point and still running', () => {
    const events: Event[] = [
      started(6, 5, 'p/r/early-1'),
      started(16, 15, 'p/r/done-1'),
      { eventId: 20 as never, eventType: T.EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_COMPLETED, childWorkflowExecutionCompletedEventAttributes: { initiatedEventId: 15 as never } },
      started(23, 22, 'p/r/cancelled-1'),
      { eventId: 25 as never, eventType: T.EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_CANCELED, childWorkflowExecutionCanceledEventAttributes: { initiatedEventId: 22 as never } },
      started(31, 30, 'p/r/running-1'),
      started(33, 32, 'p/r/running-2'),
    ];
    expect(childrenLeft({ events }, 10)).toEqual([
      { workflowId: 'p/r/running-1', runId: 'run-of-p/r/running-1' },
      { workflowId: 'p/r/running-2', runId: 'run-of-p/r/running-2' },
    ]);
    expect(childrenLeft({ events }, 31)).toEqual([{ workflowId: 'p/r/running-2', runId: 'run-of-p/r/running-2' }]);
    expect(childrenLeft({}, 0)).toEqual([]);
  });
});
