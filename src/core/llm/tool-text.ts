/**
 * Tool calls written as text. Models that were asked for a fenced result, or that are served without
 * a tool-call parser, write the call into their reply instead of making it: `<tool_call>{"name": …,
 * "arguments": …}</tool_call>` (Qwen's own format), a bare `{"name": …, "arguments": …}` object, or
 * such an object inside a fenced block. Taken as the agent's result, that text would be a silent
 * failure; the activities re-ask once instead (docs/semantics.md, "Agent calls"). Only the names of
 * tools the agent was offered count, so a JSON answer that happens to have a `name` is left alone.
 * Pure and bounded.
 */
import { balancedJsonValues } from '../text/json';

/** The most characters of a reply searched for a call written as text. */
const MAX_SCAN_CHARS = 64 * 1024;

const TAGGED = /<tool_call>([\s\S]*?)(?:<\/tool_call>|$)/g;

/** The tool named by one JSON value, when it has the shape of a call of an offered tool. */
function calledName(value: unknown, offered: readonly string[]): string | undefined {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const v = value as Record<string, unknown>;
  const fn = v.function !== null && typeof v.function === 'object' ? (v.function as Record<string, unknown>) : v;
  const name = fn.name;
  if (typeof name !== 'string' || !('arguments' in fn || 'parameters' in fn)) return undefined;
  return offered.includes(name) ? name : undefined;
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
 * The offered tool a reply calls in its text instead of through the tools interface, or undefined:
 * a `<tool_call>` block, or any call-shaped JSON object in the reply — the whole reply, one in a
 * fenced block, or one of several written one after the other, as small models do when they list
 * the calls they mean to make.
 */
export function toolCallInText(text: string, offered: readonly string[]): string | undefined {
  if (offered.length === 0) return undefined;
  const scanned = text.length > MAX_SCAN_CHARS ? text.slice(0, MAX_SCAN_CHARS) : text;
  for (const m of scanned.matchAll(TAGGED)) {
    const name = calledName(parsed(m[1]), offered);
    if (name) return name;
  }
  for (const value of balancedJsonValues(scanned, '{')) {
    const name = calledName(value, offered);
    if (name) return name;
  }
  return undefined;
}
