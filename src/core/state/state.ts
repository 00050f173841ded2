/**
 * Run state (SPEC §8, §11.1, §11.5): one plain-JSON object that the workflow drives and carries
 * across continue-as-new. Round-scoped parts reset at each round start; the rest is run-scoped.
 * Pure: time is passed in as workflow milliseconds.
 */
import type { CompiledGraph } from '../graph/types';
import type { TerminationView, TokenCounts } from '../termination/view';
import type { GoalState } from '../goals';
import type { PendingRequest } from '../humans/signals';
import type { UsageLedger } from '../budgets/ledger';
import type { PromptNote } from '../prompts/build';
import { capText, utf8ByteLength } from '../text/utf8';
import type { Trigger, WaveItem } from '../waves/routing';

/** A note added to an agent's next input (humans, goals, retries): the prompt builder's note. */
export type AgentNote = PromptNote;

/** One recorded agent step, for the `transcript` query (§11.5). */
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
  kind?: 'agent' | 'schema_retry';
}

/** Round-scoped state: reset when a round starts (§11.1). */
export interface RoundState {
  round: number;
  wave: number;
  /** Active ms on the run clock when this round started. */
  startedActiveMs: number;
  loopCounters: Record<string, number>;
  hashes: Record<string, string[]>;
  latest: Record<string, { text: string; hash: string }>;
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
  pending: PendingRequest[];
  requestCounter: number;
  /** Agents whose results wait for a human decision before routing (§11.6). */
  held: Array<{ agent: string; text: string; requestId: string; triggers: Trigger[] }>;
  /** Human decisions resolved by signal handlers, applied by the main loop in order. */
  decisions: Array<{ requestId: string; decision: 'approve' | 'reject' | 'answer'; text?: string }>;
  /** Wave items deferred behind a re-dispatched (rejected) agent (§11.6). */
  deferred: WaveItem[];
  paused: boolean;
  stop?: { reason?: string };
  clock: { accumulatedMs: number; since: number | null };
  outputAttempts: Record<string, number>;
  compactionFailures: number;
  continuedAsNew: number;
}

/** Cap on each agent text kept in state, the RunResult and compaction input (64 KiB). */
export const TEXT_CAP_BYTES = 64 * 1024;

export const MAX_WARNINGS = 200;
export const MAX_TRANSCRIPT = 200;
export const MAX_SIGNALS = 500;
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

/** Active ms on the run clock at workflow time `now`. */
export function activeMs(state: RunState, now: number): number {
  return state.clock.accumulatedMs + (state.clock.since === null ? 0 : Math.max(0, now - state.clock.since));
}

/** Start the active clock (idempotent). */
export function startClock(state: RunState, now: number): void {
  if (state.clock.since === null) state.clock.since = now;
}

/** Stop the active clock (idempotent). */
export function stopClock(state: RunState, now: number): void {
  if (state.clock.since !== null) {
    state.clock.accumulatedMs += Math.max(0, now - state.clock.since);
    state.clock.since = null;
  }
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

/** The termination view of the current round at `now`. */
export function terminationView(state: RunState, now: number): TerminationView {
  const r = state.round;
  return {
    roundActiveMs: activeMs(state, now) - r.startedActiveMs,
    loopCounters: r.loopCounters,
    hashes: r.hashes,
    latest: r.latest,
    verdicts: r.verdicts,
    latches: r.latches,
    signals: r.signals,
    messages: r.messages,
    usage: r.usage,
  };
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

/** Carried state above this size is trimmed before continue-as-new (Temporal's payload limit is 2 MB). */
export const CARRY_BUDGET_BYTES = 1024 * 1024;

/**
 * Shrink the state carried across continue-as-new when it is large (§10, §11.5): older context
 * texts (own results, thread, transcript previews) are cut progressively; results, counters,
 * pending requests, queued messages and flags are kept whole. Returns the bytes it then takes.
 */
export function trimForCarry(state: RunState, budget = CARRY_BUDGET_BYTES): number {
  const size = () => utf8ByteLength(JSON.stringify(state));
  let bytes = size();
  for (const cap of [16 * 1024, 4 * 1024, 1024]) {
    if (bytes <= budget) break;
    for (const memory of Object.values(state.memory)) memory.own = memory.own.map((t) => capText(t, cap));
    state.thread = state.thread.map((e) => ({ ...e, text: capText(e.text, cap) }));
    state.transcript = state.transcript.map((t) => ({ ...t, text: t.text.slice(0, Math.min(500, cap / 8)) }));
    bytes = size();
  }
  return bytes;
}
