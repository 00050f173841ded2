/**
 * One tool call, as the call activity performs it: find the tool, parse and check the arguments, run
 * it within the attempt's time while heartbeating, and turn what happened into text for the model.
 * Everything that is the tool's answer (bad arguments, an unknown tool, a tool that threw, an MCP
 * result marked `isError`, a reply the MCP client refused) comes back as an `error` outcome and is
 * never retried; only a timeout or a broken transport is thrown, as {@link ToolCallRetryableError},
 * for the activity's retry policy. A tool that throws `ToolFatalError` gives a `fatal` outcome, and a
 * cancelled call throws {@link ToolCallCancelledError}.
 */
import { BUILTIN_TOOL_TEXTS } from '../core/llm/builtin-tools';
import { TOOL_ARGUMENT_TEXTS } from '../core/llm/tool-arguments';
import type { ToolCallOutcome } from '../core/llm/tool-contract';
import { parseArgumentsJson } from './arguments';
import { isToolFatalError, type ToolContext } from './define';
import { classifyMcpError } from './mcp-errors';
import { McpStartError } from './mcp-connection';
import type { RegisteredMcpTool, RegisteredModuleTool, ToolRegistry } from './registry';
import { boundedText, mcpResultText, moduleResultText } from './result-text';

/** Timing of a call. */
const CALL_SETTINGS = {
  heartbeatIntervalMs: 1000,
  /** Each MCP request, and a module tool's own deadline, end this long before the attempt's. */
  deadlineMarginMs: 1000,
  minRequestTimeoutMs: 100,
  /** The `_meta` key that carries the idempotency key to an MCP server. */
  idempotencyMetaKey: 'troupe/idempotencyKey',
} as const;

/**
 * Texts of a call, so tests can pin them.
 * @internal exported for tests
 */
export const CALL_TEXTS = {
  unknownTool: BUILTIN_TOOL_TEXTS.errorUnknownTool,
  badArguments: TOOL_ARGUMENT_TEXTS.invalid,
  failed: (tool: string, message: string) => `Error: tool '${tool}' failed: ${message}`,
  fatal: (tool: string, message: string) => `tool ${tool} ended the run: ${message}`,
  /**
   * A call out of time: its `timeout_ms`, the margin kept to report it, and which attempt this was
   * (a timeout is retried, up to `retries` more times).
   */
  timedOut: (tool: string, timeoutMs: number, allowedMs: number, attempt: number, attempts: number) =>
    `tool ${tool} did not finish within its timeout_ms of ${timeoutMs} ms (it is stopped ${timeoutMs - allowedMs} ms ` +
    `earlier to report it); attempt ${attempt} of ${attempts}`,
  transport: (tool: string, message: string) => `tool ${tool}: ${message}`,
  cancelled: (tool: string) => `tool ${tool} was cancelled`,
} as const;

/** Who is calling, for the tool's context and the MCP request's metadata. */
interface ToolCallIdentity {
  workflowId: string;
  agent: string;
  toolCallId: string;
  /** 1 on the first attempt. */
  attempt: number;
  /** Unique per call, the same on each of its attempts (the lead builds it from the activity's ids). */
  idempotencyKey: string;
}

/**
 * One call: the model-facing name, the model's argument text, and the attempt's limits.
 * @internal exported for tests
 */
export interface ToolCallRequest {
  name: string;
  argumentsJson: string;
  identity: ToolCallIdentity;
  /** Aborted when the attempt is cancelled (the activity's cancellation signal). */
  signal: AbortSignal;
  /** Epoch ms at which the attempt's time is up; default: now + the tool's timeout. */
  deadlineMs?: number;
  /** Called every second while the tool runs, and by the tool itself with progress details. */
  heartbeat(details?: unknown): void;
}

/** A transient failure (a timeout, a broken transport): the activity should fail and be retried. */
export class ToolCallRetryableError extends Error {
  override readonly name = 'ToolCallRetryableError';
  constructor(
    message: string,
    readonly reason: 'timeout' | 'transport',
  ) {
    super(message);
  }
}

/** The call was cancelled through its signal; `cause` is the signal's reason. */
export class ToolCallCancelledError extends Error {
  override readonly name = 'ToolCallCancelledError';
}

/** Calls a tool of `registry` (see the module doc for what is returned and what is thrown). */
export async function callTool(registry: ToolRegistry, request: ToolCallRequest): Promise<ToolCallOutcome> {
  const { name } = request;
  const tool = registry.get(name);
  if (!tool) return { kind: 'error', text: CALL_TEXTS.unknownTool(name, registry.definitions().map((d) => d.name)) };
  const parsed = parseArgumentsJson(request.argumentsJson);
  const checked = parsed.ok && tool.validate ? tool.validate(parsed.value) : parsed;
  if (!checked.ok) return { kind: 'error', text: CALL_TEXTS.badArguments(name, checked.errors) };
  if (request.signal.aborted) throw cancelled(name, request.signal);
  const deadlineMs = request.deadlineMs ?? Date.now() + tool.definition.timeoutMs;
  let details: unknown;
  const beat = (d?: unknown) => {
    if (d !== undefined) details = d;
    try {
      request.heartbeat(details);
    } catch {
      // a heartbeat that cannot be sent must not become an uncaught error in a timer
    }
  };
  beat();
  // an interval beat repeats the tool's last details, so it does not erase a checkpoint
  const timer = setInterval(() => beat(), CALL_SETTINGS.heartbeatIntervalMs);
  try {
    return tool.kind === 'mcp'
      ? await callMcpTool(tool, checked.value, request, deadlineMs)
      : await callModuleTool(tool, checked.value, request, deadlineMs, beat);
  } finally {
    clearInterval(timer);
  }
}

function cancelled(tool: string, signal: AbortSignal): ToolCallCancelledError {
  return new ToolCallCancelledError(CALL_TEXTS.cancelled(tool), { cause: signal.reason });
}

/** The timeout text of a call of `definition` that had `allowedMs` of its `timeout_ms`. */
function timeoutText(definition: { name: string; timeoutMs: number; retries: number }, request: ToolCallRequest, allowedMs: number): string {
  return CALL_TEXTS.timedOut(definition.name, definition.timeoutMs, allowedMs, request.identity.attempt, 1 + definition.retries);
}

function timeLeft(deadlineMs: number): number {
  return Math.max(CALL_SETTINGS.minRequestTimeoutMs, deadlineMs - Date.now() - CALL_SETTINGS.deadlineMarginMs);
}

async function callMcpTool(tool: RegisteredMcpTool, args: unknown, request: ToolCallRequest, deadlineMs: number): Promise<ToolCallOutcome> {
  const { name, signal } = request;
  const params = {
    name: tool.tool,
    arguments: args as Record<string, unknown>,
    _meta: { [CALL_SETTINGS.idempotencyMetaKey]: request.identity.idempotencyKey },
  };
  let requestTimeoutMs = 0;
  try {
    const result = await tool.server.callTool(params, {
      signal,
      timeoutMs: () => (requestTimeoutMs = timeLeft(deadlineMs)),
      // a tool that may not run twice is not sent again after the server may have run it
      resendAfterPossibleRun: tool.definition.retries > 0,
    });
    return { kind: result.isError === true ? 'error' : 'ok', ...boundedText(mcpResultText(result)) };
  } catch (err) {
    // an abort and a timeout reject with the same MCP error code: only the signal tells them apart
    if (signal.aborted) throw cancelled(name, signal);
    if (err instanceof McpStartError) throw new ToolCallRetryableError(CALL_TEXTS.transport(name, err.message), 'transport');
    const failure = classifyMcpError(err);
    switch (failure.kind) {
      case 'answer':
        return { kind: 'error', ...boundedText(CALL_TEXTS.failed(name, failure.message)) };
      case 'timeout':
        throw new ToolCallRetryableError(timeoutText(tool.definition, request, requestTimeoutMs), 'timeout');
      case 'transport':
      case 'connection_lost':
        throw new ToolCallRetryableError(CALL_TEXTS.transport(name, failure.message), 'transport');
      default: {
        const never: never = failure;
        throw never;
      }
    }
  }
}

async function callModuleTool(
  tool: RegisteredModuleTool,
  args: unknown,
  request: ToolCallRequest,
  deadlineMs: number,
  heartbeat: (details?: unknown) => void,
): Promise<ToolCallOutcome> {
  const { name, signal, identity } = request;
  const controller = new AbortController();
  const allowedMs = timeLeft(deadlineMs);
  let timedOut = false;
  const onAbort = () => controller.abort(signal.reason);
  signal.addEventListener('abort', onAbort, { once: true });
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort(new Error(timeoutText(tool.definition, request, allowedMs)));
  }, allowedMs);
  const ctx: ToolContext = { signal: controller.signal, heartbeat, ...identity };
  // a tool that ignores its signal is not waited for: the call ends when the signal does
  let stop: () => void = () => undefined;
  const stopped = new Promise<never>((_, reject) => {
    stop = () => reject(controller.signal.reason);
    controller.signal.addEventListener('abort', stop, { once: true });
  });
  stopped.catch(() => undefined);
  try {
    const value = await Promise.race([Promise.resolve().then(() => tool.loaded.tool.execute(args as never, ctx)), stopped]);
    const r = moduleResultText(value);
    return r.ok ? { kind: 'ok', ...boundedText(r.text) } : { kind: 'error', text: r.text };
  } catch (err) {
    if (signal.aborted) throw cancelled(name, signal);
    if (timedOut) throw new ToolCallRetryableError(timeoutText(tool.definition, request, allowedMs), 'timeout');
    const message = typeof (err as Error | null)?.message === 'string' ? (err as Error).message : String(err);
    if (isToolFatalError(err)) return { kind: 'fatal', message: CALL_TEXTS.fatal(name, message) };
    return { kind: 'error', ...boundedText(CALL_TEXTS.failed(name, message)) };
  } finally {
    clearTimeout(timer);
    signal.removeEventListener('abort', onAbort);
    controller.signal.removeEventListener('abort', stop);
  }
}
