/**
 * Settings from the environment, shared by the worker, the CLI and the library: how to reach
 * Temporal (`src/connection`: the `TEMPORAL_*` variables and the profile file) and troupe's task
 * queue (`TROUPE_TASK_QUEUE`).
 */
import { DEFAULT_CONNECTION, loadConnectionSettings, withOverrides, type ConnectionSettings } from './connection';

/** How to reach Temporal, and the task queue troupe's runs and workers meet on. */
export interface TroupeSettings extends ConnectionSettings {
  taskQueue: string;
}

/** Settings passed in code, over those of the environment. */
export interface SettingsOptions extends Partial<TroupeSettings> {
  /**
   * Where to read `TEMPORAL_*`, the profile file they name, and `TROUPE_TASK_QUEUE`; default
   * `process.env`. `false` reads none of them: only the settings given here, over plain gRPC to
   * `localhost:7233` (`troupe dev`, which connects to its own local server whatever the shell says).
   */
  env?: NodeJS.ProcessEnv | false;
}

/** `TROUPE_TASK_QUEUE`, default `troupe`. */
export function taskQueueFromEnv(env: NodeJS.ProcessEnv = process.env): string {
  return env.TROUPE_TASK_QUEUE || 'troupe';
}

/**
 * Read the connection settings (profile file, then `TEMPORAL_*`) and `TROUPE_TASK_QUEUE`. Throws
 * a `ConnectionConfigError` with a one-line message when they are wrong.
 */
export function settingsFromEnv(env: NodeJS.ProcessEnv = process.env): TroupeSettings {
  return { ...loadConnectionSettings(env), taskQueue: taskQueueFromEnv(env) };
}

/** The environment's settings (see {@link SettingsOptions.env}) with those given in code over them. */
export function resolveSettings(options: SettingsOptions = {}): TroupeSettings {
  const { env = process.env, ...given } = options;
  const base: TroupeSettings = env === false ? { ...DEFAULT_CONNECTION, taskQueue: 'troupe' } : settingsFromEnv(env);
  return withOverrides(base, given);
}
