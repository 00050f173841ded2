/**
 * The registry of condition plugins, keyed by their YAML key. The built-ins (`builtin/index.ts`)
 * are registered when this module loads; `registerCondition` adds a user's, which is reachable
 * from parsing through evaluation, and may not replace a built-in.
 */
import { BUILTIN_CONDITIONS } from './builtin';
import type { ConditionPlugin } from './plugin';
import type { LeafCondition } from './types';

export type { ConditionPlugin } from './plugin';

const plugins = new Map<string, ConditionPlugin<any>>();
const builtins = new Set<string>();

/** The composite keys: the evaluator's own, not plugins. */
export const COMPOSITE_KEYS = ['any_of', 'all_of'] as const;

/** Built-in conditions not yet written as plugins; each goes when its condition moves into `builtin/`. */
const UNMOVED_BUILTIN_KEYS: readonly string[] = [
  'max_iterations',
  'timeout_ms',
  'converged',
  'result_matches',
  'stuck',
  'signal_observed',
  'max_messages',
  'text_mention',
  'token_usage',
];

for (const [key, plugin] of Object.entries(BUILTIN_CONDITIONS)) {
  plugins.set(key, plugin as ConditionPlugin<any>);
  builtins.add(key);
}

/** Every built-in key, composites last: the keys users may not register. */
export function builtinConditionKeys(): string[] {
  return [...builtins, ...UNMOVED_BUILTIN_KEYS, ...COMPOSITE_KEYS];
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
  plugins.set(key, plugin as ConditionPlugin<any>);
}

/** The registered plugin for `key` (built-in or user's), if any. */
export function getConditionPlugin(key: string): ConditionPlugin<unknown> | undefined {
  return plugins.get(key);
}

/** Every key a condition item may use: built-ins, then the user's (for "did you mean" hints). */
export function conditionKeys(): string[] {
  return [...builtinConditionKeys(), ...[...plugins.keys()].filter((k) => !builtins.has(k))];
}

/**
 * The key, plugin and params of a compiled leaf: a built-in's params are the compiled condition
 * itself (`{ kind: 'stuck', repeats: 3 }`), a user's are the `params` of `{ kind: 'custom' }`.
 */
export function pluginOf(c: LeafCondition): { key: string; plugin?: ConditionPlugin<unknown>; params: unknown } {
  const key = c.kind === 'custom' ? c.key : c.kind;
  return { key, plugin: plugins.get(key), params: c.kind === 'custom' ? c.params : c };
}

/** The plugin whose stop reason is `reason`, if any (the first registered wins, so built-ins come first). */
export function pluginForReason(reason: string): ConditionPlugin<unknown> | undefined {
  for (const plugin of plugins.values()) if (plugin.reason === reason) return plugin;
  return undefined;
}

/** Test helper: forget every condition a user registered; the built-ins stay. */
export function clearRegisteredConditions(): void {
  for (const key of [...plugins.keys()]) if (!builtins.has(key)) plugins.delete(key);
}
