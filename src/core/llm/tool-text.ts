/**
 * Tool calls written as text. Models that were asked for a fenced result, or that are served without
 * a tool-call parser, write the call into their reply instead of making it: `<tool_call>{"name": …,
 * "arguments": …}</tool_call>` (Qwen's own format), a bare `{"name": …, "arguments": …}` object, or
 * such an object inside a fenced block. Taken as the agent's result, that text would be a silent
 * failure; the activities re-ask once instead (docs/semantics.md, "Agent calls"). Only the names of
 * tools the agent was offered count, so a JSON answer that happens to have a `name` is left alone.
 * Pure and bounded.
 */

/** The most characters of a reply searched for a call written as text. */
const MAX_SCAN_CHARS = 64 * 1024;

const TAGGED = /<tool_call>([\s\S]*?)(?:<\/tool_call>|$)/g;
const FENCED = /```[^\n`]*\n([\s\S]*?)```/g;

/** The tool named by one JSON text, when it has the shape of a call of an offered tool. */
function calledName(json: string, offered: readonly string[]): string | undefined {
  const t = json.trim();
  if (!t.startsWith('{')) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(t);
  } catch {
    return undefined;
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const v = value as Record<string, unknown>;
  const fn = v.function !== null && typeof v.function === 'object' ? (v.function as Record<string, unknown>) : v;
  const name = fn.name;
  if (typeof name !== 'string' || !('arguments' in fn || 'parameters' in fn)) return undefined;
  return offered.includes(name) ? name : undefined;
}

/**
 * The offered tool a reply calls in its text instead of through the tools interface, or undefined:
 * a `<tool_call>` block, the whole reply, or a fenced block holding a call-shaped JSON object.
 */
export function toolCallInText(text: string, offered: readonly string[]): string | undefined {
  if (offered.length === 0) return undefined;
  const scanned = text.length > MAX_SCAN_CHARS ? text.slice(0, MAX_SCAN_CHARS) : text;
  const candidates = [
    ...[...scanned.matchAll(TAGGED)].map((m) => m[1]),
    scanned,
    ...[...scanned.matchAll(FENCED)].map((m) => m[1]),
  ];
  for (const candidate of candidates) {
    const name = calledName(candidate, offered);
    if (name) return name;
  }
  return undefined;
}
