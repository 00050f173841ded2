/**
 * Why a run ends, and what follows from it: the run status, the priority that decides between
 * several ends that apply at once (lower wins, ties by candidate order), and the hint the CLI
 * prints after the final line. Reasons that are not conditions (an exit edge, a dead end, goals,
 * the hard loop cap, humans, budgets, failures) are listed here; a condition's reason is its
 * plugin's (`core/conditions/builtin/`, or one a user registered). Pure.
 */
import { pluginForReason } from '../conditions/registry';

/** Every final run status. */
export const RUN_STATUSES = ['completed', 'exhausted', 'budget_exceeded', 'cancelled', 'blocked', 'limit_reached', 'failed'] as const;

/** Final run status. */
export type RunStatus = (typeof RUN_STATUSES)[number];

/** What a reason means for the run. */
interface ReasonInfo {
  status: RunStatus;
  /** Lower wins when several ends apply at once. */
  priority: number;
  /** What the user can do about it, printed after the final line. */
  hint?: string;
}

/** Priority of a reason nobody ranks: last, like a failure. */
export const DEFAULT_PRIORITY = 5;

const CANCELLED = { status: 'cancelled', priority: DEFAULT_PRIORITY } as const;
const OVER_BUDGET = { status: 'budget_exceeded', priority: DEFAULT_PRIORITY } as const;
const FAILED = { status: 'failed', priority: DEFAULT_PRIORITY } as const;

/**
 * Every reason that is not a condition's.
 * @internal exported for tests
 */
export const RUN_REASONS = {
  exit: { status: 'completed', priority: 1 },
  goal_completed: { status: 'completed', priority: 0 },
  goal_blocked: { status: 'blocked', priority: 1 },
  goal_turn_limit: { status: 'limit_reached', priority: DEFAULT_PRIORITY, hint: 'raise goal.max_turns to continue' },
  goal_duration_limit: { status: 'limit_reached', priority: DEFAULT_PRIORITY, hint: 'raise goal.max_duration_ms to continue' },
  goal_never_reported: {
    status: 'limit_reached',
    priority: DEFAULT_PRIORITY,
    hint: 'no agent called the goal tool: list goal in an agent\'s tools and have its instructions say to report with it when the goal is done',
  },
  /** The hard loop cap; a `max_iterations` condition reports the same reason. */
  max_iterations: {
    status: 'exhausted',
    priority: 3,
    hint: 'raise collaboration.max_iterations (or the max_iterations condition) to allow more iterations',
  },
  /** A swarm or selector team's turn cap (docs/teams.md, "Turns"). */
  max_turns: {
    status: 'exhausted',
    priority: 3,
    hint: 'raise collaboration.max_turns to allow more turns',
  },
  dead_end: {
    status: 'exhausted',
    priority: 3,
    hint: 'no edge led on and no exit was taken; add an exit edge or loosen the when guards',
  },
  user_stop: CANCELLED,
  user_abort: CANCELLED,
  token_budget_exceeded: OVER_BUDGET,
  money_budget_exceeded: OVER_BUDGET,
  max_turns_exceeded: OVER_BUDGET,
  duration_budget_exceeded: OVER_BUDGET,
  tool_budget_exceeded: OVER_BUDGET,
  error: FAILED,
  fatal_error: FAILED,
  activity_failed: FAILED,
  team_failed: { ...FAILED, hint: 'troupe status <child workflow id> shows how the team ended' },
  token_window_exceeded: FAILED,
  truncated_output: { ...FAILED, hint: 'raise max_tokens for the agent named, or set on_truncated: accept to keep cut replies' },
  compaction_circuit_breaker: FAILED,
} as const satisfies Record<string, ReasonInfo>;

/** A stop reason: one of {@link RUN_REASONS}, or a condition plugin's `reason`. */
export type StopReason = keyof typeof RUN_REASONS | (string & {});

function runReason(reason: string): ReasonInfo | undefined {
  return Object.prototype.hasOwnProperty.call(RUN_REASONS, reason) ? RUN_REASONS[reason as keyof typeof RUN_REASONS] : undefined;
}

/**
 * Run status for a stop reason: the table's, else the condition plugin's (default `completed`).
 * @internal exported for tests
 */
export function statusForReason(reason: StopReason): RunStatus {
  return runReason(reason)?.status ?? pluginForReason(reason)?.status ?? 'completed';
}

/** Priority of a reason: the table's, else the condition plugin's, else {@link DEFAULT_PRIORITY}. */
export function priorityOf(reason: StopReason): number {
  return runReason(reason)?.priority ?? pluginForReason(reason)?.priority ?? DEFAULT_PRIORITY;
}

/** The hint printed after a run that ended for this reason, if there is one. */
export function hintFor(reason: StopReason): string | undefined {
  return runReason(reason)?.hint ?? pluginForReason(reason)?.hint;
}

/**
 * Whether a condition's reason ends the run even while humans are awaited or the goal is paused:
 * its plugin is `hard`, a limit such as a timer rather than a judgement of results that a human's
 * answer might change.
 */
export function endsWhileWaiting(reason: StopReason): boolean {
  return pluginForReason(reason)?.hard === true;
}
