/**
 * Tool calls written as text. Models served without a tool-call parser write the call into their
 * reply instead of making it: `<tool_call>{"name": …, "arguments": …}</tool_call>` (Qwen's own
 * format), a bare `{"name": …, "arguments": …}` object, or such an object in a fenced block. Taken as
 * the agent's result, that text would be a silent failure, so the activities run it as the call
 * (docs/semantics.md, "Agent calls") — but only when the whole reply is the call: a reply that also
 * says something else (a documentation answer quoting an example, a summary quoting a fetched page)
 * is an answer, and a call whose text the model was given (a tool result, the task, the thread) is a
 * quote of it, never a call the model chose (`echoed-calls.ts`). Only the names of tools the agent
 * was offered count, so a JSON answer that happens to have a `name` is left alone. Pure and bounded.
 */
import { balancedJsonSpans, jsonSequence } from '../text/json';
import { echoedCall } from './echoed-calls';
import { jsonStructureIssue, readToolArguments } from './tool-arguments';

/** Bounds of reading a reply for a call written as text. */
export const TEXT_CALL_LIMITS = {
  /** The longest reply read as a call (trimmed); a longer one is an answer, its start searched only for a quoted call. */
  maxChars: 64 * 1024,
} as const;

/** What a reply's text is, read for a call of an offered tool written in it. */
export type TextCall =
  /** The whole reply is this call (the first of an offered tool, when it lists several): run it. */
  | { kind: 'call'; name: string; arguments: string }
  /**
   * The whole reply is a call that cannot run as written: its arguments are no object (nor absent),
   * it repeats a key, or it is the tool's definition echoed back (it has a `description`).
   */
  | { kind: 'unrunnable'; name: string }
  /** The whole reply is a call that stands in a tool result or a message the model was given: a quote. */
  | { kind: 'echoed'; name: string }
  /** A call amid other text (prose, other blocks): an example or a quote in an answer. */
  | { kind: 'quoted'; name: string };

/** Tags a whole reply's calls may stand in: Qwen's `<tool_call>`, and the `<tools>` its template shows. */
const TAG = /<(tool_call|tools)>([\s\S]*?)(?:<\/\1>|$)/y;

function record(value: unknown): Record<string, unknown> | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

/** The function part of a call-shaped value (`{name, arguments|parameters}`, or under `function`), when it is one. */
function callShape(value: unknown): { name: string; fn: Record<string, unknown> } | undefined {
  const v = record(value);
  if (!v) return undefined;
  const fn = record(v.function) ?? v;
  return typeof fn.name === 'string' && ('arguments' in fn || 'parameters' in fn) ? { name: fn.name, fn } : undefined;
}

/** The JSON text of a written call's arguments (absent or null: `{}`), or undefined when they are no object. */
function argumentText(args: unknown): string | undefined {
  if (args === undefined || args === null) return '{}';
  // read as a made call's argument text is, except that an empty one was no call
  if (typeof args === 'string') return args.trim() !== '' && readToolArguments(args).ok ? args : undefined;
  return record(args) ? JSON.stringify(args) : undefined;
}

/** One call-shaped value of a reply: the value, the text it was read from, and the text to check strictly. */
interface Listed {
  value: unknown;
  text: string;
  strict: string;
}

/**
 * The JSON values of a call written inside stray braces, as Qwen2.5-Coder 1.5B writes its calls from
 * its template: `{{"name": …, "arguments": {…}}}`, or `{{"name": …, "arguments": {}}}}` with one
 * brace too many; at most two extra opening and three extra closing braces are taken off.
 */
function insideStrayBraces(text: string): Array<{ value: unknown; text: string }> | undefined {
  const opening = /^\{+/.exec(text)?.[0].length ?? 0;
  const closing = /\}+$/.exec(text)?.[0].length ?? 0;
  for (let open = 1; open < Math.min(opening, 3); open += 1) {
    for (let close = 1; close < Math.min(closing, 4); close += 1) {
      const values = jsonSequence(text.slice(open, text.length - close), '{');
      if (values) return values;
    }
  }
  return undefined;
}

/**
 * The calls `body` lists when it is nothing else: call-shaped objects one after another (whitespace
 * or commas between), or a JSON array of them; stray braces around a call ({@link insideStrayBraces})
 * are no other text.
 */
function listedCalls(body: string): Listed[] | undefined {
  const trimmed = body.trim();
  const values = jsonSequence(trimmed, '{[') ?? (trimmed.startsWith('{{') ? insideStrayBraces(trimmed) : undefined);
  if (!values) return undefined;
  const listed = values.flatMap(({ value, text }): Listed[] =>
    Array.isArray(value) ? value.map((item) => ({ value: item, text: JSON.stringify(item) ?? '', strict: text })) : [{ value, text, strict: text }],
  );
  return listed.length > 0 && listed.every((l) => callShape(l.value)) ? listed : undefined;
}

/** The bodies of a reply made of `<tool_call>` (or `<tools>`) blocks and whitespace only; the last may be unclosed. */
function taggedBodies(text: string): string[] | undefined {
  if (!text.startsWith('<')) return undefined;
  const bodies: string[] = [];
  for (let i = 0; i < text.length; ) {
    TAG.lastIndex = i;
    const m = TAG.exec(text);
    if (!m) return undefined;
    bodies.push(m[2]);
    i = TAG.lastIndex;
    while (i < text.length && /\s/.test(text[i])) i++;
  }
  return bodies;
}

/**
 * The body of a reply that is one fenced block (```` ``` ```` or longer, any info string), or
 * undefined: the closing fence must end the reply, and no line inside may close the block earlier.
 */
function fencedBody(text: string): string | undefined {
  const open = /^`{3,}/.exec(text)?.[0];
  if (!open) return undefined;
  const firstLine = text.indexOf('\n');
  const lastLine = text.lastIndexOf('\n');
  if (firstLine < 0 || lastLine <= firstLine || text.slice(open.length, firstLine).includes('`')) return undefined;
  const close = text.slice(lastLine + 1).trim();
  if (!/^`+$/.test(close) || close.length < open.length) return undefined;
  const body = text.slice(firstLine + 1, lastLine);
  const closes = new RegExp(`^ {0,3}\`{${open.length},}\\s*$`, 'm');
  return closes.test(body) ? undefined : body;
}

/** The calls a reply lists when the whole reply is calls: bare, in one fenced block, or in tags. */
function wholeReplyCalls(text: string): Listed[] | undefined {
  const tagged = taggedBodies(text);
  if (tagged) {
    const lists = tagged.map((body) => listedCalls(fencedBody(body.trim()) ?? body));
    return lists.every((l) => l !== undefined) ? lists.flat() : undefined;
  }
  const fenced = fencedBody(text);
  return listedCalls(fenced ?? text);
}

/**
 * A call of an offered tool a reply writes as text, and whether it may run (see {@link TextCall});
 * undefined when the reply writes none. `given`: the texts of the request's non-assistant messages
 * (system, user, tool), which a call to run must not be a quote of. A reply that lists several calls
 * runs the first of an offered tool: the others may need its result, and the model sees it and may
 * make them next.
 */
export function readTextCall(text: string, offered: readonly string[], given: readonly string[] = []): TextCall | undefined {
  if (offered.length === 0) return undefined;
  const trimmed = text.trim();
  const whole = trimmed.length <= TEXT_CALL_LIMITS.maxChars ? wholeReplyCalls(trimmed) : undefined;
  const chosen = whole?.find((l) => offered.includes(callShape(l.value)!.name));
  if (chosen) {
    const { name, fn } = callShape(chosen.value)!;
    const runnable = !('description' in fn) && !jsonStructureIssue(chosen.strict);
    const args = runnable ? argumentText('arguments' in fn ? fn.arguments : fn.parameters) : undefined;
    if (args === undefined) return { kind: 'unrunnable', name };
    return echoedCall({ name, arguments: args, text: chosen.text }, given) ? { kind: 'echoed', name } : { kind: 'call', name, arguments: args };
  }
  if (whole) return undefined;
  const scanned = trimmed.length > TEXT_CALL_LIMITS.maxChars ? trimmed.slice(0, TEXT_CALL_LIMITS.maxChars) : trimmed;
  for (const span of balancedJsonSpans(scanned, '{')) {
    const call = callShape(span.value);
    if (call && offered.includes(call.name)) return { kind: 'quoted', name: call.name };
  }
  return undefined;
}
