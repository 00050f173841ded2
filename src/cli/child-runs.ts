/**
 * A run's team agents' child runs (docs/teams.md, "Nested teams"), for the commands that show and
 * decide human requests: `troupe status <parent>` lists each child's position and pending requests,
 * and `troupe approve|reject|answer <parent>` reaches a child's request when the parent has none
 * that matches.
 */
import { queryStatus, type RunHandle } from '../client';
import type { RunStatusView } from '../core/ending/result';
import { MAX_TEAM_DEPTH } from '../core/graph/team-agents';

/** A child run in flight, found from a parent. */
export interface ChildRun {
  agent: string;
  handle: RunHandle;
  status: RunStatusView;
}

/**
 * The child runs in flight under the run whose status is `status`, depth first (a child's children
 * after it). A child that ended or has not yet run its first task is left out.
 */
export async function childRuns(parent: RunHandle, status: RunStatusView, depth = 1): Promise<ChildRun[]> {
  if (depth > MAX_TEAM_DEPTH) return [];
  const found: ChildRun[] = [];
  for (const { agent, workflowId } of status.children ?? []) {
    const handle = parent.client.getHandle(workflowId) as RunHandle;
    let childStatus: RunStatusView;
    try {
      childStatus = await queryStatus(handle);
    } catch {
      continue;
    }
    found.push({ agent, handle, status: childStatus }, ...(await childRuns(handle, childStatus, depth + 1)));
  }
  return found;
}
