/**
 * The registry of condition plugins, keyed by their YAML key: what the parser, the evaluator, the
 * walker and the reasons table ask. Loading it loads the built-ins (`builtin/index.ts`), which
 * register themselves; `registerCondition` adds a user's plugin, reachable from parsing through
 * evaluation, and may not replace a built-in.
 */
import './builtin';
import type { ConditionPlugin } from './plugin';
import { forgetUserPlugins, isBuiltinPlugin, storedPlugin, storedPlugins, storeUserPlugin } from './store';
import type { LeafCondition } from './types';

export type { ConditionPlugin } from './plugin';

/** The composite keys: the evaluator's own, not plugins. */
const COMPOSITE_KEYS = ['any_of', 'all_of'] as const;

/**
 * Every built-in key, composites last: the keys users may not register.
 * @internal exported for tests
 */
export function builtinConditionKeys(): string[] {
  const builtins = storedPlugins().flatMap(([key]) => (isBuiltinPlugin(key) ? [key] : []));
  return [...builtins, ...COMPOSITE_KEYS];
}

/** Whether `key` is a built-in condition (a plugin of `builtin/` or a composite). */
export function isBuiltinConditionKey(key: string): boolean {
  return builtinConditionKeys().includes(key);
}

/** Register a custom condition type under `key` (must match `[a-z][a-z0-9_]*`, not a built-in). */
export function registerCondition<P>(key: string, plugin: ConditionPlugin<P>): void {
  if (!/^[a-z][a-z0-9_]*$/.test(key)) throw new Error(`registerCondition: invalid key "${key}"`);
  if (isBuiltinConditionKey(key)) {
    throw new Error(`registerCondition: "${key}" is a built-in condition and cannot be replaced`);
  }
  storeUserPlugin(key, plugin as ConditionPlugin<any>);
}

/** The registered plugin for `key` (built-in or user's), if any. */
export function getConditionPlugin(key: string): ConditionPlugin<unknown> | undefined {
  return storedPlugin(key);
}

/** Every key a condition item may use: built-ins, then the user's (for "did you mean" hints). */
export function conditionKeys(): string[] {
  return [...builtinConditionKeys(), ...storedPlugins().flatMap(([key]) => (isBuiltinPlugin(key) ? [] : [key]))];
}

/**
 * The key, plugin and params of a compiled leaf: a built-in's params are the compiled condition
 * itself (`{ kind: 'stuck', repeats: 3 }`), a user's are the `params` of `{ kind: 'custom' }`.
 */
export function pluginOf(c: LeafCondition): { key: string; plugin?: ConditionPlugin<unknown>; params: unknown } {
  const key = c.kind === 'custom' ? c.key : c.kind;
  return { key, plugin: storedPlugin(key), params: c.kind === 'custom' ? c.params : c };
}

/** The plugin whose stop reason is `reason`, if any (the first registered wins, so built-ins come first). */
export function pluginForReason(reason: string): ConditionPlugin<unknown> | undefined {
  return storedPlugins().find(([, plugin]) => plugin.reason === reason)?.[1];
}

/**
 * Test helper: forget every condition a user registered; the built-ins stay.
 * @internal exported for tests
 */
export function clearRegisteredConditions(): void {
  forgetUserPlugins();
}
