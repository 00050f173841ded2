/**
 * Secrets never come back (docs/security.md). The worker knows its secrets (`secrets/redactor.ts`:
 * its API keys, the values its tools file took from the environment, `Authorization` header values,
 * the payload keys). Every text that leaves an activity — a result, a warning, a failure's message
 * and details, whatever the HTTP status that produced it — passes {@link redactingActivities}, one
 * step for all activities, and every line the tools library logs passes {@link redactingLogger}. An endpoint that echoes the
 * key in a 200 body, a tool server whose stderr or HTTP error body repeats a token: the text reaches
 * the workflow, its history, the CLI and the log with `[redacted]` in its place.
 */
import { ApplicationFailure, CancelledFailure, Context } from '@temporalio/activity';
import type { Redactor } from '../secrets/redactor';
import type { ToolsLogger } from '../tools/log';

/**
 * A failure with its message and details redacted (a cancellation passes as it is): what an activity
 * throws leaves as a failure of the same type, retryable or not as it was.
 */
export function redactFailure(redactor: Redactor, err: unknown): unknown {
  if (err instanceof CancelledFailure) return err;
  if (err instanceof ApplicationFailure) {
    const message = redactor.text(err.message);
    const original = err.details ?? [];
    const details = redactor.value(original);
    if (message === err.message && details === original) return err;
    return ApplicationFailure.create({
      type: err.type ?? undefined,
      message,
      nonRetryable: err.nonRetryable === true,
      details: [...details],
      ...(err.nextRetryDelay !== undefined && err.nextRetryDelay !== null ? { nextRetryDelay: err.nextRetryDelay } : {}),
    });
  }
  if (err instanceof Error) {
    const message = redactor.text(err.message);
    return message === err.message ? err : ApplicationFailure.create({ type: err.name, message });
  }
  return redactor.text(String(err));
}

/**
 * The activities with one redaction step around each: what one returns and what one throws leave
 * without any secret the redactor knows. A result whose text changed loses its `resultHash` (the
 * workflow then hashes the text it received, which is the same rule as for a result without one).
 */
export function redactingActivities<T extends Record<string, (input: never) => Promise<unknown>>>(activities: T, redactor: Redactor): T {
  const wrapped: Record<string, unknown> = {};
  for (const [name, fn] of Object.entries(activities)) {
    const activity = async (input: never) => {
      redactHeartbeats(redactor);
      let result: unknown;
      try {
        result = await fn(input);
      } catch (err) {
        throw redactFailure(redactor, err);
      }
      const clean = redactor.value(result);
      if (clean !== result && clean && typeof clean === 'object' && 'resultHash' in clean) delete (clean as { resultHash?: unknown }).resultHash;
      return clean;
    };
    // the activity keeps its name: Temporal registers activities by the object's keys, the SDK logs the function's
    Object.defineProperty(activity, 'name', { value: fn.name || name });
    wrapped[name] = activity;
  }
  return wrapped as T;
}

/**
 * Makes the running activity's heartbeat details pass `redactor` on their way to the server: a model
 * call's details carry the text it is writing (docs/observability.md, "Live output"), which may echo
 * a secret, and a tool's carry what the tool chose. The SDK offers no interceptor for heartbeats, so
 * the activity's own context (one per execution) gets a `heartbeat` that redacts first.
 */
function redactHeartbeats(redactor: Redactor): void {
  let ctx: Context;
  try {
    ctx = Context.current();
  } catch {
    return; // called as a plain function (a test), with no activity around it: nothing heartbeats
  }
  const send = ctx.heartbeat;
  Object.defineProperty(ctx, 'heartbeat', { value: (details?: unknown) => send(redactor.value(details)), configurable: true });
}

/** A logger whose every line is redacted first (tool servers' stderr, reconnections). */
export function redactingLogger(logger: ToolsLogger, redactor: Redactor): ToolsLogger {
  return {
    info: (m) => logger.info(redactor.text(m)),
    warn: (m) => logger.warn(redactor.text(m)),
    error: (m) => logger.error(redactor.text(m)),
  };
}
