/**
 * A run's result, or a clear failure when the run is wedged: a workflow task that throws on every
 * attempt is retried by Temporal without end, so `result()` would wait forever. The workflow task's
 * attempt is read from `describe()` while the result is awaited; a second attempt of one task means
 * the task threw (troupe's workflow code never fails a task on purpose). A wedged run is terminated,
 * so nothing is left polling for its result once the test has failed.
 */
import type { WorkflowHandle } from '@temporalio/client';

/** Texts of this helper, kept together so tests pin them. */
export const WEDGE_TEXTS = {
  wedged: (workflowId: string, attempt: number, failure: string) =>
    `run ${workflowId} is wedged: its workflow task is on attempt ${attempt}${failure ? ` (${failure})` : ''}`,
} as const;

/** The failure of the run's last failed workflow task, from its history (empty when none is found). */
async function lastTaskFailure(handle: WorkflowHandle): Promise<string> {
  const history = await handle.fetchHistory().catch(() => undefined);
  const failed = history?.events?.filter((e) => e.workflowTaskFailedEventAttributes).at(-1);
  return failed?.workflowTaskFailedEventAttributes?.failure?.message ?? '';
}

/**
 * Resolves with the run's result; rejects with {@link WEDGE_TEXTS.wedged} as soon as its pending
 * workflow task is on its second attempt.
 */
export async function resultUnlessWedged<R>(handle: WorkflowHandle & { result(): Promise<R> }): Promise<R> {
  let settled = false;
  let wedged: Error | undefined;
  const result = handle.result().finally(() => (settled = true));
  const watch = (async (): Promise<never | undefined> => {
    while (!settled) {
      const description = await handle.describe().catch(() => undefined);
      const attempt = description?.raw.pendingWorkflowTask?.attempt ?? 0;
      if (!settled && attempt >= 2) {
        wedged = new Error(WEDGE_TEXTS.wedged(handle.workflowId, attempt, await lastTaskFailure(handle)));
        result.catch(() => undefined);
        await handle.terminate('wedged').catch(() => undefined);
        throw wedged;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    return undefined;
  })();
  try {
    return (await Promise.race([result, watch.then(() => result)])) as R;
  } catch (err) {
    throw wedged ?? err;
  }
}
