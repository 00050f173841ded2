/**
 * The run's progress contract (docs/operating.md, "Following a run from code"): what the `progress` query
 * answers, and the one way a client follows a run. The workflow keeps a counter, `state.progress`,
 * that rises each time it publishes its position (a call starts or ends, a step or a decision is
 * recorded, a wait begins or ends, a signal is taken); an answer holds that counter, the status view,
 * the calls running now (typed, not labels) and the agent steps recorded after the client's cursor.
 * Two answers with the same counter describe the same position. The counter is carried across
 * continue-as-new, so it rises over the whole run chain. UI labels are for humans only.
 * Pure; `workflows/handlers.ts` answers the query with it.
 */
import { buildStatusView, type RunEnd, type RunStatusView } from '../ending/result';
import type { RunState, TranscriptStep } from '../state/state';

/** What a running call is. */
export type CallKind = 'agent' | 'tool' | 'judge' | 'compaction' | 'selector';

/** Something running now: a model call, a tool call, the judge or a compaction, and when it started. */
export interface RunningCall {
  /** Unique in the run chain: the progress counter when it started. */
  id: number;
  kind: CallKind;
  /** The agent it runs for (the judged agent for the judge). */
  agent: string;
  /** The tool's name in the role file, for a tool call. */
  tool?: string;
  /** The label the Temporal UI shows for it (for humans; not to be parsed). */
  label: string;
  /** Workflow time it started (ms). */
  since: number;
}

/** What a call is, as the workflow names it when it starts one. */
export type CallTag = Pick<RunningCall, 'kind' | 'agent' | 'tool' | 'label'>;

/** The `progress` query's answer. */
export interface RunProgress {
  /** Rises each time the run publishes its position; equal counters, equal positions. */
  seq: number;
  /** Round, wave, phase, in-flight agents, pending requests, decisions, usage, warnings, the end. */
  status: RunStatusView;
  /** The calls running now, oldest first. */
  calls: RunningCall[];
  /** The agent steps recorded after the asked step number, oldest first (decisions are in `status`). */
  steps: TranscriptStep[];
}

/** The position of a run, read by the query handler between activations. */
export interface ProgressSource {
  state: RunState;
  running: readonly RunningCall[];
  inFlight: string[];
  end?: RunEnd;
  /** Team agents' child runs in flight. */
  children?: ReadonlyArray<{ agent: string; workflowId: string }>;
}

/**
 * The answer to `progress(after)`: `after` is the number of the last step the client has (0 for
 * none); anything that is not a whole number reads as 0, since a query's argument is anyone's input.
 */
export function progressOf(source: ProgressSource, now: number, after: unknown): RunProgress {
  const { state } = source;
  const cursor = typeof after === 'number' && Number.isSafeInteger(after) && after > 0 ? after : 0;
  return {
    seq: state.progress ?? 0,
    status: buildStatusView(state, now, source.inFlight, source.end, source.children),
    calls: [...source.running],
    steps: state.transcript.filter((t) => t.kind !== 'decision' && t.step > cursor),
  };
}

/** Count one change of the run's position (see the module doc). */
export function advance(state: RunState): number {
  state.progress = (state.progress ?? 0) + 1;
  return state.progress;
}
