/**
 * The TypeScript client of troupe, which the CLI is built on: connect to Temporal, start a run of a
 * role, follow it to its result, query its status and transcript, and send it the signals of the
 * human-in-the-loop contract (typed from their schemas).
 */
import {
  Client,
  Connection,
  WorkflowNotFoundError,
  type WorkflowHandle,
  type WorkflowHandleWithFirstExecutionRunId,
} from '@temporalio/client';
import type { Role } from './core/config/define';
import type { CompiledGraph } from './core/graph/types';
import type { RunResult, RunStatusView } from './core/ending/result';
import type { TranscriptStep } from './core/state/state';
import type { SignalDefinition } from '@temporalio/common';
import type { SignalInputs, SignalName } from './core/humans/signals';
import { SIGNALS, statusQuery, transcriptQuery, WORKFLOW_TYPE } from './workflows/messages';
import type { troupeRun } from './workflows/run';
import { clientConnectionOptions, withDiagnosis } from './connection';
import { resolveSettings, taskQueueFromEnv, type SettingsOptions, type TroupeSettings } from './settings';

export type RunHandle = WorkflowHandle<typeof troupeRun>;

/**
 * Connect a Temporal client with the environment's settings (`TEMPORAL_*`, the profile file),
 * those passed here winning. Throws `ConnectionConfigError` for wrong settings and
 * `ConnectionFailedError` when Temporal cannot be reached, each with a one-line message.
 */
export async function connectClient(options: SettingsOptions = {}): Promise<{
  client: Client;
  settings: TroupeSettings;
  close: () => Promise<void>;
}> {
  const settings = resolveSettings(options);
  const connection = await withDiagnosis(settings, () => Connection.connect({ ...clientConnectionOptions(settings), connectTimeout: '5s' }));
  const client = new Client({ connection, namespace: settings.namespace });
  return { client, settings, close: () => connection.close() };
}

/** A readable, unique-enough workflow id for a run of `name` (client side; never in workflow code). */
export function newRunId(name: string): string {
  const stamp = new Date().toISOString().replace(/[-:T]/g, '').slice(0, 14);
  return `${name}-${stamp}-${Math.random().toString(36).slice(2, 7)}`;
}

/** What to start: a role from `defineRole` or `loadRoleFile`, or a compiled graph. */
export interface StartOptions {
  role: Role | CompiledGraph;
  /** The task; default: the role's own `task`. */
  task?: string;
  /** Default: `<name>-<timestamp>-<random>`. */
  workflowId?: string;
  /** Default: `TROUPE_TASK_QUEUE` or `troupe`. */
  taskQueue?: string;
}

/** Start a run; resolves once Temporal has accepted it (follow it with `followRun` or `waitResult`). */
export async function startRun(client: Client, opts: StartOptions): Promise<WorkflowHandleWithFirstExecutionRunId<typeof troupeRun>> {
  const graph = 'graph' in opts.role ? opts.role.graph : opts.role;
  const task = opts.task ?? graph.task;
  if (task === undefined) throw new Error(`startRun: no task: pass one or set task in role ${graph.name}`);
  return client.workflow.start<typeof troupeRun>(WORKFLOW_TYPE, {
    taskQueue: opts.taskQueue ?? taskQueueFromEnv(),
    workflowId: opts.workflowId ?? newRunId(graph.name),
    args: [{ graph, task }],
    memo: { troupeStatus: 'running', troupeGraph: graph.name },
  });
}

/** The handle of an existing run. */
export function runHandle(client: Client, workflowId: string): RunHandle {
  return client.workflow.getHandle<typeof troupeRun>(workflowId);
}

/** Query the run's status. */
export async function queryStatus(handle: RunHandle): Promise<RunStatusView> {
  return handle.query(statusQuery);
}

/** Query the run's transcript (last 200 steps). */
export async function queryTranscript(handle: RunHandle): Promise<TranscriptStep[]> {
  return handle.query(transcriptQuery);
}

/** Wait for the RunResult. */
export async function waitResult(handle: RunHandle): Promise<RunResult> {
  return handle.result();
}

export type { SignalName } from './core/humans/signals';

/** Send one of troupe's signals, its payload typed from the signal's schema. */
export async function sendSignal<K extends SignalName>(handle: RunHandle, name: K, payload?: SignalInputs[K]): Promise<void> {
  await handle.signal(SIGNALS[name] as SignalDefinition<[SignalInputs[K]?]>, payload);
}

/** Whether an error means "no such workflow". */
export function isNotFound(err: unknown): boolean {
  return err instanceof WorkflowNotFoundError;
}

/** Deadline of each status/transcript poll while following a run. */
export const QUERY_DEADLINE_MS = 3_000;

/** Progress events produced while following a run. */
export type FollowEvent =
  | { kind: 'step'; step: TranscriptStep }
  | { kind: 'phase'; status: RunStatusView }
  | { kind: 'warning'; text: string };

/**
 * Follow a run until it finishes: poll `status`/`transcript`, emit new steps, phase changes
 * (including pending human requests) and warnings, then return the RunResult.
 */
export async function followRun(
  handle: RunHandle,
  onEvent: (e: FollowEvent) => void,
  pollMs = 400,
): Promise<RunResult> {
  let lastStep = 0;
  let lastPhase = '';
  const seenWarnings = new Set<string>();
  let done = false;
  const resultPromise = handle.result().finally(() => {
    done = true;
  });
  resultPromise.catch(() => undefined);
  const poll = async (): Promise<boolean> => {
    try {
      // a query can wait up to Temporal's 30 s query timeout (e.g. while a new worker loads the
      // workflow); following must not stall on one, so each poll has its own short deadline
      const [status, steps] = await handle.client.withDeadline(Date.now() + QUERY_DEADLINE_MS, () =>
        Promise.all([queryStatus(handle), queryTranscript(handle)]),
      );
      for (const step of steps) {
        if (step.step > lastStep) {
          lastStep = step.step;
          onEvent({ kind: 'step', step });
        }
      }
      const phaseKey = `${status.phase}:${status.pending.map((p) => p.id).join(',')}`;
      if (phaseKey !== lastPhase) {
        lastPhase = phaseKey;
        onEvent({ kind: 'phase', status });
      }
      for (const w of status.warnings) {
        if (!seenWarnings.has(w)) {
          seenWarnings.add(w);
          onEvent({ kind: 'warning', text: w });
        }
      }
      return true;
    } catch {
      // queries fail briefly while a worker restarts; keep following
      return false;
    }
  };
  while (!done) {
    await poll();
    await Promise.race([resultPromise.catch(() => undefined), new Promise((r) => setTimeout(r, pollMs))]);
  }
  // the run may finish between polls: report its last steps too (a closed run's query needs a
  // worker to replay it, so give it a few tries)
  for (let attempt = 0; attempt < 3; attempt++) {
    if (await poll()) break;
  }
  return resultPromise;
}
