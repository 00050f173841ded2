/**
 * Finding runs: every troupe run of a namespace, filtered by graph, status and whether a human is
 * needed (docs/operating.md, "Finding runs"). With troupe's search attributes registered the server
 * filters (the same query works in the Temporal UI's search box); without them troupe lists its
 * runs and filters on the memo each run keeps.
 */
import type { Client, WorkflowExecutionInfo } from '@temporalio/client';
import { SEARCH_KEYS, WORKFLOW_TYPE } from '../contract';
import { listQuery, RUNNING_STATUS, type ListFilter } from '../core/observe/search';
import { searchAttributesRegistered } from './runs';

export type { ListFilter } from '../core/observe/search';

/** One run in a listing. */
export interface RunListing {
  workflowId: string;
  runId: string;
  graph?: string;
  /**
   * troupe's status (`running`, `completed`, `exhausted`, …); for a run that ended outside troupe's
   * control, Temporal's (`terminated`, `timed_out`, `failed`).
   */
  status: string;
  reason?: string;
  /** A human is needed: a request is pending or the run is paused. */
  waiting: boolean;
  /** The thread the run belongs to (docs/semantics.md, "Teams that go on"); absent for runs started before threads. */
  thread?: string;
  startTime: string;
  closeTime?: string;
}

/** A listing and how it was made. */
export interface RunList {
  runs: RunListing[];
  /** The server filtered on troupe's search attributes (false: the memo, filtered here). */
  indexed: boolean;
  /** The list-filter query sent to the server. */
  query: string;
}

/** Executions that continued as new are earlier parts of a run that goes on: not listed. */
const NOT_CONTINUED = `ExecutionStatus != 'ContinuedAsNew'`;

/**
 * List troupe's runs matching `filter`, newest first, at most `limit`; a thread's runs (`thread`)
 * oldest first, as the thread went (its first `limit` runs).
 */
export async function listRuns(client: Client, filter: ListFilter = {}, limit = 50): Promise<RunList> {
  const indexed = await searchAttributesRegistered(client);
  const query = indexed ? serverQuery(filter) : `${listQuery(WORKFLOW_TYPE, {})} AND ${NOT_CONTINUED}`;
  const runs: RunListing[] = [];
  const oldestFirst = filter.thread !== undefined;
  for await (const info of client.workflow.list({ query })) {
    const run = listingOf(info);
    if (indexed || matches(run, filter)) runs.push(run);
    if (!oldestFirst && runs.length >= limit) break;
  }
  if (!oldestFirst) return { runs, indexed, query };
  runs.sort((a, b) => a.startTime.localeCompare(b.startTime));
  return { runs: runs.slice(0, limit), indexed, query };
}

/**
 * The server-side query. A run counts as `running` or waiting only while its execution runs: one
 * terminated outside troupe keeps the values it had.
 */
function serverQuery(filter: ListFilter): string {
  const base = `${listQuery(WORKFLOW_TYPE, filter)} AND ${NOT_CONTINUED}`;
  return filter.status === RUNNING_STATUS || filter.waiting === true ? `${base} AND ExecutionStatus = 'Running'` : base;
}

function matches(run: RunListing, filter: ListFilter): boolean {
  if (filter.graph !== undefined && run.graph !== filter.graph) return false;
  if (filter.status !== undefined && run.status !== filter.status) return false;
  if (filter.waiting !== undefined && run.waiting !== filter.waiting) return false;
  if (filter.thread !== undefined && run.thread !== filter.thread) return false;
  return true;
}

/** A listing row from the execution's search attributes, else its memo. */
function listingOf(info: WorkflowExecutionInfo): RunListing {
  const attrs = info.typedSearchAttributes;
  const memo = (info.memo ?? {}) as { troupeGraph?: string; troupeStatus?: string; troupeReason?: string; troupeWaiting?: boolean; troupeThread?: string };
  const executionRunning = info.status.name === 'RUNNING';
  const troupeStatus = attrs.get(SEARCH_KEYS.status) ?? memo.troupeStatus ?? RUNNING_STATUS;
  // a run troupe did not end (terminated, timed out, failed by a bug) shows Temporal's own status
  const status = !executionRunning && troupeStatus === RUNNING_STATUS ? info.status.name.toLowerCase() : troupeStatus;
  const reason = attrs.get(SEARCH_KEYS.reason) ?? memo.troupeReason;
  const graph = attrs.get(SEARCH_KEYS.graph) ?? memo.troupeGraph;
  const thread = attrs.get(SEARCH_KEYS.thread) ?? memo.troupeThread;
  return {
    workflowId: info.workflowId,
    runId: info.runId,
    ...(graph !== undefined ? { graph } : {}),
    status,
    ...(reason ? { reason } : {}),
    waiting: executionRunning && (attrs.get(SEARCH_KEYS.waiting) ?? memo.troupeWaiting ?? false),
    ...(thread !== undefined ? { thread } : {}),
    startTime: info.startTime.toISOString(),
    ...(info.closeTime ? { closeTime: info.closeTime.toISOString() } : {}),
  };
}
