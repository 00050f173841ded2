/**
 * Reaching Temporal, as every Temporal tool does: the settings come from a profile of the shared
 * TOML profile file and the `TEMPORAL_*` variables (`@temporalio/envconfig`), become the options
 * of both the client's and the worker's connection, and a failure is explained in one line with
 * the variable or profile setting to check. docs/deploying.md shows the settings.
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
  explainProblem,
  hostAndPort,
  probe,
  withDiagnosis,
  type ConnectProblem,
} from './diagnose';
export { CONNECTION_TEXTS } from './texts';
