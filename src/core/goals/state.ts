/**
 * Goal state: the plain-JSON record in workflow state, its bounded history and its clock. The clock
 * stops for every wait for a human and every pause, the limits come from the config, and elapsed
 * time is never negative. Import the goal API from `./index`.
 */
import type { CompiledGoal } from '../graph/types';
import type { GoalSnapshot } from '../llm/contract';
import { GOAL_TEXTS } from './texts';

export { goalSeconds } from './texts';

/** Goal status; `paused` pauses the run until `resume`. */
export type GoalStatus = GoalSnapshot['status'];

/** Kinds of history entries. */
type GoalHistoryType =
  | 'set'
  | 'auto-continue'
  | 'limit'
  | 'update_status'
  | 'objective_updated'
  | 'evidence_added'
  | 'resumed';

/** One entry of the goal's bounded history (the last {@link GOAL_HISTORY_MAX}). */
export interface GoalHistoryEntry {
  type: GoalHistoryType;
  detail: string;
  at: number;
  /** The agent whose `goal` tool call made the change. */
  agent?: string;
}

/**
 * Run stop reasons for a goal limit; `goal_never_reported` is a limit reached while no agent ever
 * called the `goal` tool (since troupe 0.3), whose cure is the agents' instructions, not a larger limit.
 */
export type GoalLimitReason = 'goal_turn_limit' | 'goal_duration_limit' | 'goal_never_reported';

/** The goal in workflow state: plain JSON, carried across continue-as-new. */
export interface GoalState {
  objective: string;
  successCriteria?: string;
  constraints?: string;
  /** Auto-continuations so far (not rounds, not LLM calls). */
  turnCount: number;
  maxTurns: number;
  maxDurationMs: number;
  startedAt: number;
  /** Set while the goal clock is stopped (pause, human wait). */
  pausedAt?: number;
  totalPausedMs: number;
  status: GoalStatus;
  completionEvidence?: string;
  blockedReason?: string;
  stopReason?: string;
  /** Which limit was reached when `status` is `limit_reached` (troupe addition, for the run reason). */
  limitReason?: GoalLimitReason;
  /** `goal` tool calls applied so far (absent until the first). */
  reports?: number;
  history: GoalHistoryEntry[];
}


/** History entries kept (the last 20). */
export const GOAL_HISTORY_MAX = 20;



/** Append a history entry, keeping the last {@link GOAL_HISTORY_MAX}. */
export function withGoalHistory(
  g: GoalState,
  type: GoalHistoryType,
  detail: string,
  at: number,
  agent?: string,
): GoalState {
  const entry: GoalHistoryEntry = agent === undefined ? { type, detail, at } : { type, detail, at, agent };
  return { ...g, history: [...g.history, entry].slice(-GOAL_HISTORY_MAX) };
}

/** A copy of `g` without the given optional keys (plain JSON has no `undefined` values). */
export function omitGoalKeys(g: GoalState, ...keys: Array<keyof GoalState>): GoalState {
  const copy = { ...g };
  for (const k of keys) delete copy[k];
  return copy;
}

/** A fresh active goal from the compiled config, started at `now` (history: one `set` entry). */
export function createGoal(cfg: CompiledGoal, now: number): GoalState {
  const g: GoalState = {
    objective: cfg.objective,
    ...(cfg.successCriteria !== undefined ? { successCriteria: cfg.successCriteria } : {}),
    ...(cfg.constraints !== undefined ? { constraints: cfg.constraints } : {}),
    turnCount: 0,
    maxTurns: cfg.maxTurns,
    maxDurationMs: cfg.maxDurationMs,
    startedAt: now,
    totalPausedMs: 0,
    status: 'active',
    history: [],
  };
  return withGoalHistory(g, 'set', GOAL_TEXTS.set(cfg.objective), now);
}

/** Active goal time: `(pausedAt ?? now) − startedAt − totalPausedMs`, frozen while paused, never negative. */
export function goalElapsedMs(g: GoalState, now: number): number {
  return Math.max(0, (g.pausedAt ?? now) - g.startedAt - g.totalPausedMs);
}

/** Stop the goal clock (pause signal, any human wait). Idempotent: already stopped returns `g` itself. */
export function pauseGoalClock(g: GoalState, now: number): GoalState {
  if (g.pausedAt !== undefined) return g;
  return { ...g, pausedAt: now };
}

/** Restart the goal clock, adding the stopped time to `totalPausedMs`. Idempotent: running returns `g`. */
export function resumeGoalClock(g: GoalState, now: number): GoalState {
  if (g.pausedAt === undefined) return g;
  return { ...omitGoalKeys(g, 'pausedAt'), totalPausedMs: g.totalPausedMs + Math.max(0, now - g.pausedAt) };
}

/** The goal as the `goal` tool sees it during one activity. */
export function goalSnapshot(g: GoalState): GoalSnapshot {
  return {
    objective: g.objective,
    ...(g.successCriteria !== undefined ? { successCriteria: g.successCriteria } : {}),
    ...(g.constraints !== undefined ? { constraints: g.constraints } : {}),
    status: g.status,
    turnCount: g.turnCount,
    maxTurns: g.maxTurns,
  };
}

