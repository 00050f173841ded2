/**
 * What a module tool is: the types a tools module writes against, `defineTool` (which only adds
 * types) and `ToolFatalError` (thrown by a tool to end the run). A module's `tools` export, or its
 * default export, is an array of such tools.
 */
import type { z } from 'zod';

/** A JSON value a tool may return (it reaches the model as its JSON text). */
type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/** What `execute` may return: text for the model, or a JSON value sent as JSON text. */
type ToolReturn = JsonValue | undefined | void;

/** What a running call knows and may do. */
export interface ToolContext {
  /** Aborted when the run or the call is cancelled, or when the call's time is up; stop promptly. */
  signal: AbortSignal;
  /** Reports progress so a long call is not taken for a dead worker; called every second anyway. */
  heartbeat(details?: unknown): void;
  workflowId: string;
  agent: string;
  /** The provider's id of this call (may be missing or reused by some providers: not a key). */
  toolCallId: string;
  /** 1 for the first attempt, more when the call is retried after a transient failure. */
  attempt: number;
  /** Unique per call and the same on every attempt of it: use it to make side effects run once. */
  idempotencyKey: string;
}

interface ToolCommon {
  /** The model-facing name, `^[a-zA-Z0-9_-]{1,64}$`. */
  name: string;
  description: string;
  /** Start-to-close timeout of one attempt (default 60000). */
  timeout_ms?: number;
  /** Extra attempts after a transient failure such as a timeout (default 2). */
  retries?: number;
  /** Ask the provider to hold the model to the schema (needs a strict-safe schema). */
  strict?: boolean;
}

/** A tool whose arguments are described and validated by a zod 4 schema. */
export interface ZodTool<S extends z.ZodType = z.ZodType> extends ToolCommon {
  parameters: S;
  execute(args: z.output<S>, ctx: ToolContext): ToolReturn | Promise<ToolReturn>;
}

/** A tool whose arguments are described and validated by a JSON Schema object. */
export interface JsonSchemaTool extends ToolCommon {
  parameters: Record<string, unknown>;
  execute(args: Record<string, unknown>, ctx: ToolContext): ToolReturn | Promise<ToolReturn>;
}

/** Either kind of module tool. */
export type ModuleTool = ZodTool<any> | JsonSchemaTool;

/** Types a tool (its `execute` receives the schema's parsed arguments); returns it unchanged. */
export function defineTool<S extends z.ZodType>(tool: ZodTool<S>): ZodTool<S>;
export function defineTool(tool: JsonSchemaTool): JsonSchemaTool;
export function defineTool(tool: ModuleTool): ModuleTool {
  return tool;
}

/**
 * Recognises a ToolFatalError by a registered symbol rather than `instanceof`: a tools module loaded
 * through its own TypeScript loader may hold a second copy of this class.
 */
const FATAL_BRAND = Symbol.for('troupe.ToolFatalError');

/** Thrown by a tool to end the whole run `failed/fatal_error` instead of returning an error to the model. */
export class ToolFatalError extends Error {
  readonly [FATAL_BRAND] = true;
  override readonly name = 'ToolFatalError';
}

/** Whether `err` is a {@link ToolFatalError} (from any copy of this module). */
export function isToolFatalError(err: unknown): err is Error {
  return typeof err === 'object' && err !== null && (err as Record<symbol, unknown>)[FATAL_BRAND] === true;
}
