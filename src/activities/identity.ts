/** The identity of one activity call, shared by its retries: what tools and model endpoints can de-duplicate on. */
import type { Info } from '@temporalio/activity';

/** `<workflowId>/<runId>/<activityId>`: the same for every attempt of one call, unique across calls and runs. */
export function callIdOf(info: Info, workflowId: string): string {
  return `${info.workflowExecution?.workflowId ?? workflowId}/${info.workflowExecution?.runId ?? ''}/${info.activityId}`;
}
