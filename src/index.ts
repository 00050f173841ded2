/**
 * troupe's public API: the deliberate list of what a program may import from `troupe`. Everything
 * else in the package is internal and may change between versions.
 *
 * - Define a graph: `defineRole` (TypeScript) or `loadRole` (a role.yaml file).
 * - Extend the YAML: `registerTopology`, `registerCondition`, `registerCompletionCheck` (conditions
 *   and checks run inside the workflow, so their modules are bundled into it: `createWorker({ plugins })`).
 * - Run: `createWorker` on the worker side; `connectClient`, `startRun`, `followRun`, `waitResult`,
 *   `queryStatus`, `queryTranscript`, `sendSignal`, `webUiLink` on the client side.
 * - Decide: `waitForRequest`, then `approve`, `reject` or `answer`, each answered with what the run
 *   did with the decision (applied and what follows, or refused and why). Both connect with the
 *   `TEMPORAL_*` variables and the profile file (`settingsFromEnv`); `clientConnectionOptions` and
 *   `workerConnectionOptions` give the same settings to connections a program makes itself.
 * - Go back: `rewindRun` replays a run from after step N (Temporal's reset), or forks it with a message.
 * - Watch: `readInFlightCalls` (or `followRun`'s `liveText`) for what the running model calls have
 *   written so far.
 * - Go on: `startRun(..., { continueFrom })` or `{ teamState }` starts a new run of a thread from a
 *   closed run's team state (every RunResult's `teamState`; `exportTeamState` reads it).
 */

// defining graphs
export { defineRole, RoleConfigError, type Role, type RoleInput } from './core/config/define';
export type { RoleConfig } from './core/config/schema';
export { loadRole, loadRoleFile } from './config-file';
export type { CompiledGraph } from './core/graph/types';

// extending the YAML
export { registerTopology } from './core/graph/topologies';
export { registerCondition, type ConditionPlugin } from './core/conditions/registry';
export type { TerminationView } from './core/conditions/view';
export { registerCompletionCheck, type CompletionCheck, type CompletionContext, type CheckVerdict } from './core/checks/pipeline';

// tools for agents (module tools are written with these; a tools file lists them)
export { defineTool, ToolFatalError, type ToolContext, type ModuleTool } from './tools';

// running: the worker
export { createWorker, bundleWorkflows, openTools, type WorkerConfig } from './worker';
export { createActivities, type LlmEndpointOptions } from './activities';

// running: the client (docs/library.md)
export {
  connectClient,
  isNotFound,
  queryStatus,
  queryTranscript,
  runHandle,
  sendSignal,
  startRun,
  waitResult,
  type RunHandle,
  type StartOptions,
} from './client/runs';
export { webUiLink } from './client/web-ui';
export { followRun, type CallActivity, type FollowEvent, type FollowOptions } from './client/follow';
// deciding a run's human requests: the decision Updates, answered with what the run did
export {
  answer,
  approve,
  decideRequest,
  reject,
  waitForRequest,
  NOT_OPEN_YET_RETRY,
  type DecideOptions,
  type DecisionAnswer,
  type RequestDecision,
  type RequestFilter,
  type RequestRef,
  type SentDecision,
} from './client/human-decisions';
export type { AppliedDecision, RefusedDecision } from './core/humans/decisions';
export type { DecisionRefusal, RefusalCode, DecisionRecord } from './core/humans/requests';
// what a run's model calls are writing now (docs/observability.md, "Live output")
export { readInFlightCalls } from './client/pending-activities';
export type { InFlightCall } from './core/observe/live';
export type { LiveText } from './core/observe/live';
export { listRuns, type ListFilter, type RunList, type RunListing } from './client/find-runs';
// teams that go on (docs/semantics.md, "Teams that go on"): startRun's continueFrom / teamState, a closed run's team state
export { exportTeamState, checkContinuation, ContinueRefusedError, type SourceState } from './client/team-state';
export { TEAM_STATE_VERSION, TEAM_STATE_MAX_BYTES, type TeamState, type TeamCursor, type AgentContext, type ThreadUsage } from './core/state/team-state';
// rewind loads the workflow bundle (its probe replays the run's history), so it lives outside the client
export { rewindRun, RewindRefusedError, type RewindOptions, type RewindOutcome } from './rewind/rewind';
export type { RewindPoint, SideEffect } from './rewind/plan';
export { SEARCH_ATTRIBUTES } from './core/observe/search';
// the contract a run and its clients share: names of the workflow type, its messages and search attributes
export {
  DECISION_REFUSED,
  DECISION_UPDATES,
  SEARCH_KEYS,
  SIGNALS,
  WORKFLOW_TYPE,
  followUpdate,
  progressQuery,
  statusQuery,
  transcriptQuery,
  type FollowAnswer,
  type RunInput,
  type TroupeRun,
} from './contract';
export { PROGRESS_RECORD_KEY } from './core/observe/progress';
export type { CallKind, ProgressRecord, RunningCall, RunProgress } from './core/observe/progress';
export type { SignalInputs, SignalName } from './core/humans/signals';
export type { RunResult, RunStatusView, RunEnd, Diagnostics } from './core/ending/result';
export type { PendingRequest } from './core/humans/requests';
export type { TranscriptStep } from './core/state/state';

// encrypting payloads (TROUPE_PAYLOAD_KEY): the data converter a client or worker of your own needs
export { troupeDataConverter, startCodecServer, type CodecServer, type CodecServerOptions } from './codec';

// reaching Temporal: TEMPORAL_* variables and the profile file, as the Temporal CLI and SDKs read them
export { resolveSettings, settingsFromEnv, type SettingsOptions, type TroupeSettings } from './settings';
export {
  clientConnectionOptions,
  ConnectionConfigError,
  ConnectionFailedError,
  loadConnectionSettings,
  workerConnectionOptions,
  type ConnectionOrigin,
  type ConnectionSettings,
  type ConnectProblem,
} from './connection';
