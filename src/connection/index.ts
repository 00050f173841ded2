/**
 * Reaching Temporal, as every Temporal tool does: the settings come from a profile of the shared
 * TOML profile file and the `TEMPORAL_*` variables (`@temporalio/envconfig`), become the options
 * of both the client's and the worker's connection, and a failure is explained in one line with
 * the variable or profile setting to check. README "Running beyond a laptop" shows the settings.
 */
export {
  DEFAULT_CONNECTION,
  ConnectionConfigError,
  defaultConfigFile,
  loadConnectionSettings,
  withOverrides,
  type ConnectionOrigin,
  type ConnectionSettings,
} from './load';
export { clientConnectionOptions, workerConnectionOptions } from './options';
export {
  ConnectionFailedError,
  DIAGNOSIS_TIMEOUT_MS,
  explainProblem,
  hostAndPort,
  probe,
  problemInError,
  withDiagnosis,
  type ConnectProblem,
} from './diagnose';
export { CONNECTION_TEXTS, SETTING_NAMES, type SettingKey } from './texts';
