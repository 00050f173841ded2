/**
 * The rewind probe (docs/cli.md, "troupe rewind"): a run's recorded history replayed by the
 * round machine itself — Temporal's replayer (`Worker.runReplayHistory`) running troupe's workflow
 * bundle with the probe's interceptor (`replay-interceptor.ts`) — to learn what was recorded: each
 * step with its wave and tool calls, the workflow task that followed each wave's results (a reset
 * point), the run's start input and, when asked, the team state after a boundary. Nothing is read
 * from a worker's memory. Node only: loads the worker and the workflow bundle, so the library's
 * client (`src/client`) never imports it.
 */
import { randomUUID } from 'node:crypto';
import { defaultPayloadConverter, type DataConverter } from '@temporalio/common';
import type { temporal } from '@temporalio/proto';
import { bundleWorkflowCode, Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import type { RunInput } from '../contract';
import type { TeamState } from '../core/state/team-state';
import { workflowBundleOptions, workflowEntry } from '../worker';
import { PROBE_HEADER, type ProbeReport, type RewindSinks } from './replay-interceptor';

type History = temporal.api.history.v1.IHistory;

/** What a replay of a run's history told. */
export interface ProbeResult {
  input: RunInput;
  /** One report per command that recorded steps, the first one where the run started. */
  reports: ProbeReport[];
  /** The team state after the boundary asked for. */
  state?: TeamState;
}

let bundle: Promise<WorkflowBundleWithSourceMap> | undefined;

/** troupe's workflow bundle with the probe's interceptor, made once per process. */
function probeBundle(dataConverter: DataConverter): Promise<WorkflowBundleWithSourceMap> {
  const options = workflowBundleOptions(workflowEntry(), dataConverter, false);
  bundle ??= bundleWorkflowCode({
    ...options,
    // troupe's own modules stay: a followed run's progress records are commands its replay must make
    workflowInterceptorModules: [...(options.workflowInterceptorModules ?? []), require.resolve('./replay-interceptor')],
  });
  return bundle;
}

/**
 * Replay `history` (of troupe run `workflowId`, the id its workflow code reads) with the probe; with `boundary`, also take the team state after
 * that many steps. Throws the replayer's error when the history does not replay (a history of
 * another workflow code).
 */
export async function probeHistory(history: History, workflowId: string, dataConverter: DataConverter, boundary?: number): Promise<ProbeResult> {
  const reports: ProbeReport[] = [];
  let input: RunInput | undefined;
  let state: TeamState | undefined;
  const sinks: { rewindProbe: { [K in keyof RewindSinks['rewindProbe']]: { fn: (info: unknown, ...args: Parameters<RewindSinks['rewindProbe'][K]>) => void; callDuringReplay: true } } } = {
    rewindProbe: {
      started: { fn: (_info, i) => void (input = i), callDuringReplay: true },
      stepped: { fn: (_info, report) => void reports.push(report), callDuringReplay: true },
      captured: { fn: (_info, _steps, s) => void (state = s), callDuringReplay: true },
    },
  };
  await Worker.runReplayHistory(
    { workflowBundle: await probeBundle(dataConverter), dataConverter, sinks, replayName: `troupe-rewind-${randomUUID()}` },
    boundary === undefined ? history : withHeader(history, boundary),
    workflowId,
  );
  if (!input) throw new Error('rewind probe: the replay never started the workflow');
  return { input, reports, ...(state ? { state } : {}) };
}

/** The history with the probe's header on its start event: the boundary whose team state to take. */
function withHeader(history: History, boundary: number): History {
  const [first, ...rest] = history.events ?? [];
  const attrs = first.workflowExecutionStartedEventAttributes!;
  const fields = { ...(attrs.header?.fields ?? {}), [PROBE_HEADER]: defaultPayloadConverter.toPayload(boundary) };
  return { ...history, events: [{ ...first, workflowExecutionStartedEventAttributes: { ...attrs, header: { fields } } }, ...rest] };
}
