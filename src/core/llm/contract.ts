/**
 * The contract between the workflow and the LLM activities: plain JSON in, plain JSON out.
 * Prompts are built in the pure core; activities only perform the calls.
 */
import type { UsageLedger } from '../budgets/ledger';
import type { CompiledGraph, ResolvedModel } from '../graph/types';
import type { TokenCounts } from '../conditions/view';
import type { LoopMessage, ToolCallRecord, ToolCallRequest, ToolDefinition, WorkerFunctionTool } from './tool-contract';

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

/**
 * What a dispatch offers the model, the same for each of its model calls: what the decision after
 * every model turn (`next-step.ts`) reads a reply against. Built in one place (`offer.ts`,
 * `turnOffer`), for the agent activity and the tool dispatch alike; an empty list is left out, since
 * the offer is in every agent call's input in the history.
 */
export interface TurnOffer {
  /** The built-in tools offered (`goal`, `signal`), answered by the loop itself; absent: none. */
  builtins?: Array<'goal' | 'signal'>;
  /** The worker tools offered, as the model sees them; `gated`: `approval.tools` names the tool. Absent: none. */
  workerTools?: Array<{ definition: WorkerFunctionTool; gated?: true }>;
  /** The agent's `transfer_to_<target>` tools (docs/teams.md, "Handoffs"); absent: none. */
  handoffs?: HandoffTool[];
  /** Tool rounds before the closing call (`tool_choice: none`): the agent's `max_tool_rounds`. */
  maxToolRounds: number;
  /** Tool calls of one reply that run (`max_parallel_tool_calls`); the others get an error text. */
  maxParallelToolCalls: number;
  /** `required`: the first reply of the dispatch must call a tool (`tool_choice: required`, enforced once by troupe). */
  toolChoice?: 'required';
}

/** Where a dispatch is: the tool rounds it has run, and whether its next model call is the closing one. */
export interface Turn {
  round: number;
  /** The next call is the closing call (`tool_choice: none`) before `max_tool_rounds`: the tool budget refused a call. */
  closing?: true;
}

/** How the loop carries out one call of a reply (`next-step.ts` decides). */
export type CallPlan =
  /** A built-in tool (`goal`, `signal`): answered by `handleToolCall`. */
  | { run: 'builtin' }
  /** A worker tool: its `callTool` activity, after a human's approval when `gated`. */
  | { run: 'worker'; gated?: true }
  /** A transfer: nothing runs; `answer` is its tool result (made, or refused as a second transfer). */
  | { run: 'transfer'; answer: string }
  /** A tool the agent was not offered: nothing runs; the model is told what it has. */
  | { run: 'unknown' }
  /** Past the reply's `max_parallel_tool_calls`: nothing runs; the model is told to ask for fewer. */
  | { run: 'past_limit' };

/** A call of a reply, with its id made reliable, and how it is carried out. */
export type PlannedCall = ToolCallRequest & CallPlan;

/**
 * What happens after a model turn (`next-step.ts`), as the OpenAI Agents runner's `NextStep`: the
 * agent activity and the workflow's tool dispatch carry it out and decide nothing themselves.
 */
export type NextStep =
  /** Ask once more within the same model call (docs/semantics.md, "Agent calls"): send the reply and `request`. */
  | { kind: 'ask_again'; reply: string; request: string }
  /** The reply is the agent's answer: `text` is its final text (continuations joined, refusal, cut to its bound). */
  | { kind: 'final'; text: string; finishReason?: string }
  /** Run these calls, answer each in order, and call the model again. `text`: the reply's own text. */
  | { kind: 'run_tools'; text: string; calls: PlannedCall[]; finishReason?: string }
  /** Run these calls (the transfer's is answered), then the turn ends with `transfer`; `text` is the final text. */
  | { kind: 'hand_off'; text: string; calls: PlannedCall[]; transfer: Extract<ToolEvent, { tool: 'handoff' }>; finishReason?: string };

/** A step that ends a model call: what the model-call activity returns ({@link NextStep} but `ask_again`, which it carries out). */
export type SettledStep = Exclude<NextStep, { kind: 'ask_again' }>;

export interface AgentCallInput {
  workflowId: string;
  agent: string;
  model: ResolvedModel;
  messages: ChatMessage[];
  /** The tools offered: built-ins and transfers (an agent with worker tools goes the tool dispatch instead). */
  offer: TurnOffer;
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
   * the native SHA-256 so the workflow does not hash in JS. Absent from tool dispatches' results and from
   * results recorded by earlier workers; the workflow then hashes the text itself.
   */
  resultHash?: string;
  /** A team agent's result: its child run and that run's usage, which counts in the parent's (docs/teams.md, "Nested teams"). */
  team?: { workflowId: string; usage: UsageLedger };
}

/** One model call of the tool dispatch (an agent with worker tools): the conversation so far and where the dispatch is. */
export interface ModelCallInput {
  workflowId: string;
  agent: string;
  model: ResolvedModel;
  messages: LoopMessage[];
  offer: TurnOffer;
  turn: Turn;
  /** JSON Schema to request as `response_format: json_schema` (schema retries). */
  responseSchema?: Record<string, unknown>;
  timeoutMs: number;
}

/** What one model call came to: the step the workflow carries out, and what the call cost. */
export interface ModelCallResult {
  next: SettledStep;
  usage: TokenCounts;
  model: string;
  requestId?: string;
  warnings: string[];
  /** Requests the call made, when more than one (a follow-up asked within the call: `core/llm/follow-ups.ts`). */
  llmCalls?: number;
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
