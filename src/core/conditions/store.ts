/**
 * Where condition plugins are kept, by key, in registration order. Each built-in registers itself
 * here when its module loads (`builtin/*.ts`), just as a user's plugin module calls
 * `registerCondition`. Everyone else goes through `registry.ts`, which loads the built-ins first.
 */
import type { ConditionPlugin } from './plugin';

const plugins = new Map<string, ConditionPlugin<any>>();
const builtins = new Set<string>();

/**
 * Register a built-in condition. Its compiled condition (its params) has `kind` equal to `key`,
 * which the type checks. Called once, at load, by the built-in's own module.
 */
export function registerBuiltinCondition<K extends string>(key: K, plugin: ConditionPlugin<{ kind: K }>): void {
  if (plugins.has(key)) throw new Error(`registerBuiltinCondition: "${key}" is registered twice`);
  plugins.set(key, plugin as ConditionPlugin<any>);
  builtins.add(key);
}

/** Keep a user's plugin under `key` (the registry has checked the key). */
export function storeUserPlugin(key: string, plugin: ConditionPlugin<any>): void {
  plugins.set(key, plugin);
}

/** The plugin under `key`, if any. */
export function storedPlugin(key: string): ConditionPlugin<unknown> | undefined {
  return plugins.get(key);
}

/** Every stored plugin with its key, built-ins first, in registration order. */
export function storedPlugins(): Array<[string, ConditionPlugin<unknown>]> {
  return [...plugins.entries()];
}

/** Whether `key` is a built-in plugin's. */
export function isBuiltinPlugin(key: string): boolean {
  return builtins.has(key);
}

/** Forget every user's plugin; the built-ins stay. */
export function forgetUserPlugins(): void {
  for (const key of [...plugins.keys()]) if (!builtins.has(key)) plugins.delete(key);
}
