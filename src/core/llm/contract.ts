/**
 * The contract between the workflow and the LLM activities: plain JSON in, plain JSON out.
 * Prompts are built in the pure core; activities only perform the calls.
 */
import type { UsageLedger } from '../budgets/ledger';
import type { CompiledGraph, ResolvedModel } from '../graph/types';
import type { TokenCounts } from '../conditions/view';
import type { ToolCallRecord, ToolDefinition } from './tool-contract';

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

/** The goal as the `goal` tool sees it during one activity (validated against, never mutated). */
export interface GoalSnapshot {
  objective: string;
  successCriteria?: string;
  constraints?: string;
  status: 'active' | 'completed' | 'blocked' | 'paused' | 'limit_reached';
  turnCount: number;
  maxTurns: number;
}

/** A built-in tool call the model made, already validated; applied by the workflow in wave order. */
export type ToolEvent =
  | {
      tool: 'goal';
      action: 'update_status' | 'update_objective' | 'add_evidence';
      status?: 'active' | 'completed' | 'blocked' | 'paused';
      objective?: string;
      evidence?: string;
      reason?: string;
    }
  | { tool: 'signal'; type: string; payload?: unknown; summary?: string }
  /** A `transfer_to_<target>` call (docs/teams.md, "Handoffs"): the first of a reply ends the turn. */
  | { tool: 'handoff'; target: string; message?: string; refused?: string[] };

/** A `transfer_to_<target>` tool offered to an agent: its tool name, target agent (or `user`) and description. */
export interface HandoffTool {
  name: string;
  target: string;
  description: string;
}

export interface AgentCallInput {
  workflowId: string;
  agent: string;
  model: ResolvedModel;
  messages: ChatMessage[];
  /** The built-in tools offered (`goal`, `signal`). */
  tools: Array<'goal' | 'signal'>;
  /** The agent's `transfer_to_<target>` tools (docs/teams.md, "Handoffs"); none when absent. */
  handoffs?: HandoffTool[];
  /** Tool rounds before the closing call (`tool_choice: none`); 4 when absent. */
  maxToolRounds?: number;
  /** `required`: the first reply must call a tool (`tool_choice: required`, enforced once by troupe). */
  toolChoice?: 'required';
  goal?: GoalSnapshot;
  /** JSON Schema to request as `response_format: json_schema` (schema retries). */
  responseSchema?: Record<string, unknown>;
  /** Activity start-to-close timeout, so each HTTP request can use the remaining time minus 1 s. */
  timeoutMs: number;
}

export interface AgentCallResult {
  /** Final assistant text (cut to 256 KiB with a marker). */
  text: string;
  toolEvents: ToolEvent[];
  usage: TokenCounts;
  /** Number of chat-completions requests made (tool rounds included). */
  llmCalls: number;
  model: string;
  requestId?: string;
  finishReason?: string;
  warnings: string[];
  /** The worker tools this dispatch called, in order (dispatches that use worker tools). */
  toolCalls?: ToolCallRecord[];
  /**
   * `hashResult` of the text's recorded form (`recordedForm`), computed by the agent activity with
   * the native SHA-256 so the workflow does not hash in JS. Absent from tool-loop results and from
   * results recorded by earlier workers; the workflow then hashes the text itself.
   */
  resultHash?: string;
  /** A team agent's result: its child run and that run's usage, which counts in the parent's (docs/teams.md, "Nested teams"). */
  team?: { workflowId: string; usage: UsageLedger };
}

/**
 * The `selectSpeaker` activity's input (docs/teams.md, "Selector teams"): the rendered selector
 * prompt, and the names it may answer with.
 */
export interface SelectSpeakerInput {
  workflowId: string;
  model: ResolvedModel;
  /** The selector prompt with `{roles}`, `{participants}` and `{history}` filled in. */
  prompt: string;
  /** Every participant, in list order (a mention of one that is not a candidate gets feedback). */
  participants: string[];
  /** The names the model may choose, in list order (the previous speaker removed unless repeats are allowed). */
  candidates: string[];
  /** The previous speaker: named in the question after the prompt, and in the feedback on a banned repeat. */
  previous?: string;
  /** Model calls before giving up (`selector.max_attempts`). */
  maxAttempts: number;
  timeoutMs: number;
}

/** What the selector answered: a candidate, or none after `maxAttempts` (the workflow falls back). */
export interface SelectSpeakerResult {
  speaker?: string;
  /** Model calls made. */
  attempts: number;
  usage: TokenCounts;
  /** The replies that named no valid candidate, each cut to 200 characters, oldest first. */
  rejected: string[];
}

export interface JudgeInput {
  workflowId: string;
  agent: string;
  model: ResolvedModel;
  criteria: string;
  task: string;
  result: string;
  timeoutMs: number;
}

export interface JudgeResult {
  converged: boolean;
  reason: string;
  usage: TokenCounts;
  requestId?: string;
}

export interface CompactionInput {
  workflowId: string;
  agent: string;
  model: ResolvedModel;
  /** Previous rolling summary, if any. */
  summary?: string;
  /** Older entries to fold into the summary. */
  entries: string[];
  /** Target size of the summary in tokens. */
  maxSummaryTokens: number;
  timeoutMs: number;
}

export interface CompactionResult {
  summary: string;
  usage: TokenCounts;
}

/** Failure details carried by non-retryable LLM errors (ApplicationFailure details[0]). */
export interface LlmFailureDetails {
  status?: number;
  requestId?: string;
  message: string;
  kind: 'agent' | 'judge' | 'compaction' | 'selector';
}

/** ApplicationFailure type names used by the activities. */
export const FAILURE_TYPES = {
  fatal: 'TroupeFatalLlmError',
  /** A tool threw `ToolFatalError`: the run ends `failed/fatal_error`. */
  toolFatal: 'TroupeToolFatalError',
  retryable: 'TroupeRetryableLlmError',
} as const;

/**
 * HTTP headers the LLM activities add to every chat-completions request so an endpoint can tell
 * callers apart (the test stub and the offline model script replies per agent and per kind). Their
 * values are written with {@link encodeHeaderValue}; readers use {@link decodeHeaderValue}.
 */
export const TROUPE_HEADERS = {
  agent: 'x-troupe-agent',
  kind: 'x-troupe-kind',
  workflowId: 'x-troupe-workflow-id',
  /**
   * The call's identity, `<workflowId>/<runId>/<activityId>`: the same for every attempt of one
   * activity, different for every other call (the idempotency key tools receive, too).
   */
  callId: 'x-troupe-call-id',
  /** The activity attempt, from 1. */
  attempt: 'x-troupe-attempt',
} as const;

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * A header-safe form of any text (percent-encoded UTF-8). HTTP header values must be bytes below 256,
 * so an agent named `研究者` or a workflow id with accents would otherwise make the request fail before
 * it is sent. ASCII names without reserved characters stay as they are (`writer` → `writer`).
 */
export function encodeHeaderValue(value: string): string {
  // a lone surrogate has no UTF-8 form (encodeURIComponent would throw): it becomes U+FFFD
  return encodeURIComponent(value.replace(LONE_SURROGATE, '\uFFFD'));
}

/** The text {@link encodeHeaderValue} encoded; a value that is not valid percent-encoding is returned as it is. */
export function decodeHeaderValue(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

/**
 * What the worker resolves before a run's first call: the endpoints of the models that name their own,
 * and the worker tools each agent asks for.
 */
export interface PrepareInput {
  workflowId: string;
  /** Each model that names its own endpoint or key variable, with who calls it (`agent writer`, `judge`). */
  models: Array<{ who: string; model: ResolvedModel }>;
  /** The worker tools each agent lists (`files.*`, `fetch_page`), built-ins left out. */
  tools?: Array<{ agent: string; names: string[] }>;
  /** The graph, when it has regexes, for the worker's check that needs Node (catastrophic backtracking). */
  graph?: CompiledGraph;
}

/**
 * The worker's answer, recorded in the history so a replay never asks again: each agent's worker
 * tools. A refused endpoint or a tool no worker offers is a non-retryable failure instead.
 */
export interface PrepareResult {
  ok: true;
  tools?: Record<string, ToolDefinition[]>;
}
