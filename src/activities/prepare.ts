/**
 * The run-start activity: the worker checks, against its own allowlists, every endpoint and key
 * variable a run's role file names, and refuses the run (a non-retryable failure naming each refused
 * setting and the variable that would allow it) before any request is sent. It runs as a local
 * activity, so its answer is recorded in the history and a replay never asks the worker again.
 */
import { ApplicationFailure } from '@temporalio/activity';
import { FAILURE_TYPES, type PrepareInput, type PrepareResult } from '../core/llm/contract';
import { checkRunEndpoints, type EndpointPolicy } from './endpoints';

/** Builds the prepare activity for the worker's endpoint policy. */
export function makePrepareRun(policy: EndpointPolicy) {
  return async function prepareRun(input: PrepareInput): Promise<PrepareResult> {
    const refused = checkRunEndpoints(input.models, policy);
    if (refused.length > 0) {
      const message = refused.map((v) => v.message).join('; ');
      throw ApplicationFailure.create({
        type: FAILURE_TYPES.fatal,
        nonRetryable: true,
        message,
        details: [{ kind: 'agent', message }],
      });
    }
    return { ok: true };
  };
}
