/**
 * `registerCondition` (SPEC §4.6, §11.11): custom condition types usable from YAML. Unlike rolebox's
 * `registerTerminationParser`, a registered key is reachable from parsing through evaluation.
 * Plugin code must be pure (it runs in the workflow sandbox).
 */
import type { TerminationView } from './view';

export interface ConditionPlugin<P = unknown> {
  /** Validate the YAML value under the key; return the params or a message. */
  parse(value: unknown): { ok: true; params: P } | { ok: false; message: string };
  /** Whether the condition holds on the current view. Must be pure and deterministic. */
  holds(params: P, view: TerminationView): boolean;
  /** Stop reason reported when this condition ends the run. */
  reason: string;
  /** Priority (lower wins): 0 converged … 5 error. */
  priority: number;
  /** Status for the reason; default `completed`. */
  status?: 'completed' | 'exhausted';
  /** Short description for prompts and pictures, e.g. `2 approvals`. */
  describe?(params: P): string;
  /** What the user can do when this condition ended the run, printed after the CLI's final line. */
  hint?: string;
  /** The condition is a hard limit: it ends the run even while humans are awaited or the goal is paused. */
  hard?: boolean;
}

const plugins = new Map<string, ConditionPlugin<any>>();

/** Keys that belong to built-in conditions and may not be registered. */
export const BUILTIN_CONDITION_KEYS = [
  'max_iterations',
  'timeout_ms',
  'converged',
  'result_matches',
  'stuck',
  'signal_observed',
  'max_messages',
  'text_mention',
  'token_usage',
  'any_of',
  'all_of',
] as const;

/** Register a custom condition type under `key` (must match `[a-z][a-z0-9_]*`, not a built-in). */
export function registerCondition<P>(key: string, plugin: ConditionPlugin<P>): void {
  if (!/^[a-z][a-z0-9_]*$/.test(key)) throw new Error(`registerCondition: invalid key "${key}"`);
  if ((BUILTIN_CONDITION_KEYS as readonly string[]).includes(key)) {
    throw new Error(`registerCondition: "${key}" is a built-in condition and cannot be replaced`);
  }
  plugins.set(key, plugin as ConditionPlugin<any>);
}

/** The registered plugin for `key`, if any. */
export function getConditionPlugin(key: string): ConditionPlugin<unknown> | undefined {
  return plugins.get(key);
}

/** Registered custom keys (for "did you mean" hints). */
export function registeredConditionKeys(): string[] {
  return [...plugins.keys()];
}

/** The plugin whose stop reason is `reason`, if any (the first registered wins). */
export function pluginForReason(reason: string): ConditionPlugin<unknown> | undefined {
  for (const plugin of plugins.values()) if (plugin.reason === reason) return plugin;
  return undefined;
}

/** Test helper: forget every registered condition. */
export function clearRegisteredConditions(): void {
  plugins.clear();
}
