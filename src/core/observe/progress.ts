/**
 * The run's progress contract (docs/operating.md, "Following a run from code"): what the `progress` query
 * answers, and the one way a client follows a run. The workflow keeps a counter, `state.progress`,
 * that rises each time it publishes its position (a call starts or ends, a step or a decision is
 * recorded, a wait begins or ends, a signal is taken, the run ends); an answer holds that counter,
 * the status view, the calls running now (typed, not labels) and the agent steps recorded after the
 * client's cursor.
 * Two answers with the same counter describe the same position. The counter is carried across
 * continue-as-new, so it rises over the whole run chain. UI labels are for humans only.
 *
 * A followed run also writes its position into its own history, so that following costs the worker
 * no query: once a client sent the `follow` Update, the run ends each workflow task in which its
 * position changed with a {@link ProgressRecord} in its memo (`workflows/progress-record.ts`), which
 * the follower reads from the history it long-polls anyway (`client/follow.ts`).
 * Pure; `workflows/handlers.ts` answers the query with it.
 */
import { buildStatusView, type RunEnd, type RunStatusView } from '../ending/result';
import type { RunState, TranscriptStep } from '../state/state';
import { utf8ByteLength } from '../text/utf8';

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

/**
 * The memo key of the progress record a followed run writes into its history (docs/operating.md,
 * "Following a run from code"): a follower reads the record from the history it long-polls, so
 * following costs the worker no query.
 */
export const PROGRESS_RECORD_KEY = 'troupeProgress';

/**
 * The steps one record carries at most (UTF-8 bytes of their JSON). A step keeps 500 characters of
 * its text, with its tool calls, and the transcript at most 200 steps, so a record rarely reaches it;
 * it keeps a record far below Temporal's 2 MB limit on a memo, over which the server would terminate
 * the run.
 * @internal exported for tests
 */
export const RECORD_STEP_BUDGET_BYTES = 256 * 1024;

/**
 * A record whose status alone is larger than this carries no status and no steps (the follower asks
 * the `progress` query instead): a run with thousands of decisions must not reach the memo limit.
 * @internal exported for tests
 */
export const RECORD_STATUS_BUDGET_BYTES = 512 * 1024;

/**
 * What a followed run writes into its history at the end of each workflow task in which its position
 * changed: the `progress` query's answer for the steps after `from`. The steps a record carries are
 * the steps numbered `from + 1` to `through` (decisions are in the status), unless `more` says some
 * were left out to bound its size: the follower then asks the `progress` query for them. A record
 * without a status (`status` absent) is such a record too.
 */
export interface ProgressRecord extends Omit<RunProgress, 'status'> {
  /** The record's schema (1). */
  v: 1;
  status?: RunStatusView;
  /** The step number the record's steps follow. */
  from: number;
  /** The last step number the record covers. */
  through: number;
  /** Steps in `from + 1 … through` are missing from `steps`: ask the `progress` query for them. */
  more?: true;
}

/** The number of the run's last agent step (0 for none). */
export function lastStep(state: RunState): number {
  for (let i = state.transcript.length - 1; i >= 0; i--) {
    const t = state.transcript[i];
    if (t.kind !== 'decision') return t.step;
  }
  return 0;
}

/** JSON bytes of a value. */
function jsonBytes(value: unknown): number {
  return utf8ByteLength(JSON.stringify(value));
}

/**
 * The record of the run's position at workflow time `now`, with the steps after step `from`, within
 * the budgets above: the oldest steps first, and `more` when a step did not fit.
 */
export function recordOf(
  source: ProgressSource,
  now: number,
  from: number,
  budget: { steps: number; status: number } = { steps: RECORD_STEP_BUDGET_BYTES, status: RECORD_STATUS_BUDGET_BYTES },
): ProgressRecord {
  const { state } = source;
  const status = buildStatusView(state, now, source.inFlight, source.end, source.children);
  // the steps after `from` are at the transcript's end
  let first = state.transcript.length;
  while (first > 0 && state.transcript[first - 1].step > from) first -= 1;
  const after = state.transcript.slice(first).filter((t) => t.kind !== 'decision');
  const through = after.length > 0 ? after[after.length - 1].step : from;
  const base = { v: 1 as const, seq: state.progress ?? 0, calls: [...source.running], from, through };
  if (jsonBytes(status) > budget.status) return { ...base, steps: [], more: true };
  const steps: TranscriptStep[] = [];
  let bytes = 0;
  let more = false;
  for (const step of after) {
    const size = jsonBytes(step);
    if (bytes + size > budget.steps) {
      more = true;
      continue;
    }
    bytes += size;
    steps.push(step);
  }
  return { ...base, status, steps, ...(more ? { more: true as const } : {}) };
}
