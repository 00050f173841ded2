/**
 * Compiled termination conditions (SPEC §4.6): a discriminated union, plain JSON so it travels in
 * the compiled graph (the workflow argument) and survives continue-as-new.
 */

/** One compiled condition. `custom` is a condition added with `registerCondition`. */
export type Condition =
  | { kind: 'max_iterations'; n: number }
  | { kind: 'timeout_ms'; ms: number }
  | { kind: 'converged'; agent: string; criteria?: string }
  | {
      kind: 'result_matches';
      agent: string;
      contains?: string;
      regex?: string;
      flags?: string;
      scoreGte?: number;
      noChanges?: boolean;
    }
  | { kind: 'stuck'; repeats: number; agent?: string }
  | { kind: 'signal_observed'; type: string }
  | { kind: 'max_messages'; n: number }
  | { kind: 'text_mention'; text: string; sources?: string[] }
  | { kind: 'token_usage'; maxTotalTokens?: number; maxPromptTokens?: number; maxCompletionTokens?: number }
  | { kind: 'any_of'; items: Condition[] }
  | { kind: 'all_of'; items: Condition[] }
  | { kind: 'custom'; key: string; params: unknown };

export type ConditionKind = Condition['kind'];

/** The top-level termination expression: terminates if `anyOf` holds OR `allOf` holds. */
export interface Termination {
  anyOf: Condition[];
  allOf: Condition[];
}

/**
 * Stop reasons. The first group comes from conditions and the graph (§4.6, §11.3); the rest from
 * goals (§11.8), humans (§7), budgets and failures (§8).
 */
export type StopReason =
  | 'converged'
  | 'result_match'
  | 'text_mention'
  | 'signal'
  | 'exit'
  | 'stuck'
  | 'max_iterations'
  | 'max_messages'
  | 'token_usage'
  | 'dead_end'
  | 'timeout'
  | 'error'
  | 'goal_completed'
  | 'goal_blocked'
  | 'goal_turn_limit'
  | 'goal_duration_limit'
  | 'user_stop'
  | 'user_abort'
  | 'token_budget_exceeded'
  | 'money_budget_exceeded'
  | 'max_turns_exceeded'
  | 'duration_budget_exceeded'
  | 'fatal_error'
  | 'activity_failed'
  | 'token_window_exceeded'
  | 'compaction_circuit_breaker'
  | (string & {});

/** Final run status (SPEC §8). */
export type RunStatus =
  | 'completed'
  | 'exhausted'
  | 'budget_exceeded'
  | 'cancelled'
  | 'blocked'
  | 'limit_reached'
  | 'failed';
