/**
 * Child-process entry that follows runs the way `troupe run` and `troupe status --watch` do
 * (`followRun` in src/client/follow.ts), so B8 can meter the worker process apart from the followers'
 * own client work. Controlled over IPC by {@link ./followers}: `follow` starts one follower per
 * workflow id and answers when every followed run has ended, with the events each saw.
 */
import { Client, Connection, type WorkflowClientInterceptor } from '@temporalio/client';
import { followRun, type FollowEvent } from '../../src/client/follow';

/** A command the parent sends. */
export type FollowerCommand = { id: number; op: 'follow'; workflowIds: string[] };

/** What the child answers to `follow`. */
export interface FollowReport {
  runs: number;
  events: Record<FollowEvent['kind'], number>;
  /** Queries sent, by query name (`progress`, `status`, …). */
  queries: Record<string, number>;
  /** Updates sent, by name (`follow`). */
  updates: Record<string, number>;
  failed: number;
}

/** The first message the child sends once it is connected. */
export interface FollowerReady {
  ready: true;
  pid: number;
}

async function main(): Promise<void> {
  const [address, namespace] = process.argv.slice(2);
  const connection = await Connection.connect({ address });
  let queries: Record<string, number> = {};
  let updates: Record<string, number> = {};
  const counter: WorkflowClientInterceptor = {
    query(input, next) {
      queries[input.queryType] = (queries[input.queryType] ?? 0) + 1;
      return next(input);
    },
    startUpdate(input, next) {
      updates[input.updateName] = (updates[input.updateName] ?? 0) + 1;
      return next(input);
    },
  };
  const client = new Client({ connection, namespace, interceptors: { workflow: [counter] } });
  process.on('message', (cmd: FollowerCommand) => {
    queries = {};
    updates = {};
    const events: FollowReport['events'] = { step: 0, phase: 0, warning: 0, status: 0, started: 0, tool: 0, call: 0, decision: 0, request: 0, live: 0 };
    const onEvent = (e: FollowEvent) => {
      events[e.kind] += 1;
    };
    void Promise.allSettled(cmd.workflowIds.map((id) => followRun(client.workflow.getHandle(id), onEvent))).then((all) => {
      const report: FollowReport = { runs: all.length, events, queries, updates, failed: all.filter((r) => r.status === 'rejected').length };
      process.send?.({ id: cmd.id, result: report });
    });
  });
  process.on('disconnect', () => {
    void connection.close().finally(() => process.exit(0));
  });
  const ready: FollowerReady = { ready: true, pid: process.pid };
  process.send?.(ready);
}

void main();
