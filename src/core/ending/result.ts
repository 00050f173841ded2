/**
 * The RunResult and the `status` query view, built from the run state. Pure.
 */
import type { RunStatus } from './reasons';
import type { UsageLedger } from '../budgets/ledger';
import type { GoalHistoryEntry } from '../goals';
import { decisionsOf } from '../humans/decisions';
import { pendingRequests, type DecisionRecord, type PendingRequest } from '../humans/requests';
import { activeMs } from '../state/clock';
import type { OutputVerdict } from '../output/check';
import type { RunState } from '../state/state';
import type { TeamState } from '../state/team-state';
import { goalElapsedMs } from '../goals';
import { completedIterations } from '../waves/routing';

/** Failure details of `failed` runs. */
export interface Diagnostics {
  status?: number;
  requestId?: string;
  message: string;
  agent?: string;
  kind?: 'agent' | 'judge' | 'compaction' | 'selector';
}

/** The workflow's return value and `troupe run --json` output. */
export interface RunResult {
  workflowId: string;
  status: RunStatus;
  reason: string;
  reasonText: string;
  finalText: string;
  finalAgent: string;
  output?: unknown;
  /** Set when an output schema is configured (see {@link OutputVerdict}). */
  outputValid?: boolean;
  outputErrors?: string[];
  rounds: number;
  steps: number;
  iterations: Record<string, number>;
  results: Record<string, { text: string; hash: string; count: number }>;
  goal?: {
    status: string;
    turnCount: number;
    maxTurns: number;
    elapsedMs: number;
    completionEvidence?: string;
    blockedReason?: string;
    stopReason?: string;
    history: GoalHistoryEntry[];
  };
  usage: UsageLedger;
  signals: Array<{ type: string; payload?: unknown; at: string; source?: string }>;
  warnings: string[];
  diagnostics?: Diagnostics;
  activeMs: number;
  /** Requests still waiting for a human when the run ended (a hard limit, `stop` or `cancel` ended it). */
  unanswered?: PendingRequest[];
  /** Every human decision of the run, oldest first: which request, what, by whom, when. */
  decisions: DecisionRecord[];
  /** What a new run needs to go on from this one (docs/semantics.md, "Teams that go on"); absent over its size bound. */
  teamState?: TeamState;
}

/** The end of a run, as decided by the workflow. */
export interface RunEnd {
  status: RunStatus;
  reason: string;
  reasonText: string;
  diagnostics?: Diagnostics;
}


/** The `status` query: phase, position, usage, goal, pending requests, latest results in brief. */
export interface RunStatusView {
  workflowId: string;
  /** The troupe release that started the run (absent for runs started before 0.3). */
  release?: string;
  phase: 'running' | 'paused' | 'awaiting_human' | 'finished';
  /** Who paused the run, while `phase` is `paused`: the `pause` signal, or the `goal` tool (with its reason). */
  pause?: { by: 'user' | 'goal'; reason?: string };
  round: number;
  wave: number;
  frontier: string[];
  inFlight: string[];
  /** Team agents' child runs in flight (docs/teams.md, "Nested teams"); absent when none. */
  children?: Array<{ agent: string; workflowId: string }>;
  iterations: Record<string, number>;
  steps: number;
  usage: UsageLedger;
  activeMs: number;
  goal?: RunResult['goal'];
  pending: PendingRequest[];
  /** The run's human decisions so far, oldest first. */
  decisions: DecisionRecord[];
  latest: Record<string, { hash: string; preview: string; count: number }>;
  warnings: string[];
  final?: { status: RunStatus; reason: string; reasonText: string };
}

/** Final agents of the round: exits in order, else the last wave's last agent. */
export function finalAgents(state: RunState): string[] {
  if (state.round.exits.length > 0) return [...new Set(state.round.exits)];
  const last = state.round.lastWave[state.round.lastWave.length - 1];
  return last ? [last] : [];
}

/** `finalText`: the single text, or each under a `## <agent>` heading. */
export function finalText(state: RunState, agents: string[]): string {
  const texts = agents.map((a) => ({ agent: a, text: state.results[a]?.text ?? '' }));
  if (texts.length === 1) return texts[0].text;
  return texts.map((t) => `## ${t.agent}\n\n${t.text}`).join('\n\n');
}

function goalView(state: RunState, now: number): RunResult['goal'] {
  const g = state.goal;
  if (!g) return undefined;
  return {
    status: g.status,
    turnCount: g.turnCount,
    maxTurns: g.maxTurns,
    elapsedMs: goalElapsedMs(g, now),
    completionEvidence: g.completionEvidence,
    blockedReason: g.blockedReason,
    stopReason: g.stopReason,
    history: g.history,
  };
}

/** Build the RunResult at workflow time `now`. */
export function buildRunResult(state: RunState, end: RunEnd, now: number, output?: OutputVerdict): RunResult {
  const agents = finalAgents(state);
  const unanswered = pendingRequests(state);
  return {
    workflowId: state.workflowId,
    status: end.status,
    reason: end.reason,
    reasonText: end.reasonText,
    finalText: finalText(state, agents),
    finalAgent: agents.join(','),
    ...(output ?? {}),
    rounds: state.round.round,
    steps: state.steps,
    iterations: completedIterations(state.round.loopCounters),
    results: state.results,
    goal: goalView(state, now),
    usage: state.usage,
    signals: state.signals,
    warnings: state.warnings,
    diagnostics: end.diagnostics,
    activeMs: activeMs(state, now),
    ...(unanswered.length > 0 ? { unanswered } : {}),
    decisions: decisionsOf(state),
  };
}

/** Build the `status` query view. */
export function buildStatusView(
  state: RunState,
  now: number,
  inFlight: string[],
  end?: RunEnd,
  children: ReadonlyArray<{ agent: string; workflowId: string }> = [],
): RunStatusView {
  const goalPaused = state.goal?.status === 'paused';
  const phase: RunStatusView['phase'] = end
    ? 'finished'
    : pendingRequests(state).length > 0
      ? 'awaiting_human'
      : state.paused || goalPaused
        ? 'paused'
        : 'running';
  const pause: RunStatusView['pause'] =
    phase !== 'paused' ? undefined : state.paused ? { by: 'user' } : { by: 'goal', reason: state.goal?.stopReason };
  const latest: RunStatusView['latest'] = {};
  for (const [agent, r] of Object.entries(state.results)) {
    latest[agent] = { hash: r.hash, preview: r.text.slice(0, 200), count: r.count };
  }
  return {
    workflowId: state.workflowId,
    ...(state.release ? { release: state.release } : {}),
    phase,
    ...(pause ? { pause } : {}),
    round: state.round.round,
    wave: state.round.wave,
    frontier: state.frontier.map((w) => w.agent),
    inFlight,
    ...(children.length > 0 ? { children: children.map((c) => ({ agent: c.agent, workflowId: c.workflowId })) } : {}),
    iterations: completedIterations(state.round.loopCounters),
    steps: state.steps,
    usage: state.usage,
    activeMs: activeMs(state, now),
    goal: goalView(state, now),
    pending: pendingRequests(state),
    decisions: decisionsOf(state),
    latest,
    warnings: state.warnings.slice(-20),
    final: end ? { status: end.status, reason: end.reason, reasonText: end.reasonText } : undefined,
  };
}
