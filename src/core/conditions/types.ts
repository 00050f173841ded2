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
