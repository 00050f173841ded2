/**
 * `troupe rewind` and the library's `rewindRun` (docs/cli.md, "troupe rewind"), after
 * LangGraph's replay and fork:
 * - **replay**: Temporal's own workflow reset, to the workflow task that followed step N's results: a
 *   new run of the same workflow id, the original run kept in history, no signal or update sent after
 *   step N reapplied; the steps after N run again;
 * - **fork with an edit** (`message`): a new run in the run's thread (`startRun` with a team state),
 *   from the team state after step N as the round machine rebuilds it from the recorded history (the
 *   probe, `probe.ts`), with the message a note of the next agent's first dispatch; the original is
 *   left as it is.
 * Every check is made before anything is reset or started; a refusal throws
 * {@link RewindRefusedError} with every reason.
 */
import { randomUUID } from 'node:crypto';
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { startRun } from '../client/runs';
import { describeTroupeRun } from '../client/team-state';
import { troupeDataConverter } from '../codec/data-converter';
import { didYouMean } from '../core/config/did-you-mean';
import type { CompiledGraph } from '../core/graph/types';
import type { TeamState } from '../core/state/team-state';
import { REWIND_TEXTS, childrenLeft, rewindPoint, sideEffects, type RewindPoint, type SideEffect } from './plan';
import { probeHistory } from './probe';

/** A rewind troupe will not make: every reason, together. Nothing was reset or started. */
export class RewindRefusedError extends Error {
  constructor(
    readonly problems: string[],
    /** The tool calls with side effects after the rewind point (refused without `yes`). */
    readonly sideEffects: SideEffect[] = [],
  ) {
    super(`cannot rewind: ${problems.join('; ')}`);
    this.name = 'RewindRefusedError';
  }
}

/**
 * Every user-visible text of rewinds that is not about the step, in one place so tests pin them.
 * @internal exported for tests
 */
export const REWIND_RUN_TEXTS = {
  running: (id: string) => `${id} is still running: a rewind resets it (its running child teams are cancelled); confirm, or pass --yes`,
  selectorNext: () => `the next speaker is the selector's choice: name the agent the message is for with --to`,
  unknownAgent: (agent: string, agents: string[]) => `--to: the run has no agent "${agent}"${didYouMean(agent, agents)}`,
  reason: (step: number, boundary: number) => `troupe rewind --to-step ${step}${boundary !== step ? ` (back to step ${boundary})` : ''}`,
} as const;

/** What `rewindRun` does. */
export interface RewindOptions {
  /** The step to go back to, numbered from 1 as `troupe transcript` shows it. */
  toStep: number;
  /** Fork with an edit: a new run in the thread, with this message for the next agent. */
  message?: string;
  /** The agent the message is for (default: the next agents to run). */
  to?: string;
  /** Go ahead over tool calls with side effects, and over a running run without asking. */
  yes?: boolean;
  /** Asked before a running run is reset (without `yes`); a replay of a running run is refused without it. */
  confirmRunning?: (id: string) => Promise<boolean>;
  /** The fork's task queue (default: the source run's). */
  taskQueue?: string;
  /** The fork's workflow id (default: `<thread>/<n>`). */
  workflowId?: string;
  /** Told what the user should know: a step inside a wave, the fork's warnings. */
  onNote?: (note: string) => void;
}

/** What a rewind did. */
export type RewindOutcome =
  | { kind: 'replay'; workflowId: string; runId: string; point: RewindPoint; original: string }
  | { kind: 'fork'; workflowId: string; runId: string; point: RewindPoint; state: TeamState };

/** Rewind run `id` to after step `toStep`: a replay (Temporal reset) or, with `message`, a fork. */
export async function rewindRun(client: Client, id: string, opts: RewindOptions): Promise<RewindOutcome> {
  const described = await describeTroupeRun(client, id);
  if (!described.ok) throw new RewindRefusedError([described.problem]);
  const { description } = described;
  const runId = description.runId;
  const history = await client.workflow.getHandle(id, runId).fetchHistory();
  const dataConverter = troupeDataConverter();
  const probed = await probeHistory(history, id, dataConverter);
  const found = rewindPoint(probed.reports, opts.toStep);
  if (!found.ok) throw new RewindRefusedError([found.problem]);
  const { point } = found;
  for (const n of found.notes) opts.onNote?.(n);
  const fork = opts.message !== undefined;
  const effects = sideEffects(point.again);
  if (effects.length > 0 && !opts.yes) throw new RewindRefusedError([REWIND_TEXTS.sideEffects(effects, fork)], effects);

  if (fork) {
    const graph = probed.input.graph;
    const { state } = await probeHistory(history, id, dataConverter, point.boundary);
    if (!state) throw new Error(`rewind probe: no team state after step ${point.boundary} of ${id}`);
    withMessage(state, graph, opts.message!, opts.to);
    const started = await startRun(client, {
      role: graph,
      teamState: state,
      taskQueue: opts.taskQueue ?? description.taskQueue,
      ...(opts.workflowId !== undefined ? { workflowId: opts.workflowId } : {}),
      onWarning: (w) => opts.onNote?.(w),
    });
    return { kind: 'fork', workflowId: started.workflowId, runId: started.firstExecutionRunId, point, state };
  }

  if (description.status.name === 'RUNNING' && !opts.yes && !(await opts.confirmRunning?.(id))) throw new RewindRefusedError([REWIND_RUN_TEXTS.running(id)]);
  const { ResetReapplyType, ResetReapplyExcludeType } = temporal.api.enums.v1;
  const reset = await client.workflowService.resetWorkflowExecution({
    namespace: client.options.namespace,
    workflowExecution: { workflowId: id, runId },
    reason: REWIND_RUN_TEXTS.reason(point.step, point.boundary),
    workflowTaskFinishEventId: point.resetEventId as never,
    requestId: randomUUID(),
    // nothing sent after the rewind point comes back: no signal, no update (docs/cli.md, "troupe rewind")
    resetReapplyType: ResetReapplyType.RESET_REAPPLY_TYPE_NONE,
    resetReapplyExcludeTypes: [ResetReapplyExcludeType.RESET_REAPPLY_EXCLUDE_TYPE_SIGNAL, ResetReapplyExcludeType.RESET_REAPPLY_EXCLUDE_TYPE_UPDATE],
    identity: 'troupe rewind',
  });
  // the base run's child teams still running are cancelled, as their parent close policy would (docs/cli.md,
  // "troupe rewind"); its history is read again, now that the reset has ended it, so none started since is missed
  const ended = await client.workflow.getHandle(id, runId).fetchHistory();
  for (const child of childrenLeft(ended, point.resetEventId)) {
    await client.workflow.getHandle(child.workflowId, child.runId).cancel().catch((err: unknown) => {
      if (!(err instanceof WorkflowNotFoundError)) throw err;
    });
  }
  return { kind: 'replay', workflowId: id, runId: reset.runId!, point, original: runId };
}

/**
 * The message as a `user_message` note of its agent's first dispatch: `to`, or every agent of the
 * cursor's wave (the graph's entry when the run had taken its exit). A selector's next speaker is
 * the selector's choice: the message needs `to`.
 */
function withMessage(state: TeamState, graph: CompiledGraph, message: string, to: string | undefined): void {
  const agents = Object.keys(graph.agents);
  if (to !== undefined && !agents.includes(to)) throw new RewindRefusedError([REWIND_RUN_TEXTS.unknownAgent(to, agents)]);
  const cursor = state.cursor;
  if (to === undefined && cursor.kind === 'select') throw new RewindRefusedError([REWIND_RUN_TEXTS.selectorNext()]);
  const targets = to !== undefined ? [to] : cursor.kind === 'wave' ? cursor.wave.map((w) => w.agent) : graph.entry;
  for (const agent of targets) {
    const context = (state.contexts[agent] ??= { own: [] });
    (context.notes ??= []).push({ kind: 'user_message', text: message });
  }
}
