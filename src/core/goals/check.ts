/**
 * The goal completion check and the run status a finished goal imposes (docs/semantics.md, "Goals"):
 * the turn limit is checked before the duration limit, and turnCount counts auto-continuations.
 * Import the goal API from `./index`.
 */
import type { RunStatus } from '../ending/reasons';
import { goalContinuationPrompt } from './prompts';
import { GOAL_TEXTS } from './texts';
import {
  goalElapsedMs,
  withGoalHistory,
  type GoalLimitReason,
  type GoalState,
} from './state';

/** Outcome of the goal completion check at the end of a round. */
export type GoalCheckResult =
  | { kind: 'done' }
  | { kind: 'continue'; goal: GoalState; prompt: string }
  | { kind: 'stop'; goal: GoalState; reason: GoalLimitReason };

/** How the check words a limit. */
export interface GoalCheckOptions {
  /** A limit reached while no agent ever called the `goal` tool says so (since troupe 0.3). */
  namesUnreported?: boolean;
}

/**
 * The goal completion check: not active → done; turn limit first, then duration limit →
 * `limit_reached` with the exact stop reason; else `turnCount + 1` and a `<goal_continuation>`
 * prompt for a new round. `stop` counts as *done* for the check pipeline (later checks still run).
 */
export function goalCheck(g: GoalState, now: number, options: GoalCheckOptions = {}): GoalCheckResult {
  if (g.status !== 'active') return { kind: 'done' };
  const unreported = options.namesUnreported === true && !g.reports;
  if (g.turnCount >= g.maxTurns) {
    const text = GOAL_TEXTS.turnLimit(g.turnCount, g.maxTurns);
    return unreported ? limit(g, now, 'goal_never_reported', GOAL_TEXTS.neverReported(text)) : limit(g, now, 'goal_turn_limit', text);
  }
  const elapsed = goalElapsedMs(g, now);
  if (elapsed >= g.maxDurationMs) {
    const text = GOAL_TEXTS.durationLimit(elapsed, g.maxDurationMs);
    return unreported ? limit(g, now, 'goal_never_reported', GOAL_TEXTS.neverReported(text)) : limit(g, now, 'goal_duration_limit', text);
  }
  const turn = g.turnCount + 1;
  const goal = withGoalHistory({ ...g, turnCount: turn }, 'auto-continue', GOAL_TEXTS.autoContinue(turn, g.maxTurns), now);
  return { kind: 'continue', goal, prompt: goalContinuationPrompt(goal, goalElapsedMs(goal, now)) };
}

function limit(g: GoalState, now: number, reason: GoalLimitReason, text: string): GoalCheckResult {
  const goal = withGoalHistory({ ...g, status: 'limit_reached', stopReason: text, limitReason: reason }, 'limit', text, now);
  return { kind: 'stop', goal, reason };
}

/** How a goal ends the run; undefined while it is `active` or `paused`. */
export interface GoalRunStatus {
  status: Extract<RunStatus, 'completed' | 'blocked' | 'limit_reached'>;
  reason: 'goal_completed' | 'goal_blocked' | GoalLimitReason;
  reasonText: string;
}

/** Map a finished goal to the run's status, reason and reasonText (= the goal's stopReason). */
export function goalRunStatus(g: GoalState): GoalRunStatus | undefined {
  switch (g.status) {
    case 'completed':
      return { status: 'completed', reason: 'goal_completed', reasonText: g.stopReason ?? GOAL_TEXTS.completedFallback };
    case 'blocked':
      return { status: 'blocked', reason: 'goal_blocked', reasonText: g.stopReason ?? GOAL_TEXTS.blockedFallback };
    case 'limit_reached': {
      const reason = g.limitReason ?? 'goal_turn_limit';
      return { status: 'limit_reached', reason, reasonText: g.stopReason ?? reason };
    }
    case 'active':
    case 'paused':
      return undefined;
    default: {
      const never: never = g.status;
      return never;
    }
  }
}
