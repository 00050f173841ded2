/**
 * The goal completion check and the run status a finished goal imposes (docs/semantics.md, "Goals"):
 * the turn limit is checked before the duration limit, and turnCount counts auto-continuations.
 * Import the goal API from `./index`.
 */
import { goalContinuationPrompt } from './prompts';
import { GOAL_TEXTS } from './texts';
import {
  goalElapsedMs,
  withGoalHistory,
  type GoalLimitReason,
  type GoalState,
} from './state';

/** Outcome of the goal completion check at the end of a round. */
type GoalCheckResult =
  | { kind: 'done' }
  | { kind: 'continue'; goal: GoalState; prompt: string }
  | { kind: 'stop'; goal: GoalState; reason: GoalLimitReason };

/**
 * The goal completion check: not active → done; turn limit first, then duration limit →
 * `limit_reached` with the exact stop reason; else `turnCount + 1` and a `<goal_continuation>`
 * prompt for a new round. `stop` counts as *done* for the check pipeline (later checks still run).
 */
export function goalCheck(g: GoalState, now: number): GoalCheckResult {
  if (g.status !== 'active') return { kind: 'done' };
  // a limit reached while no agent ever called the goal tool says so: the cure is the instructions
  const unreported = !g.reports;
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

