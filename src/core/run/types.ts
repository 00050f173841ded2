/**
 * The round machine's vocabulary (docs/architecture.md, "The round machine"): where a run is
 * ({@link Phase}), what just happened ({@link RunEvent}) and what the workflow does next
 * ({@link Command}). Plain JSON, pure types: the machine (`step.ts`) turns an event into the next
 * command, and the workflow's one loop (`src/workflows/run.ts`) carries each command out.
 */
import type { JudgeTarget } from '../conditions/plugin';
import type { RunEnd } from '../ending/result';
import type { AgentCallResult } from '../llm/contract';
import type { ToolDefinition } from '../llm/tool-contract';
import type { OutputVerdict } from '../output/check';
import type { PromptNote } from '../prompts/build';
import type { TokenCounts } from '../conditions/view';
import type { RecordedResult } from '../waves/record';
import type { SelectAnswer, SelectTurn } from '../teams/turns';
import type { WaveItem } from '../waves/types';

/** Why an agent runs: a wave of the graph, or a final agent sent back alone at the round's end. */
export type DispatchKind = 'agent' | 'schema_retry' | 'check_retry';

/** How one dispatch runs: a response schema (schema retries), notes per agent, and its label's reason. */
export interface DispatchOptions {
  responseSchema?: Record<string, unknown>;
  notes?: Record<string, PromptNote[]>;
  /** A re-dispatch of a final agent, for its label: `output` (schema retry) or the check that sent it back. */
  retryFor?: string;
}

/** A final agent sent back alone at a round's end, with what it is told. */
export interface RetryTarget {
  agent: string;
  prompt: string;
}

/** Where the run is. */
export type Phase =
  /** Before anything: the worker's start-of-run step. */
  | { at: 'start' }
  /** Between waves of the round's graph. */
  | { at: 'waves' }
  /** A selector team's next speaker is being chosen (docs/teams.md, "Selector teams"). */
  | { at: 'selecting'; turn: SelectTurn }
  /**
   * A wave was dispatched; its outcome comes next (a retry carries the round end it serves). While a
   * gated tool call of the wave waits for a human, `waiting` lists its request (`tool-approval.ts`).
   */
  | { at: 'wave'; kind: DispatchKind; retry?: Extract<Phase, { at: 'retries' }>; waiting?: string[] }
  /** The wave's results are recorded; the judge's verdicts come next, then routing. */
  | { at: 'judging'; recorded: RecordedResult[] }
  /** The wave is done; what follows is decided (and waited for, when humans must decide first). */
  | { at: 'after_wave' }
  /** The round's graph stopped with `end`: completion checks, then `before_exit`. */
  | { at: 'round_end'; end: RunEnd }
  /** Final agents sent back alone by a completion check, one after the other. */
  | { at: 'retries'; end: RunEnd; by: string; targets: RetryTarget[] }
  /** The final result waits for a human (`approval.before_exit`). */
  | { at: 'exit_approval'; end: RunEnd; requestId: string }
  /** The run ends with `end`. */
  | { at: 'done'; end: RunEnd };

/** One agent's finished dispatch. */
export interface AgentOutcome {
  item: WaveItem;
  result: AgentCallResult;
}

/** A judge's answer about one target: a verdict, or why it could not give one. */
export type JudgeAnswer =
  | { target: JudgeTarget; converged: boolean; reason?: string; usage: TokenCounts }
  | { target: JudgeTarget; error: string };

/** What just happened. */
export type RunEvent =
  /** The run began (a fresh start, or a continuation that carried its state). */
  | { kind: 'begin'; carried: boolean }
  /** The worker's start-of-run step answered: each agent's tools, or why the run is refused. */
  | { kind: 'prepared'; tools?: Record<string, ToolDefinition[]> }
  | { kind: 'refused'; end: RunEnd }
  /** A dispatch finished: the outcomes of the agents that finished, and what cut it short. */
  | { kind: 'dispatched'; outcomes: AgentOutcome[]; failure?: RunEnd; timedOut?: RunEnd }
  /** The judge answered (not those a timer cancelled: it then says how the wave ended). */
  | { kind: 'judged'; answers: JudgeAnswer[]; timedOut?: RunEnd }
  /** The selector answered (or failed) for the turn it was asked about. */
  | ({ kind: 'selected' } & SelectAnswer)
  /** A wait ended: a signal changed something. */
  | { kind: 'woke' }
  /** The request the run waited on was decided, or `stop` ended the wait. */
  | { kind: 'decided' };

/** What the workflow does next. */
export type Command =
  /** Ask the worker to check the run and resolve its tools (a local activity). */
  | { kind: 'prepare' }
  /** Carry the run's state into a new execution (Temporal suggested it), between waves. */
  | { kind: 'continue_as_new' }
  /** Dispatch these agents concurrently (the round's `timeout_ms` timers run when `timed`). */
  | { kind: 'dispatch'; items: WaveItem[]; dispatch: DispatchKind; options: DispatchOptions; timed: boolean }
  /** Ask the selector who speaks next (the `selectSpeaker` activity). */
  | { kind: 'select'; turn: SelectTurn }
  /** Ask the judge about these targets, concurrently. */
  | { kind: 'judge'; targets: JudgeTarget[] }
  /** Wait, clocks stopped, until a signal changes the situation. */
  | { kind: 'wait'; for: 'humans' | 'goal' | 'pause' }
  /** Wait, clocks stopped, for the decision on one request (or `stop`). */
  | { kind: 'await_decision'; requestId: string }
  /** The run ends. */
  | { kind: 'end'; end: RunEnd; output?: OutputVerdict };
