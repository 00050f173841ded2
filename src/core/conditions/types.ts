/**
 * Compiled conditions: a discriminated union on `kind`, plain JSON, because the compiled graph is
 * the workflow's argument (stored in its history) and the run state survives continue-as-new. A
 * built-in compiles to its plugin's params (`{ kind: 'stuck', repeats: 3 }`), a user's plugin to
 * `{ kind: 'custom', key, params }`; composites hold their items. These shapes never change, or
 * recorded histories would no longer replay.
 */
import type * as builtin from './builtin';
import type { ConditionPlugin } from './plugin';

type Builtins = typeof builtin;
type ParamsOf<T> = T extends ConditionPlugin<infer P> ? P : never;

/** A compiled built-in leaf: what its plugin's `parse` returns. */
type BuiltinCondition = { [K in keyof Builtins]: ParamsOf<Builtins[K]> }[keyof Builtins];

/** One compiled condition. `custom` is a condition added with `registerCondition`. */
export type Condition =
  | BuiltinCondition
  | { kind: 'any_of'; items: Condition[] }
  | { kind: 'all_of'; items: Condition[] }
  | { kind: 'custom'; key: string; params: unknown };

/** A condition that is not a composite: a built-in's or a user's plugin decides it. */
export type LeafCondition = Exclude<Condition, { kind: 'any_of' | 'all_of' }>;

/** The top-level termination expression: terminates if `anyOf` holds OR `allOf` holds. */
export interface Termination {
  anyOf: Condition[];
  allOf: Condition[];
}
