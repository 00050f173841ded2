/**
 * What conditions read: a plain snapshot of the round-scoped run state, built by the run state
 * (`core/state/view.ts`). Everything here is this round's, except where noted.
 */
/** Token usage of a round or a call. */
export interface TokenCounts {
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
}

/** The round-scoped state every condition reads (built-in and plugin alike). */
export interface TerminationView {
  /** Active milliseconds elapsed in this round (the clock stops while paused or waiting for a human). */
  roundActiveMs: number;
  /** Loop-group iteration counters of this round, by group id. */
  loopCounters: Record<string, number>;
  /** Per agent, this round's result hashes, oldest first (bounded to the last few). */
  hashes: Record<string, string[]>;
  /**
   * Per agent, its latest result of this round: normalized text and hash, and the text with its
   * line structure kept (`lines`) when a `regex` matcher reads it.
   */
  latest: Record<string, { text: string; hash: string; lines?: string }>;
  /** Judge verdicts of this round, keyed by `verdictKey(agent, criteria)`, for the hash they judged. */
  verdicts: Record<string, { hash: string; converged: boolean; reason?: string }>;
  /** Event latches (`text_mention`) that fired this round, keyed by `latchKey(condition)`. */
  latches: Record<string, true>;
  /** Signal types received since this round began. */
  signals: string[];
  /** Agent results recorded this round (not the task, user messages or schema retries). */
  messages: number;
  /** Token usage of this round. */
  usage: TokenCounts;
  /** Transfers made this round, in order (docs/teams.md, "Handoffs"); absent when none. */
  handoffs?: Array<{ from: string; to: string }>;
  /** Names of the tools that ran this round (worker tools as written in `tools:`, and `goal`/`signal`), each once, first-run order; absent when none. */
  toolsCalled?: string[];
}

/**
 * Key of a judge verdict in `TerminationView.verdicts`: the agent alone, or `agent:criteria`
 * (agent names cannot contain `:`).
 */
export function verdictKey(agent: string, criteria?: string): string {
  return criteria === undefined ? agent : `${agent}:${criteria}`;
}
