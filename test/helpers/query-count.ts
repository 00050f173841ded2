/**
 * Counting the queries a worker serves, by workflow id and query name, through the sink of
 * `test/fixtures/count-queries-interceptor.ts` (bundle that module with the workflows and pass
 * `sinks` to the worker): what following a run costs the worker, with no mock of Temporal.
 */
import type { InjectedSinks } from '@temporalio/worker';
import type { QueryCountSinks } from '../fixtures/count-queries-interceptor';

/** The workflow interceptor module that reports each query served. */
export const COUNT_QUERIES_MODULE = require.resolve('../fixtures/count-queries-interceptor');

/** A counter of served queries: `sinks` for the worker, `count(workflowId, queryName)` for the test. */
export function queryCounter(): { sinks: InjectedSinks<QueryCountSinks>; count: (id: string, name: string) => number } {
  const served = new Map<string, Record<string, number>>();
  const count = (id: string, name: string) => served.get(id)?.[name] ?? 0;
  const sinks: InjectedSinks<QueryCountSinks> = {
    queries: {
      served: {
        fn: (info, name) => {
          served.set(info.workflowId, { ...served.get(info.workflowId), [name]: count(info.workflowId, name) + 1 });
        },
        callDuringReplay: false,
      },
    },
  };
  return { sinks, count };
}
