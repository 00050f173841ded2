/**
 * The shape of a run's team state (docs/semantics.md, "Teams that go on"), version 1: the types the
 * run state, the RunResult and the client share. Reading, taking and continuing one is
 * `team-state.ts`.
 */
import type { TokenCounts } from '../conditions/view';
import type { PromptNote, ThreadEntry } from '../prompts/build';

/** The schema version of {@link TeamState}; a document of another version is refused. */
export const TEAM_STATE_VERSION = 1;

/** The bound on a team state's encoded size (docs/semantics.md, "Size bounds"): 1 MiB. */
export const TEAM_STATE_MAX_BYTES = 1024 * 1024;

/** One entry of a team's thread: an agent's output, a transfer, a question, an answer, or a task of the user (`kind: 'task'`). */
export type TeamThreadEntry = ThreadEntry;

/** What one agent takes into its next dispatch. */
export interface AgentContext {
  /** Its own last results, oldest first (what an `inbox` prompt shows). */
  own: string[];
  /** Its compaction summary of older turns. */
  summary?: string;
  /** How many of the thread's entries, from the start, its summary already covers. */
  summarized?: number;
  /** Notes that were waiting for its next dispatch: a handoff's message, a human's answer or message. */
  notes?: PromptNote[];
  /** A team agent: the team state of its last child run, which its next child run continues. */
  team?: TeamState;
}

/**
 * Whose turn is next: the wave the run would have dispatched (`wave`: round-robin's next speaker, a
 * swarm's agent holding the turn, a graph's next wave with what triggered it); a selector's next
 * choice with the previous speaker (`select`); or the graph's entry (`entry`: the run took its exit).
 */
export type TeamCursor =
  | { kind: 'wave'; wave: Array<{ agent: string; triggers: Array<{ from: string; text: string }> }> }
  | { kind: 'select'; previous?: string }
  | { kind: 'entry' };

/** Usage of every run of a thread so far. */
export interface ThreadUsage extends TokenCounts {
  costUsd: number;
  llmRequests: number;
  runs: number;
}

/** A run's team state, version 1. */
export interface TeamState {
  version: typeof TEAM_STATE_VERSION;
  /** The team it belongs to: the role's name, its agent names, its topology, and a digest of each agent's definition. */
  role: { name: string; agents: string[]; topology: string; digests: Record<string, string> };
  /** The shared thread as the agents see it, oldest first, the tasks of the thread's runs among it. */
  thread: TeamThreadEntry[];
  contexts: Record<string, AgentContext>;
  cursor: TeamCursor;
  /** The thread's id: the workflow id of the run that started it. */
  threadId: string;
  threadUsage: ThreadUsage;
  /** The run it was taken from. */
  source: { runId: string; status: string; reason: string; steps: number };
}

/** What a run that continues a team state knows of its thread (`RunState.continuation`). */
export interface Continuation {
  threadId: string;
  /** Usage of the thread's earlier runs. */
  before: ThreadUsage;
  /** The source run's workflow id. */
  from: string;
}
