/**
 * The contract between the workflow and the LLM activities: plain JSON in, plain JSON out.
 * Prompts are built in the pure core; activities only perform the calls.
 */
import type { ResolvedModel } from '../graph/types';
import type { TokenCounts } from '../termination/view';

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
  | { tool: 'signal'; type: string; payload?: unknown; summary?: string };

export interface AgentCallInput {
  workflowId: string;
  agent: string;
  model: ResolvedModel;
  messages: ChatMessage[];
  /** The built-in tools offered (`goal`, `signal`). */
  tools: Array<'goal' | 'signal'>;
  /** Tool rounds before the closing call (`tool_choice: none`); 4 when absent. */
  maxToolRounds?: number;
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
  kind: 'agent' | 'judge' | 'compaction';
}

/** ApplicationFailure type names used by the activities. */
export const FAILURE_TYPES = {
  fatal: 'TroupeFatalLlmError',
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

/** What the worker resolves before a run's first call: the endpoints of every model it will use. */
export interface PrepareInput {
  workflowId: string;
  /** Each model the run will call, with who calls it (`agent writer`, `judge`). */
  models: Array<{ who: string; model: ResolvedModel }>;
}

/** The worker's answer: the run may start (a refusal is a non-retryable failure instead). */
export interface PrepareResult {
  ok: true;
}

/**
 * A worker tool (an MCP server's tool or a module tool) as the workflow records it when a run starts:
 * what the model is offered and how each call is scheduled. Plain JSON, so the resolution can be kept
 * in history and replay never depends on the tools a worker offers later.
 */
export interface ToolDefinition {
  /** The name the model sees and calls, `^[a-zA-Z0-9_-]{1,64}$` (`files__write_file`, `fetch_page`). */
  name: string;
  /** The name role and tools files use (`files.write_file`, `fetch_page`). */
  yamlName: string;
  description: string;
  /** JSON Schema (an object schema) of the call's arguments. */
  parameters: Record<string, unknown>;
  /** Ask the provider for strict arguments; only module tools may set it (MCP schemas are rarely strict-safe). */
  strict?: boolean;
  /** Start-to-close timeout of one call attempt, in milliseconds. */
  timeoutMs: number;
  /** Extra attempts after a transient (transport) failure; 0 for tools that must not run twice. */
  retries: number;
}

/** What one agent may call: the built-ins it listed and the worker tools its other names resolved to, in order. */
export interface AgentToolSet {
  builtins: Array<'goal' | 'signal'>;
  tools: ToolDefinition[];
}

/**
 * The outcome of one worker tool call, as the call activity returns it. `ok` and `error` are both text
 * for the model (an error is the tool's answer, never retried); `truncatedBytes` says the text was cut,
 * so the workflow can record a warning. `fatal` is a tool asking to end the run (`failed/fatal_error`).
 */
export type ToolCallOutcome =
  | { kind: 'ok'; text: string; truncatedBytes?: number }
  | { kind: 'error'; text: string; truncatedBytes?: number }
  | { kind: 'fatal'; message: string };

/** A worker tool as an OpenAI chat-completions function tool (structurally `ChatCompletionFunctionTool`). */
export interface WorkerFunctionTool {
  type: 'function';
  function: { name: string; description: string; parameters: Record<string, unknown>; strict?: boolean };
}

/** The function tool the model is offered for `def`; `strict` is sent only when the tool asked for it. */
export function workerFunctionTool(def: ToolDefinition): WorkerFunctionTool {
  return {
    type: 'function',
    function: {
      name: def.name,
      description: def.description,
      parameters: def.parameters,
      ...(def.strict === true ? { strict: true } : {}),
    },
  };
}
