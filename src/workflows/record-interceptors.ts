/**
 * The workflow interceptor that writes a followed run's progress record (`progress-record.ts`).
 * **Runs in the workflow sandbox.** Every troupe bundle has it (`bundleOptions` in src/worker.ts):
 * a run replays on any troupe worker, and its records are commands.
 *
 * When an activation concludes, after every job and microtask of it ran, the run's recorder says
 * whether there is a record to write; if so, two memo upserts go in front of the activation's
 * closing command (completion, failure, cancellation or continue-as-new), if any: the record, and its
 * removal. The history keeps the record's event; the run's memo does not keep the record, so the
 * server does not write it again with every later update of the run. The commands are built as
 * `upsertMemo` builds them, with the workflow's payload converter; the commands of an activation are
 * already taken when this hook runs, so they cannot be pushed with `upsertMemo` itself. Records are a
 * function of the run's state, and the state of its history, so replay writes the same commands.
 */
import type { coresdk } from '@temporalio/proto';
import { mapToPayloads } from '@temporalio/common';
import { maybeGetActivator } from '@temporalio/workflow/lib/global-attributes';
import { workflowInfo, type WorkflowInterceptorsFactory } from '@temporalio/workflow';
import { PROGRESS_RECORD_KEY } from '../core/observe/progress';
import { markRecordInterceptor, progressRecorder } from './progress-record';

type Command = coresdk.workflow_commands.IWorkflowCommand;

/** Whether a command closes the run (nothing may follow it). */
function closes(c: Command): boolean {
  return !!(c.completeWorkflowExecution || c.failWorkflowExecution || c.cancelWorkflowExecution || c.continueAsNewWorkflowExecution);
}

/** The memo upsert of `value` under the record's key (`undefined`: the key removed), as `upsertMemo` makes it. */
function memoCommand(value: unknown): Command {
  const activator = maybeGetActivator();
  if (!activator) throw new Error('troupe: progress record outside a workflow');
  const info = workflowInfo();
  const context = { type: 'workflow' as const, namespace: info.namespace, workflowId: info.workflowId };
  return { modifyWorkflowProperties: { upsertedMemo: { fields: mapToPayloads(activator.payloadConverter, { [PROGRESS_RECORD_KEY]: value }, context) } } };
}

export const interceptors: WorkflowInterceptorsFactory = () => {
  markRecordInterceptor();
  return {
    internals: [
      {
        concludeActivation(input, next) {
          const out = next(input);
          try {
            const record = progressRecorder()?.take(Date.now());
            if (!record) return out;
            const commands = [...out.commands];
            const at = commands.findIndex(closes);
            commands.splice(at < 0 ? commands.length : at, 0, memoCommand(record), memoCommand(undefined));
            return { ...out, commands };
          } catch {
            // a task that throws here would fail without end and wedge the run: no record instead (the
            // same on replay, since the record is a function of the state); the follower's next record
            // follows on from an earlier step, and it asks the query for the gap
            return out;
          }
        },
      },
    ],
  };
};
