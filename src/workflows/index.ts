/**
 * Workflow entry point bundled by the worker. Only workflow functions are exported here.
 */
export { troupeRun } from './run';
