/**
 * Every end a run can have, built in one place: the round machine (`core/run/step.ts`), `decide.ts`
 * and the workflow's loop name the end, this file writes it. A condition's or a budget's status and
 * reason are declared by the condition plugin (`core/conditions/builtin/`) or the budget
 * (`budgets/ledger.ts`) and turned into an end here; nothing else builds a {@link RunEnd}. Pure.
 */
import type { BudgetStop } from '../budgets/ledger';
import type { Stop } from '../conditions/evaluate';
import { GOAL_TEXTS, type GoalState } from '../goals';
import type { Diagnostics, RunEnd } from './result';
import { RUN_END_TEXTS } from './texts';

/** Why a call failed, as the workflow read it from Temporal's failure. */
export interface CallFailure {
  diagnostics: Diagnostics;
  /** The call failed for good at once (a fatal LLM error), rather than after its retries. */
  fatal: boolean;
}

/** The ends, by what happened. */
export const ENDS = {
  /** A termination condition holds (evaluated between waves, or when a round's timer fires). */
  condition: (stop: Stop): RunEnd => ({ status: stop.status, reason: stop.reason, reasonText: stop.reasonText }),
  /** A budget is crossed (or the next wave would cross `max_agent_calls`). */
  budget: (budget: BudgetStop): RunEnd => ({ status: 'budget_exceeded', reason: budget.reason, reasonText: budget.reasonText }),
  /** How a finished goal ends the run (its reason text is the goal's stop reason); undefined while it is `active` or `paused`. */
  goal: (g: GoalState): RunEnd | undefined => {
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
  },
  /** `stop`: graceful, after the work in flight. */
  userStop: (reason?: string): RunEnd => ({ status: 'cancelled', reason: 'user_stop', reasonText: RUN_END_TEXTS.userStop(reason) }),
  /** The workflow was cancelled: in-flight work was aborted. */
  userAbort: (): RunEnd => ({ status: 'cancelled', reason: 'user_abort', reasonText: RUN_END_TEXTS.userAbort() }),
  /** The worker refused the run at its start (endpoints, tools, the graph's check). */
  refused: (message: string, diagnostics?: Diagnostics): RunEnd => ({
    status: 'failed',
    reason: 'fatal_error',
    reasonText: RUN_END_TEXTS.prepareFailed(message),
    ...(diagnostics ? { diagnostics } : {}),
  }),
  /** A start input carried state, which only a run continuing as new may pass on. */
  carriedAtStart: (): RunEnd => ({ status: 'failed', reason: 'fatal_error', reasonText: RUN_END_TEXTS.carriedAtStart }),
  /** An agent's call failed: at once when fatal, else after its attempts. */
  /** A team agent's child run ended neither completed nor exhausted (docs/teams.md, "Nested teams"). */
  teamFailed: (agent: string, child: { status: string; reason: string; reasonText: string; workflowId: string }): RunEnd => ({
    status: 'failed',
    reason: 'team_failed',
    reasonText: RUN_END_TEXTS.teamFailed(agent, child.status, child.reasonText, child.workflowId),
  }),
  /** A team agent's child run could not start: another run holds its workflow id (docs/teams.md, "Nested teams"). */
  teamIdTaken: (agent: string, file: string, workflowId: string): RunEnd => ({
    status: 'failed',
    reason: 'team_failed',
    reasonText: RUN_END_TEXTS.teamIdTaken(agent, file, workflowId),
  }),
  callFailed: (agent: string, failure: CallFailure): RunEnd => {
    const { diagnostics } = failure;
    const rid = diagnostics.requestId ? ` (request id ${diagnostics.requestId})` : '';
    if (failure.fatal) {
      const got = diagnostics.status ? ` got HTTP ${diagnostics.status}${rid}` : '';
      return { status: 'failed', reason: 'fatal_error', reasonText: RUN_END_TEXTS.fatal(agent, got, diagnostics.message), diagnostics };
    }
    return { status: 'failed', reason: 'activity_failed', reasonText: RUN_END_TEXTS.activityFailed(agent, diagnostics.message, rid), diagnostics };
  },
  /** An agent's prompt cannot fit its context window. */
  windowExceeded: (agent: string, tokens: number, window: number): RunEnd => ({
    status: 'failed',
    reason: 'token_window_exceeded',
    reasonText: RUN_END_TEXTS.windowExceeded(agent, tokens, window),
  }),
  /** Compaction failed too many times in a row. */
  compactionBreaker: (failures: number, diagnostics: Diagnostics): RunEnd => ({
    status: 'failed',
    reason: 'compaction_circuit_breaker',
    reasonText: RUN_END_TEXTS.compactionBreaker(failures),
    diagnostics,
  }),
  /** An agent's reply was still cut by `max_tokens` after its continuation. */
  truncated: (agent: string, maxTokens: number | undefined): RunEnd => ({
    status: 'failed',
    reason: 'truncated_output',
    reasonText: RUN_END_TEXTS.truncated(agent, maxTokens),
  }),
} as const;
