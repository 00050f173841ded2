/**
 * Tool calls written as text. Models that were asked for a fenced result, or that are served without
 * a tool-call parser, write the call into their reply instead of making it: `<tool_call>{"name": …,
 * "arguments": …}</tool_call>` (Qwen's own format), a bare `{"name": …, "arguments": …}` object, or
 * such an object inside a fenced block or other tags. Taken as the agent's result, that text would be
 * a silent failure; the activities run the call instead, or re-ask once when it cannot be run
 * (docs/semantics.md, "Agent calls"). Only the names of tools the agent was offered count, so a JSON
 * answer that happens to have a `name` is left alone. Pure and bounded.
 */
import { balancedJsonSpans } from '../text/json';
import { jsonStructureIssue, readToolArguments } from './tool-arguments';

/** The most characters of a reply searched for a call written as text. */
const MAX_SCAN_CHARS = 64 * 1024;

const TAGGED = /<tool_call>([\s\S]*?)(?:<\/tool_call>|$)/g;

/** A call of an offered tool found in a reply's text. */
export interface TextToolCall {
  name: string;
  /**
   * The arguments as JSON text, or undefined when the call cannot be run as written: its arguments
   * are not an object (nor absent), it repeats a key, or it is the tool's definition echoed back (it
   * has a `description`).
   */
  arguments?: string;
}

function record(value: unknown): Record<string, unknown> | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

/** The JSON text of a written call's arguments (absent or null: `{}`), or undefined when they are no object. */
function argumentText(args: unknown): string | undefined {
  if (args === undefined || args === null) return '{}';
  // read as a made call's argument text is, except that an empty one was no call
  if (typeof args === 'string') return args.trim() !== '' && readToolArguments(args).ok ? args : undefined;
  return record(args) ? JSON.stringify(args) : undefined;
}

/** The call one JSON value (parsed from `raw`) writes, when it has the shape of a call of an offered tool. */
function writtenCall(value: unknown, raw: string, offered: readonly string[]): TextToolCall | undefined {
  const v = record(value);
  if (!v) return undefined;
  const fn = record(v.function) ?? v;
  const name = fn.name;
  if (typeof name !== 'string' || !('arguments' in fn || 'parameters' in fn) || !offered.includes(name)) return undefined;
  const runnable = !('description' in fn) && !jsonStructureIssue(raw);
  const args = runnable ? argumentText('arguments' in fn ? fn.arguments : fn.parameters) : undefined;
  return args === undefined ? { name } : { name, arguments: args };
}

/** The JSON value of a `<tool_call>` block's text, when it is one. */
function parsed(text: string): unknown {
  try {
    return JSON.parse(text.trim()) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * The first call of an offered tool a reply writes in its text instead of making it through the
 * tools interface, or undefined: a `<tool_call>` block, or any call-shaped JSON object in the reply —
 * the whole reply, one in a fenced block or tags, or one of several written one after the other, as
 * small models do when they list the calls they mean to make (the first is the one to run: the
 * others may need its result).
 */
export function toolCallInText(text: string, offered: readonly string[]): TextToolCall | undefined {
  if (offered.length === 0) return undefined;
  const scanned = text.length > MAX_SCAN_CHARS ? text.slice(0, MAX_SCAN_CHARS) : text;
  for (const m of scanned.matchAll(TAGGED)) {
    const call = writtenCall(parsed(m[1]), m[1], offered);
    if (call) return call;
  }
  for (const span of balancedJsonSpans(scanned, '{')) {
    const call = writtenCall(span.value, span.text, offered);
    if (call) return call;
  }
  return undefined;
}
