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
import { THREAD_ENTRIES_KEPT, type PromptNote, type ThreadEntry } from '../prompts/build';
import { TO_BE_SELECTED, type Trigger, type WaveItem } from '../waves/types';
import { utf8ByteLength } from '../text/utf8';
import { TROUPE_RELEASE } from './release';
import { STATE_TEXTS } from './texts';
import type { Continuation, TeamState } from './team-types';

/** A note added to an agent's next input (humans, goals, retries): the prompt builder's note. */
type AgentNote = PromptNote;

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
  /** The agent transferred (`→ to`, with its message) in this step (docs/teams.md, "Handoffs"). */
  handoff?: { to: string; message?: string };
  /** The speaker a selector chose for this step, and how (docs/teams.md, "Selector teams"). */
  selected?: { attempts: number; fallback?: true };
  /** A team agent's step: the workflow id of the child run that did it (docs/teams.md, "Nested teams"). */
  team?: string;
}

/** Round-scoped state: reset when a round starts. */
interface RoundState {
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
  /** Transfers made this round (absent when none). */
  handoffs?: Array<{ from: string; to: string }>;
  /** Tools that ran this round, each once (absent when none). */
  toolsCalled?: string[];
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
  /** Shared thread (last 8, numbered), for `context: thread`: outputs, transfers, questions and answers. */
  thread: Array<ThreadEntry & { seq: number }>;
  threadSeq: number;
  /**
   * Team runs started so far, by team agent (docs/teams.md, "Nested teams"): the `n` of the next child's
   * workflow id, carried across continue-as-new so ids never repeat; absent until the first.
   */
  teamRuns?: Record<string, number>;
  notes: Record<string, AgentNote[]>;
  /** Notes for every agent of the next wave (`message` without `to`). */
  broadcast: AgentNote[];
  usage: UsageLedger;
  signals: Array<{ type: string; payload?: unknown; at: string; source?: string }>;
  /** The last warnings, first a line counting those dropped once there were more than {@link MAX_WARNINGS}. */
  warnings: string[];
  /** Warnings dropped so far (docs/semantics.md, "Bounds on hostile input"). */
  warningsDropped?: number;
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
  /** The troupe release that started the run (absent in state written before 0.3); carried to its end. */
  release?: string;
  /** The progress counter (`core/observe/progress.ts`): rises each time the run publishes its position. */
  progress?: number;
  /** A client asked for progress records (the `follow` Update, `core/observe/progress.ts`): kept across continue-as-new. */
  followed?: boolean;
  /** A run that continues a team state: its thread, the thread's earlier usage, the run it continues (`core/state/team-state.ts`). */
  continuation?: Continuation;
  /** A continued selector team's previous speaker, until this run's first turn. */
  previousSpeaker?: string;
  /** Per team agent: the team state of its last child run, for the run's own team state. */
  teams?: Record<string, TeamState>;
  /** Per team agent: a continued team state its next child run goes on from (taken by that run). */
  carriedTeams?: Record<string, TeamState>;
}

/** Cap on each agent text kept in state, the RunResult and compaction input (64 KiB). */
export const TEXT_CAP_BYTES = 64 * 1024;

/**
 * Caps of the lists that grow with signals and warnings (docs/semantics.md, "Bounds on hostile input"), so
 * that no flood of signals can grow the state a run carries, its history or its prompts without
 * bound; what a cap turns away is reported as a warning.
 * @internal exported for tests
 */
export const MAX_WARNINGS = 200;
/**
 * The longest warning kept, in characters.
 * @internal exported for tests
 */
export const MAX_WARNING_CHARS = 1000;
export const MAX_TRANSCRIPT = 200;
/**
 * Signals kept in the run's ledger (the `signal` signal and the agents' `signal` tool).
 * @internal exported for tests
 */
export const MAX_SIGNALS = 500;
/** Decisions kept in the run's log (who decided what, when). */
export const MAX_DECISIONS = 200;
/**
 * Distinct signal types `signal_observed` sees in one round.
 * @internal exported for tests
 */
export const MAX_SIGNAL_TYPES = 100;
/**
 * Human messages waiting for one agent's next turn, and for the next wave (`message` without `to`).
 * @internal exported for tests
 */
export const MAX_QUEUED_MESSAGES = 20;
/**
 * Bytes all waiting human messages may hold together.
 * @internal exported for tests
 */
export const MAX_QUEUED_MESSAGE_BYTES = 256 * 1024;
export { OWN_RESULTS_KEPT, THREAD_ENTRIES_KEPT as THREAD_KEPT } from '../prompts/build';

/** Append an entry to the shared thread, numbered, keeping the last {@link THREAD_ENTRIES_KEPT}. */
export function pushThread(state: RunState, entry: ThreadEntry): void {
  state.threadSeq += 1;
  pushBounded(state.thread, { ...entry, seq: state.threadSeq }, THREAD_ENTRIES_KEPT);
}

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

/** Wave 1 of a round: the graph's entry agents (a selector team's first speaker, to be chosen), triggered by the task. */
export function entryWave(graph: CompiledGraph, task: string): WaveItem[] {
  const entry = graph.selector ? [TO_BE_SELECTED] : graph.entry;
  return entry.map((agent) => ({ agent, triggers: [{ from: 'parent', text: task } as Trigger] }));
}

/**
 * Append a warning: cut to {@link MAX_WARNING_CHARS}, deduplicated against the last one, and bounded:
 * past {@link MAX_WARNINGS} the oldest go, and the first line says how many went.
 */
export function warn(state: RunState, message: string): void {
  const text = message.length > MAX_WARNING_CHARS ? `${message.slice(0, MAX_WARNING_CHARS)}…` : message;
  if (state.warnings[state.warnings.length - 1] === text) return;
  state.warnings.push(text);
  if (state.warnings.length <= MAX_WARNINGS) return;
  const dropped = state.warningsDropped ?? 0;
  const real = dropped > 0 ? state.warnings.slice(1) : state.warnings;
  const excess = real.length - (MAX_WARNINGS - 1);
  state.warningsDropped = dropped + excess;
  state.warnings = [STATE_TEXTS.warningsDropped(state.warningsDropped, MAX_WARNINGS - 1), ...real.slice(excess)];
}

/** Append to a bounded list in place; true when an old item had to go. */
export function pushBounded<T>(list: T[], item: T, max: number): boolean {
  list.push(item);
  if (list.length <= max) return false;
  list.splice(0, list.length - max);
  return true;
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

function messagesIn(notes: readonly AgentNote[]): AgentNote[] {
  return notes.filter((n) => n.kind === 'user_message');
}

/**
 * Queue a human's `message` for one agent's next dispatch (`to`) or for every agent of the next
 * wave. Turned away with a warning past {@link MAX_QUEUED_MESSAGES} waiting for the same turn, or
 * past {@link MAX_QUEUED_MESSAGE_BYTES} waiting in all; returns whether it was queued.
 */
export function queueMessage(state: RunState, to: string | undefined, note: AgentNote): boolean {
  const queue = to === undefined ? state.broadcast : (state.notes[to] ?? []);
  if (messagesIn(queue).length >= MAX_QUEUED_MESSAGES) {
    warn(state, STATE_TEXTS.messageDropped(to, MAX_QUEUED_MESSAGES));
    return false;
  }
  const waiting = [...state.broadcast, ...Object.values(state.notes).flat()];
  const bytes = messagesIn(waiting).reduce((sum, n) => sum + utf8ByteLength(n.text), 0);
  if (bytes + utf8ByteLength(note.text) > MAX_QUEUED_MESSAGE_BYTES) {
    warn(state, STATE_TEXTS.messagesFull(MAX_QUEUED_MESSAGE_BYTES));
    return false;
  }
  if (to === undefined) state.broadcast.push(note);
  else addNote(state, to, note);
  return true;
}

/** Record a signal in the run's ledger and among the round's types, within their caps (warnings say what did not fit). */
export function recordInLedger(state: RunState, entry: RunState['signals'][number]): void {
  if (pushBounded(state.signals, entry, MAX_SIGNALS)) warn(state, STATE_TEXTS.signalsDropped(MAX_SIGNALS));
  const types = state.round.signals;
  if (types.includes(entry.type)) return;
  if (types.length >= MAX_SIGNAL_TYPES) warn(state, STATE_TEXTS.signalTypesFull(entry.type, MAX_SIGNAL_TYPES));
  else types.push(entry.type);
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
    release: TROUPE_RELEASE,
    progress: 0,
  };
  if (state.goal) {
    const block = goalFrameworkBlock(state.goal);
    for (const [name, agent] of Object.entries(graph.agents)) {
      if (agent.tools.includes('goal')) addNote(state, name, { kind: 'goal_framework', text: block });
    }
  }
  return state;
}
