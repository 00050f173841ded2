/**
 * The `callTool` activity: one call of a worker tool (an MCP server's tool or a module tool), with
 * the attempt's deadline, Temporal's cancellation signal (which reaches the tool's `AbortSignal` and
 * the MCP request) and a heartbeat every second. The tool's own errors come back as text for the
 * model; a timeout or a broken transport fails the attempt so Temporal retries it (the call's
 * idempotency key, `<workflowId>/<runId>/<activityId>`, is the same on every attempt); a tool that
 * throws `ToolFatalError` ends the run.
 */
import { ApplicationFailure, CancelledFailure, Context } from '@temporalio/activity';
import { FAILURE_TYPES } from '../core/llm/contract';
import type { ToolCallInput, ToolCallOutcome } from '../core/llm/tool-contract';
import { observeToolCall } from '../telemetry/worker-metrics';
import { callIdOf } from './identity';
import { tracedToolCall } from '../telemetry/tracing';
import { callTool, ToolCallCancelledError, ToolCallRetryableError, type ToolRegistry } from '../tools';

/** Builds the `callTool` activity over the worker's tool registry. */
export function makeCallTool(registry: () => ToolRegistry | undefined) {
  // each attempt counted by tool and outcome (docs/observability.md, "Metrics"), and in its
  // `execute_tool` span when the worker traces (src/telemetry/tracing.ts)
  return function callToolActivity(input: ToolCallInput): Promise<Exclude<ToolCallOutcome, { kind: 'fatal' }>> {
    return observeToolCall(input.tool, () => tracedToolCall(input, () => callOnce(input)));
  };

  async function callOnce(input: ToolCallInput): Promise<Exclude<ToolCallOutcome, { kind: 'fatal' }>> {
    const ctx = Context.current();
    const tools = registry();
    if (!tools) {
      throw ApplicationFailure.create({ type: FAILURE_TYPES.retryable, message: `tool ${input.tool}: this worker has no tools file` });
    }
    const info = ctx.info;
    const timeout = info.startToCloseTimeoutMs > 0 ? info.startToCloseTimeoutMs : input.timeoutMs;
    try {
      const outcome = await callTool(tools, {
        name: input.tool,
        argumentsJson: input.argumentsJson,
        identity: {
          workflowId: input.workflowId,
          agent: input.agent,
          toolCallId: input.toolCallId,
          attempt: info.attempt,
          idempotencyKey: callIdOf(info, input.workflowId),
        },
        signal: ctx.cancellationSignal,
        deadlineMs: Date.now() + timeout,
        heartbeat: (details) => ctx.heartbeat(details),
      });
      if (outcome.kind === 'fatal') {
        throw ApplicationFailure.create({ type: FAILURE_TYPES.toolFatal, nonRetryable: true, message: outcome.message });
      }
      return outcome;
    } catch (err) {
      if (err instanceof ApplicationFailure) throw err;
      if (err instanceof ToolCallCancelledError || ctx.cancellationSignal.aborted) throw new CancelledFailure('CANCELLED');
      if (err instanceof ToolCallRetryableError) throw ApplicationFailure.create({ type: FAILURE_TYPES.retryable, message: err.message });
      throw ApplicationFailure.create({ type: FAILURE_TYPES.retryable, message: err instanceof Error ? err.message : String(err) });
    }
  }
}
