/**
 * Connection settings from the environment, shared by the worker, the CLI and the demo.
 */
export interface TroupeSettings {
  address: string;
  namespace: string;
  taskQueue: string;
}

/** Read `TEMPORAL_ADDRESS`, `TEMPORAL_NAMESPACE` and `TROUPE_TASK_QUEUE` with their defaults. */
export function settingsFromEnv(env: NodeJS.ProcessEnv = process.env): TroupeSettings {
  return {
    address: env.TEMPORAL_ADDRESS || 'localhost:7233',
    namespace: env.TEMPORAL_NAMESPACE || 'default',
    taskQueue: env.TROUPE_TASK_QUEUE || 'troupe',
  };
}
