/**
 * The contract of an agent that uses worker tools (MCP servers and module tools): each model call
 * and each tool call is its own activity, driven by the workflow. Plain JSON in, plain JSON out.
 */

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

/** A call the model asked for. `arguments` is the raw JSON text the model wrote. */
export interface ToolCallRequest {
  id: string;
  name: string;
  arguments: string;
  /** The model wrote the call as text in its reply instead of making it (`core/llm/follow-ups.ts`); an approval request says so. */
  asText?: true;
}

/** The messages of a dispatch that uses tools: the prompt, then the model's calls and their results. */
export type LoopMessage =
  | { role: 'system' | 'user' | 'assistant'; content: string }
  | { role: 'assistant'; content: string | null; toolCalls: ToolCallRequest[] }
  | { role: 'tool'; toolCallId: string; content: string };

/** One tool call, run by the worker that offers the tool. */
export interface ToolCallInput {
  workflowId: string;
  agent: string;
  /** The model-facing name. */
  tool: string;
  argumentsJson: string;
  toolCallId: string;
  /** The call's start-to-close timeout (the tool's own). */
  timeoutMs: number;
}

/** A tool call as the transcript and `troupe run` show it. */
export interface ToolCallRecord {
  /** The name in the role file (`files.write_file`), or the model's name for an unknown tool. */
  tool: string;
  /** The arguments, in brief. */
  arguments: string;
  ok: boolean;
  /** The result or the error, in brief. */
  result: string;
  durationMs: number;
  /** `false`: the call never ran (the budget refused it, a human rejected it, its arguments could not be shown). */
  ran?: false;
}
