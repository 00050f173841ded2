/**
 * The TypeScript client of troupe, which the CLI is built on: connect to Temporal, start a run of a
 * role, and ask a run for its status, transcript and result. Following a run is `follow.ts`, its
 * human decisions `human-decisions.ts`, finding runs `find-runs.ts`; every message they send or
 * query they ask is a definition of the contract (`src/contract.ts`), so no client loads workflow
 * code.
 */
import {
  Client,
  Connection,
  WorkflowExecutionAlreadyStartedError,
  WorkflowNotFoundError,
  type WorkflowHandle,
  type WorkflowHandleWithFirstExecutionRunId,
} from '@temporalio/client';
import type { SignalDefinition } from '@temporalio/common';
import { SEARCH_KEYS, SIGNALS, statusQuery, transcriptQuery, WORKFLOW_TYPE, type TroupeRun } from '../contract';
import type { Role } from '../core/config/define';
import type { CompiledGraph } from '../core/graph/types';
import type { RunResult, RunStatusView } from '../core/ending/result';
import type { TranscriptStep } from '../core/state/state';
import type { SignalInputs, SignalName } from '../core/humans/signals';
import { clientConnectionOptions, withDiagnosis } from '../connection';
import { resolveSettings, taskQueueFromEnv, type SettingsOptions, type TroupeSettings } from '../settings';
import { staticDetails, staticSummary } from '../core/observe/details';
import { RUNNING_STATUS, SEARCH_ATTRIBUTES } from '../core/observe/search';
import { runIdIssue } from '../core/teams/team-run';
import { troupeDataConverter } from '../codec/data-converter';
import { clientTracingPlugins } from '../telemetry/tracing';
import type { TeamState } from '../core/state/team-state';
import { checkContinuation, exportTeamState, threadRunId } from './team-state';

/** A run's workflow handle, typed by the contract. */
export type RunHandle = WorkflowHandle<TroupeRun>;

/**
 * Connect a Temporal client with the environment's settings (`TEMPORAL_*`, the profile file),
 * those passed here winning. Throws `ConnectionConfigError` for wrong settings and
 * `ConnectionFailedError` when Temporal cannot be reached, each with a one-line message. Its
 * payloads are encrypted when `TROUPE_PAYLOAD_KEY` is set ({@link troupeDataConverter}).
 */
export async function connectClient(options: SettingsOptions = {}): Promise<{
  client: Client;
  settings: TroupeSettings;
  close: () => Promise<void>;
}> {
  const settings = resolveSettings(options);
  // read first: a malformed key must fail before a connection is opened
  const dataConverter = troupeDataConverter();
  const connection = await withDiagnosis(settings, () => Connection.connect({ ...clientConnectionOptions(settings), connectTimeout: '5s' }));
  // traced when the environment asks for it (docs/observability.md, "Traces"); no plugin otherwise
  const plugins = clientTracingPlugins();
  const client = new Client({ connection, namespace: settings.namespace, dataConverter, ...(plugins.length > 0 ? { plugins } : {}) });
  return { client, settings, close: () => connection.close() };
}

/** A readable, unique-enough workflow id for a run of `name` (client side; never in workflow code). */
function newRunId(name: string): string {
  const stamp = new Date().toISOString().replace(/[-:T]/g, '').slice(0, 14);
  return `${name}-${stamp}-${Math.random().toString(36).slice(2, 7)}`;
}

/** What to start: a role from `defineRole` or `loadRoleFile`, or a compiled graph. */
export interface StartOptions {
  role: Role | CompiledGraph;
  /** The task; default: the role's own `task`. */
  task?: string;
  /**
   * Default: `<name>-<timestamp>-<random>`. It may not hold `/`, which only team agents' child runs
   * have (docs/teams.md, "Nested teams").
   */
  workflowId?: string;
  /** Default: `TROUPE_TASK_QUEUE` or `troupe`. */
  taskQueue?: string;
  /**
   * Continue closed run `continueFrom` (docs/semantics.md, "Teams that go on"): a new run in its
   * thread, id `<thread>/<n>` by default, that goes on from its team state with `task` (if any)
   * appended to the thread. Every check is made before anything starts: a refusal throws
   * {@link ContinueRefusedError} with every reason.
   */
  continueFrom?: string;
  /** Continue from a saved team state (`troupe state`'s file, parsed), with the same checks. */
  teamState?: unknown;
  /** Called with each warning of a continuation (agents that changed, a failed source, dropped requests). */
  onWarning?: (warning: string) => void;
}

/**
 * Start a run; resolves once Temporal has accepted it (follow it with `followRun` or `waitResult`).
 * Throws for a `workflowId` holding `/` (kept for team agents' child runs).
 * The run carries a summary and details for the Temporal UI (its graph, topology, task, picture and
 * stop rules), and troupe's search attributes when the namespace has them registered.
 */
export async function startRun(client: Client, opts: StartOptions): Promise<WorkflowHandleWithFirstExecutionRunId<TroupeRun>> {
  const graph = 'graph' in opts.role ? opts.role.graph : opts.role;
  const team = await continuation(client, graph, opts);
  // a continued run's task is the new one, or none: the role's own task started the thread
  const task = team ? (opts.task ?? '') : (opts.task ?? graph.task);
  if (task === undefined) throw new Error(`startRun: no task: pass one or set task in role ${graph.name}`);
  const idIssue = opts.workflowId === undefined ? undefined : runIdIssue(opts.workflowId);
  if (idIssue) throw new Error(`startRun: ${idIssue}`);
  for (const w of team?.warnings ?? []) opts.onWarning?.(w);
  const indexed = await searchAttributesRegistered(client);
  const start = (workflowId: string, thread: string) =>
    client.workflow.start<TroupeRun>(WORKFLOW_TYPE, {
      taskQueue: opts.taskQueue ?? taskQueueFromEnv(),
      workflowId,
      args: [team ? { graph, task, teamState: team.state } : { graph, task }],
      // a thread's run id is taken once: one someone else holds is never joined (docs/semantics.md, "Teams that go on")
      ...(team ? { workflowIdReusePolicy: 'REJECT_DUPLICATE' as const } : {}),
      memo: { troupeStatus: RUNNING_STATUS, troupeGraph: graph.name, troupeWaiting: false, troupeThread: thread },
      staticSummary: staticSummary(graph, task || (team ? CONTINUED_SUMMARY(team.state.threadId) : task)),
      staticDetails: staticDetails(graph),
      ...(indexed
        ? {
            typedSearchAttributes: [
              { key: SEARCH_KEYS.graph, value: graph.name },
              { key: SEARCH_KEYS.status, value: RUNNING_STATUS },
              { key: SEARCH_KEYS.waiting, value: false },
              { key: SEARCH_KEYS.thread, value: thread },
            ],
          }
        : {}),
    });
  if (!team) {
    const workflowId = opts.workflowId ?? newRunId(graph.name);
    return start(workflowId, workflowId);
  }
  const thread = team.state.threadId;
  if (opts.workflowId !== undefined) return start(opts.workflowId, thread);
  // the next free `<thread>/<n>`: after the runs the source's chain counted, past any id already taken
  for (let n = Math.max(2, team.state.threadUsage.runs + 1); ; n++) {
    try {
      return await start(threadRunId(thread, n), thread);
    } catch (err) {
      if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
    }
  }
}

/** The summary the Temporal UI shows for a continued run without a task of its own. */
const CONTINUED_SUMMARY = (thread: string) => `(continues thread ${thread})`;

/** The checked team state a start continues from (`continueFrom` or `teamState`), with its warnings; undefined for a fresh run. */
async function continuation(client: Client, graph: CompiledGraph, opts: StartOptions): Promise<{ state: TeamState; warnings: string[] } | undefined> {
  if (opts.continueFrom !== undefined && opts.teamState !== undefined) throw new Error('startRun: pass continueFrom or teamState, not both');
  if (opts.continueFrom !== undefined) {
    const source = await exportTeamState(client, opts.continueFrom);
    const checked = checkContinuation(graph, source.state);
    return { state: checked.state, warnings: [...source.warnings, ...checked.warnings] };
  }
  return opts.teamState === undefined ? undefined : checkContinuation(graph, opts.teamState);
}

const registered = new WeakMap<Client, Promise<boolean>>();

/**
 * Whether the client's namespace has all of troupe's search attributes with their types (asked once
 * per client). A server that cannot say (an older one, or a key without operator rights) counts as
 * not having them: the run then keeps its status in the memo only.
 */
export function searchAttributesRegistered(client: Client): Promise<boolean> {
  let known = registered.get(client);
  if (!known) {
    known = client.connection.operatorService
      .listSearchAttributes({ namespace: client.options.namespace })
      .then((r) => {
        const custom = r.customAttributes ?? {};
        return Object.values(SEARCH_ATTRIBUTES).every((a) => custom[a.name] === INDEXED_VALUE_TYPES[a.kind]);
      })
      .catch(() => false);
    registered.set(client, known);
  }
  return known;
}

/** `temporal.api.enums.v1.IndexedValueType` numbers of the kinds troupe uses (wire values, stable). */
const INDEXED_VALUE_TYPES = { KEYWORD: 2, BOOL: 5 } as const;

/** The handle of an existing run. */
export function runHandle(client: Client, workflowId: string): RunHandle {
  return client.workflow.getHandle<TroupeRun>(workflowId);
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

export type { SignalName } from '../core/humans/signals';

/**
 * Send one of troupe's signals, its payload typed from the signal's schema. A decision goes as an
 * Update instead (`approve`, `reject`, `answer` in `human-decisions.ts`), which answers what the run
 * did with it; its signal is what older clients send.
 */
export async function sendSignal<K extends SignalName>(handle: RunHandle, name: K, payload?: SignalInputs[K]): Promise<void> {
  await handle.signal(SIGNALS[name] as SignalDefinition<[SignalInputs[K]?]>, payload);
}

/** Whether an error means "no such workflow". */
export function isNotFound(err: unknown): boolean {
  return err instanceof WorkflowNotFoundError;
}

