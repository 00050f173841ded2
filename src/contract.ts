/**
 * The contract between a troupe run and everything that talks to it: the workflow's type and input,
 * its signals, its Updates, its queries, the failure type of a refused decision and the keys of
 * troupe's search attributes. The workflow (`src/workflows`) installs handlers for these
 * definitions; the client (`src/client`), the CLI and the worker's metrics use the same ones, so both
 * sides agree by construction and no client loads workflow code (as the SDK's samples share a
 * `shared.ts`). Payload types come from the zod schemas (`core/humans/signals.ts`). This module runs
 * in the workflow sandbox too: it defines, it never does.
 */
import { defineSearchAttributeKey } from '@temporalio/common';
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { AppliedDecision } from './core/humans/decisions';
import type { DecisionKind, DecisionRefusal } from './core/humans/requests';
import type { SignalInputs, SignalName } from './core/humans/signals';
import type { CompiledGraph } from './core/graph/types';
import type { RunResult, RunStatusView } from './core/ending/result';
import type { RunProgress } from './core/observe/progress';
import { SEARCH_ATTRIBUTES } from './core/observe/search';
import type { CarriedState } from './core/state/carry';
import type { TeamState } from './core/state/team-state';
import type { TranscriptStep } from './core/state/state';

/** Workflow type name, as registered by the worker. */
export const WORKFLOW_TYPE = 'troupeRun';

/**
 * The workflow argument: the compiled graph, the task, and state carried over by continue-as-new; or,
 * for a run that continues a team (docs/semantics.md, "Teams that go on"), the team state it goes on
 * from (checked by the workflow like any start input), with `task` the new task or empty.
 */
export interface RunInput {
  graph: CompiledGraph;
  task: string;
  carried?: CarriedState;
  teamState?: TeamState;
}

/** The run workflow's signature (`workflows/run.ts`'s `troupeRun`), for typed handles. */
export type TroupeRun = (input: RunInput) => Promise<RunResult>;

const signal = <K extends SignalName>(name: K) => defineSignal<[SignalInputs[K]?]>(name);

/**
 * Every signal of the contract, by name: `pause`, `resume`, `message`, `signal` and `stop` steer a
 * run; `approve`, `reject` and `answer` are the decisions of clients older than their Updates, taken
 * through the same validation ({@link DECISION_UPDATES}).
 */
export const SIGNALS = {
  pause: signal('pause'),
  resume: signal('resume'),
  approve: signal('approve'),
  reject: signal('reject'),
  answer: signal('answer'),
  message: signal('message'),
  signal: signal('signal'),
  stop: signal('stop'),
} as const;

const update = <K extends DecisionKind>(name: K) => defineUpdate<AppliedDecision, [SignalInputs[K]]>(name);

/**
 * The decisions on a human request, as Temporal Updates (docs/semantics.md, "Humans in the loop"):
 * each takes its signal's payload and answers what the run did with it ({@link AppliedDecision}).
 * Their validator refuses, before anything enters the history, a decision for no open request, a
 * decided one, the wrong kind or another digest: the caller gets a failure of type
 * {@link DECISION_REFUSED} whose details hold the {@link DecisionRefusal}.
 */
export const DECISION_UPDATES = {
  approve: update('approve'),
  reject: update('reject'),
  answer: update('answer'),
} as const;

/** The `type` of the ApplicationFailure a decision Update is refused with; its first detail is a {@link DecisionRefusal}. */
export const DECISION_REFUSED = 'TroupeDecisionRefused';

export type { DecisionRefusal };

/** The status view: round, wave, phase, pending requests, decisions, usage, the end. */
export const statusQuery = defineQuery<RunStatusView>('status');
/** The transcript: the last 200 steps. */
export const transcriptQuery = defineQuery<TranscriptStep[]>('transcript');
/** The progress contract (`core/observe/progress.ts`): the run's position and the steps after step `after`. */
export const progressQuery = defineQuery<RunProgress, [after?: number]>('progress');

/** What the `follow` Update answers: whether this run writes progress records into its history. */
export interface FollowAnswer {
  /** False on a worker whose bundle lacks the recorder: follow it with the `progress` query. */
  recording: boolean;
}

/**
 * Ask a run to write its position into its history (`core/observe/progress.ts`, `ProgressRecord`)
 * from now on, across continue-as-new, the first record holding the steps after step `after`: what a
 * follower reads instead of asking the `progress` query (docs/operating.md, "Following a run from
 * code"). A run on an older build has no handler and refuses it.
 */
export const followUpdate = defineUpdate<FollowAnswer, [after: number]>('follow');

/** The typed keys of troupe's search attributes (docs/operating.md, "Finding runs"). */
export const SEARCH_KEYS = {
  graph: defineSearchAttributeKey(SEARCH_ATTRIBUTES.graph.name, SEARCH_ATTRIBUTES.graph.kind),
  status: defineSearchAttributeKey(SEARCH_ATTRIBUTES.status.name, SEARCH_ATTRIBUTES.status.kind),
  reason: defineSearchAttributeKey(SEARCH_ATTRIBUTES.reason.name, SEARCH_ATTRIBUTES.reason.kind),
  waiting: defineSearchAttributeKey(SEARCH_ATTRIBUTES.waiting.name, SEARCH_ATTRIBUTES.waiting.kind),
  thread: defineSearchAttributeKey(SEARCH_ATTRIBUTES.thread.name, SEARCH_ATTRIBUTES.thread.kind),
} as const;
