/**
 * Versions of the run workflow's behaviour. A change to what the workflow does (which commands it
 * issues, in which order) is guarded here so that runs started on an older troupe replay and finish
 * with the behaviour they started with (docs/architecture.md, "Changing the workflow"). A run asks
 * once, at its start, which version it runs: a new run records the newest patch marker in its
 * history, and a run replayed from a history without it keeps the older behaviour to its end.
 */
import { patched } from '@temporalio/workflow';
import { CURRENT_RULES, RULES_0_1, RULES_0_2, type DecisionRules } from '../core/ending/decide';

/** Patch ids, one per release that changed the workflow's behaviour. Never rename or reuse one. */
export const PATCHES = {
  /**
   * troupe 0.2: condition ends wait for open requests and a paused goal; the loop cap is checked
   * before every wave; `timeout_ms` timers cover judge calls; regex matchers read line structure;
   * endpoints and tools are resolved by the worker at run start; unanswered requests are reported;
   * waits for humans carry labelled timers and the run keeps its waiting flag and search attributes
   * up to date; the start no longer writes the memo the client already set; a model call lost with
   * its worker on every attempt is dispatched again; regexes run on bounded text; a wave runs on the
   * lean path (fewer promises per activation, so commands of one activation may come in another
   * order).
   */
  v0_2: 'troupe-0.2',
  /**
   * troupe 0.3: what a human approves is what runs (an answer never decides a gate, a decision that
   * overtakes the result opening its request is kept until it opens, a gated call's arguments are
   * shown whole and run as shown); a reply's tool calls are bounded; the worker checks the graph it
   * is given and a start input cannot carry state; a refused tool call ends the run even when the
   * agent exits; replies are read as real models write them (trimmed for regexes, a cut reply is not
   * a result, a goal never reported says so).
   */
  v0_3: 'troupe-0.3',
} as const;

/** The behaviour a run follows, fixed at its start. */
export interface RunVersion {
  /** The patch that decided this version, if any (`undefined` = troupe 0.1). */
  patch?: string;
  rules: DecisionRules;
  /** `timeout_ms` timers cover the judge calls of a wave, not only its agents. */
  timerCoversJudge: boolean;
  /** Regex matchers read the result with its line structure kept. */
  regexLines: boolean;
  /** The worker resolves endpoints (and tools) before the first call. */
  prepareAtStart: boolean;
  /** Requests still open when the run ends are listed in the RunResult with a warning. */
  reportUnanswered: boolean;
  /**
   * Waits carry labelled timers; the waiting flag, status and reason go to troupe's search attributes
   * (or the memo); the run does not write `troupeStatus: running` at its start (the client set it).
   */
  publishes: boolean;
  /** A model call whose every attempt was lost with its worker is dispatched again (`failures.ts`). */
  redispatchLost: boolean;
  /** Output-schema `pattern`s are not tested on strings longer than `REGEX_TEXT_LIMIT`. */
  boundedPatterns: boolean;
  /**
   * The round loop and its waves run on the lean path (`workflows/lean.ts`): decisions that need no
   * wait, the continue-as-new check, judging and message building without a promise each, one
   * promise per call (BENCHMARKS.md, B1 and B5). Within one activation, commands of concurrent
   * branches (a timer's cancellation, sibling calls) may be issued in another order than before.
   */
  leanWaves: boolean;
  /**
   * Human gates are exact (`core/humans/requests.ts` `DecisionRules.exactGates`), and a gated tool
   * call's arguments are read strictly (`core/llm/tool-arguments.ts`), shown whole and run as shown.
   */
  exactGates: boolean;
  /**
   * A reply's tool calls past `max_parallel_tool_calls` are refused, and the run's pending tool calls
   * stay under {@link MAX_PENDING_TOOL_CALLS}.
   */
  boundedReplies: boolean;
  /** The worker checks the graph at the run's start (always asked), and a start input may not carry state. */
  checksGraph: boolean;
  /**
   * Replies as real models write them: `regex` matchers read the reply trimmed at both ends; a reply
   * still cut by `max_tokens` after its continuation ends the run `failed/truncated_output` (unless
   * `on_truncated: accept`); a goal no agent ever reported on ends `goal_never_reported`.
   */
  trimsReplies: boolean;
}

/**
 * Most tool calls one run keeps scheduled at once; the rest wait for a slot. Temporal fails every
 * workflow task of a run past 2,000 pending activities: with at most 256 agents (one model call or
 * compaction each) and their judges, 1,024 tool calls keep a wave under it (docs/security.md).
 */
export const MAX_PENDING_TOOL_CALLS = 1024;

const V0_1: RunVersion = {
  rules: RULES_0_1,
  timerCoversJudge: false,
  regexLines: false,
  prepareAtStart: false,
  reportUnanswered: false,
  publishes: false,
  redispatchLost: false,
  boundedPatterns: false,
  leanWaves: false,
  exactGates: false,
  boundedReplies: false,
  checksGraph: false,
  trimsReplies: false,
};

const V0_2: RunVersion = {
  patch: PATCHES.v0_2,
  rules: RULES_0_2,
  timerCoversJudge: true,
  regexLines: true,
  prepareAtStart: true,
  reportUnanswered: true,
  publishes: true,
  redispatchLost: true,
  boundedPatterns: true,
  leanWaves: true,
  exactGates: false,
  boundedReplies: false,
  checksGraph: false,
  trimsReplies: false,
};

const V0_3: RunVersion = {
  ...V0_2,
  patch: PATCHES.v0_3,
  rules: CURRENT_RULES,
  exactGates: true,
  boundedReplies: true,
  checksGraph: true,
  trimsReplies: true,
};

/** The version of this run. Call it once, first thing in the workflow. */
export function runVersion(): RunVersion {
  if (patched(PATCHES.v0_3)) return V0_3;
  return patched(PATCHES.v0_2) ? V0_2 : V0_1;
}
