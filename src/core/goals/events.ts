/**
 * Applying `goal` tool events to the goal state. The activity validates the call
 * and answers the model; the workflow applies the resulting events in wave order with these pure
 * transitions. `completed` and `add_evidence` need evidence and `blocked` needs a reason; the
 * workflow checks again so a bad event never changes the goal.
 */
import type { ToolEvent } from '../llm/contract';
import { omitGoalKeys, withGoalHistory, type GoalState, type GoalStatus } from './state';
import { GOAL_TEXTS } from './texts';

/** A goal event from the `goal` tool. */
export type GoalEvent = Extract<ToolEvent, { tool: 'goal' }>;




function nonBlank(s: string | undefined): s is string {
  return typeof s === 'string' && s.trim().length > 0;
}

/** Why a goal event is invalid, or undefined when it is valid (usable by the activity too). */
export function goalEventError(event: GoalEvent): string | undefined {
  const E = GOAL_TEXTS.events.errors;
  switch (event.action) {
    case 'update_status':
      switch (event.status) {
        case 'completed':
          return nonBlank(event.evidence) ? undefined : E.evidence('update_status completed');
        case 'blocked':
          return nonBlank(event.reason) ? undefined : E.reason;
        case 'active':
        case 'paused':
          return undefined;
        case undefined:
          return E.status;
        default: {
          const never: never = event.status;
          return `${E.status} (got ${String(never)})`;
        }
      }
    case 'update_objective':
      return nonBlank(event.objective) ? undefined : E.objective;
    case 'add_evidence':
      return nonBlank(event.evidence) ? undefined : E.evidence('add_evidence');
    default: {
      const never: never = event.action;
      return `unknown goal action ${String(never)}`;
    }
  }
}

/** Result of applying one goal event: the new state, or the unchanged state and a warning. */
type GoalEventOutcome = { ok: true; goal: GoalState } | { ok: false; goal: GoalState; warning: string };

/**
 * Apply one `goal` tool event, reporting an invalid one. Any status may be set (there is no transition
 * guard); leaving `blocked` clears `blockedReason`, setting `active` clears `stopReason`. The
 * clock is not touched: a `paused` goal makes the caller pause the run, which stops the clock.
 */
export function tryGoalEvent(g: GoalState, event: GoalEvent, now: number, agent: string): GoalEventOutcome {
  const error = goalEventError(event);
  if (error !== undefined) return { ok: false, goal: g, warning: GOAL_TEXTS.events.ignored(agent, error) };
  const T = GOAL_TEXTS.events;
  switch (event.action) {
    case 'update_status': {
      const status = event.status as Exclude<GoalStatus, 'limit_reached'>;
      const base = omitGoalKeys(g, 'limitReason', ...(status === 'blocked' ? [] : ['blockedReason' as const]));
      const next = statusChange(base, event, status);
      return { ok: true, goal: withGoalHistory(next, 'update_status', T.statusChanged(status, event.reason), now, agent) };
    }
    case 'update_objective': {
      const objective = event.objective as string;
      return {
        ok: true,
        goal: withGoalHistory({ ...g, objective }, 'objective_updated', T.objectiveUpdated(objective), now, agent),
      };
    }
    case 'add_evidence': {
      const evidence = event.evidence as string;
      const next: GoalState = {
        ...omitGoalKeys(g, 'blockedReason', 'limitReason'),
        status: 'completed',
        completionEvidence: evidence,
        stopReason: T.completedStop(evidence),
      };
      return { ok: true, goal: withGoalHistory(next, 'evidence_added', T.evidenceAdded(evidence), now, agent) };
    }
    default: {
      const never: never = event.action;
      return { ok: false, goal: g, warning: T.ignored(agent, `unknown goal action ${String(never)}`) };
    }
  }
}

function statusChange(g: GoalState, event: GoalEvent, status: Exclude<GoalStatus, 'limit_reached'>): GoalState {
  switch (status) {
    case 'completed': {
      const evidence = event.evidence as string;
      return { ...g, status, completionEvidence: evidence, stopReason: GOAL_TEXTS.events.completedStop(evidence) };
    }
    case 'blocked': {
      const reason = event.reason as string;
      return { ...g, status, blockedReason: reason, stopReason: GOAL_TEXTS.events.blockedStop(reason) };
    }
    case 'paused':
      return { ...g, status, stopReason: GOAL_TEXTS.events.pausedStop(event.reason) };
    case 'active':
      return { ...omitGoalKeys(g, 'stopReason'), status };
    default: {
      const never: never = status;
      return never;
    }
  }
}

/** What the workflow does after a wave's goal events: nothing, end the round, or pause the run. */
type GoalWaveEffect = 'none' | 'end_round' | 'pause_run';

/**
 * Apply a wave's goal events in wave order. When at least one was applied, the effect follows the
 * final status: `completed`/`blocked` end the round after the wave, `paused` pauses the run.
 */
export function applyGoalEvents(
  g: GoalState,
  events: Array<{ agent: string; event: GoalEvent }>,
  now: number,
): { goal: GoalState; effect: GoalWaveEffect; warnings: string[] } {
  let goal = g;
  let applied = false;
  const warnings: string[] = [];
  for (const { agent, event } of events) {
    const outcome = tryGoalEvent(goal, event, now, agent);
    goal = outcome.goal;
    if (outcome.ok) {
      applied = true;
      goal = { ...goal, reports: (goal.reports ?? 0) + 1 };
    }
    else warnings.push(outcome.warning);
  }
  return { goal, effect: applied ? waveEffect(goal.status) : 'none', warnings };
}

function waveEffect(status: GoalStatus): GoalWaveEffect {
  switch (status) {
    case 'completed':
    case 'blocked':
      return 'end_round';
    case 'paused':
      return 'pause_run';
    case 'active':
    case 'limit_reached':
      return 'none';
    default: {
      const never: never = status;
      return never;
    }
  }
}

/** The `resume` signal on a goal the tool paused: back to `active`. Other statuses: unchanged. */
export function reactivatePausedGoal(g: GoalState, now: number): GoalState {
  if (g.status !== 'paused') return g;
  return withGoalHistory({ ...omitGoalKeys(g, 'stopReason'), status: 'active' }, 'resumed', GOAL_TEXTS.events.resumed, now);
}
