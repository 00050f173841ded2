/**
 * Run state: one plain-JSON object that the workflow drives and carries across continue-as-new.
 * Round-scoped parts reset at each round start (docs/semantics.md, "Rounds"); the rest is
 * run-scoped. Pure: time is passed in as workflow milliseconds.
 */
import type { CompiledGraph } from '../graph/types';
import type { TerminationView, TokenCounts } from '../conditions/view';
import { createGoal, goalFrameworkBlock, type GoalState } from '../goals';
import type { DecisionRecord, HumanRequest } from '../humans/requests';
import type { ToolCallRecord, ToolDefinition } from '../llm/tool-contract';
import { emptyLedger, type UsageLedger } from '../budgets/ledger';
import type { PromptNote } from '../prompts/build';
import type { Trigger, WaveItem } from '../waves/types';

/** A note added to an agent's next input (humans, goals, retries): the prompt builder's note. */
export type AgentNote = PromptNote;

/**
 * One recorded agent step, for the `transcript` query; or a human's decision (`kind: 'decision'`),
 * which carries the number of the step it followed and says who decided in `decision`.
 */
export interface TranscriptStep {
  step: number;
  agent: string;
  round: number;
  wave: number;
  hash: string;
  promptTokens: number;
  completionTokens: number;
  text: string;
  at: number;
  /** Why the agent ran: a wave of the graph, a schema retry, or a completion check's request; or a decision. */
  kind?: 'agent' | 'schema_retry' | 'check_retry' | 'decision';
  /** The worker tools the agent called in this step. */
  tools?: ToolCallRecord[];
  /** Who decided what, on a `decision` entry. */
  decision?: DecisionRecord;
}

/** Round-scoped state: reset when a round starts. */
export interface RoundState {
  round: number;
  wave: number;
  /** Active ms on the run clock when this round started. */
  startedActiveMs: number;
  loopCounters: Record<string, number>;
  hashes: Record<string, string[]>;
  latest: TerminationView['latest'];
  verdicts: TerminationView['verdicts'];
  latches: Record<string, true>;
  signals: string[];
  messages: number;
  usage: TokenCounts;
  /** Agents that took an exit edge this round, in exit order. */
  exits: string[];
  /** Agents of the last dispatched wave (final agents when nobody exited). */
  lastWave: string[];
}

/** The whole run state. */
export interface RunState {
  workflowId: string;
  task: string;
  round: RoundState;
  /** The next wave to dispatch; empty once the round's graph has stopped. */
  frontier: WaveItem[];
  steps: number;
  results: Record<string, { text: string; hash: string; count: number }>;
  /** Per agent: its own last results (≤ 2) and rolling summary of older context. */
  memory: Record<string, { own: string[]; summary?: string; threadSeq?: number }>;
  /** Shared thread of agent outputs (last 8, numbered), for `context: thread`. */
  thread: Array<{ agent: string; text: string; seq: number }>;
  threadSeq: number;
  notes: Record<string, AgentNote[]>;
  /** Notes for every agent of the next wave (`message` without `to`). */
  broadcast: AgentNote[];
  usage: UsageLedger;
  signals: Array<{ type: string; payload?: unknown; at: string; source?: string }>;
  warnings: string[];
  transcript: TranscriptStep[];
  goal?: GoalState;
  /** Requests to humans, open or decided and not yet acted on (`core/humans/requests.ts`). */
  requests: HumanRequest[];
  requestCounter: number;
  /** Every decision of the run, in arrival order (absent from state written before decisions were kept). */
  decisionLog?: DecisionRecord[];
  /** Wave items that wait behind an agent re-dispatched alone after a human rejected its result. */
  deferred: WaveItem[];
  paused: boolean;
  stop?: { reason?: string };
  clock: { accumulatedMs: number; since: number | null };
  outputAttempts: Record<string, number>;
  compactionFailures: number;
  continuedAsNew: number;
  /** Each agent's worker tools, as the worker resolved them at the run's start. */
  tools?: Record<string, ToolDefinition[]>;
}

/** Cap on each agent text kept in state, the RunResult and compaction input (64 KiB). */
export const TEXT_CAP_BYTES = 64 * 1024;

export const MAX_WARNINGS = 200;
export const MAX_TRANSCRIPT = 200;
export const MAX_SIGNALS = 500;
export const MAX_DECISIONS = 200;
export { OWN_RESULTS_KEPT, THREAD_ENTRIES_KEPT as THREAD_KEPT } from '../prompts/build';

/** A fresh round-scoped state. */
export function newRound(round: number, activeMs: number): RoundState {
  return {
    round,
    wave: 0,
    startedActiveMs: activeMs,
    loopCounters: {},
    hashes: {},
    latest: {},
    verdicts: {},
    latches: {},
    signals: [],
    messages: 0,
    usage: { promptTokens: 0, completionTokens: 0, totalTokens: 0 },
    exits: [],
    lastWave: [],
  };
}

/** Wave 1 of a round: the graph's entry agents, triggered by the task. */
export function entryWave(graph: CompiledGraph, task: string): WaveItem[] {
  return graph.entry.map((agent) => ({ agent, triggers: [{ from: 'parent', text: task } as Trigger] }));
}

/** Append a warning (bounded, deduplicated against the last one). */
export function warn(state: RunState, message: string): void {
  if (state.warnings[state.warnings.length - 1] === message) return;
  state.warnings.push(message);
  if (state.warnings.length > MAX_WARNINGS) state.warnings.splice(0, state.warnings.length - MAX_WARNINGS);
}

/** Append to a bounded list in place. */
export function pushBounded<T>(list: T[], item: T, max: number): void {
  list.push(item);
  if (list.length > max) list.splice(0, list.length - max);
}

/** Take (and clear) the notes queued for an agent's next dispatch, broadcast notes included. */
export function takeNotes(state: RunState, agent: string, broadcast: AgentNote[]): AgentNote[] {
  const own = state.notes[agent] ?? [];
  delete state.notes[agent];
  return [...broadcast, ...own];
}

/** Queue a note for an agent's next dispatch. */
export function addNote(state: RunState, agent: string, note: AgentNote): void {
  (state.notes[agent] ??= []).push(note);
}

/** A fresh run state at workflow time `now`; agents offered the `goal` tool get the goal framework note. */
export function createRunState(graph: CompiledGraph, task: string, workflowId: string, now: number): RunState {
  const state: RunState = {
    workflowId,
    task,
    round: newRound(1, 0),
    frontier: entryWave(graph, task),
    steps: 0,
    results: {},
    memory: {},
    thread: [],
    threadSeq: 0,
    notes: {},
    broadcast: [],
    usage: emptyLedger(),
    signals: [],
    warnings: [],
    transcript: [],
    goal: graph.goal ? createGoal(graph.goal, now) : undefined,
    requests: [],
    requestCounter: 0,
    deferred: [],
    paused: false,
    clock: { accumulatedMs: 0, since: now },
    outputAttempts: {},
    compactionFailures: 0,
    continuedAsNew: 0,
  };
  if (state.goal) {
    const block = goalFrameworkBlock(state.goal);
    for (const [name, agent] of Object.entries(graph.agents)) {
      if (agent.tools.includes('goal')) addNote(state, name, { kind: 'goal_framework', text: block });
    }
  }
  return state;
}
