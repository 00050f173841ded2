/**
 * Calls a model was given, not calls it made: a reply that writes a call as text is no call when the
 * same call stands in a tool result or a message of its request (a fetched page, an MCP result, the
 * task, the thread). A planted `{"name": "write_marker", …}` quoted back would otherwise run a tool
 * the model never chose (docs/semantics.md, "Agent calls"). The comparison survives what a model does
 * when it quotes: whitespace, escapes (a call inside a JSON string of a tool result), keys in another
 * order, arguments written as an object or as a JSON string. Pure and bounded: all the scanning of
 * one check shares {@link ECHO_LIMITS}.scanChars, and a check that runs out of it counts the call as
 * echoed (not run: the safe side).
 */
import { balancedJsonSpans } from '../text/json';

/** Bounds of one echo check. */
export const ECHO_LIMITS = {
  /** Characters scanned and values visited, over every given text, before the check gives up (echoed). */
  scanChars: 4 * 1024 * 1024,
  /** JSON inside JSON strings looked into, this many levels deep (a result's body holding a page holding a call). */
  stringDepth: 3,
  /** Deepest arguments compared; a written call's own are at most 64 levels (core/llm/tool-arguments.ts). */
  argumentDepth: 64,
} as const;

/** A call written as text: its tool, its arguments as JSON text, and the text it was read from. */
export interface WrittenCall {
  name: string;
  arguments: string;
  text: string;
}

type Budget = { left: number };

function record(value: unknown): Record<string, unknown> | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

/** JSON with object keys sorted, or undefined past the depth bound or the budget (one unit a value). */
function canonical(value: unknown, budget: Budget, depth = 0): string | undefined {
  if (depth > ECHO_LIMITS.argumentDepth || --budget.left < 0) return undefined;
  if (Array.isArray(value)) {
    const items: string[] = [];
    for (const item of value) {
      const c = canonical(item, budget, depth + 1);
      if (c === undefined) return undefined;
      items.push(c);
    }
    return `[${items.join(',')}]`;
  }
  const obj = record(value);
  if (!obj) return JSON.stringify(value) ?? 'null';
  const parts: string[] = [];
  for (const key of Object.keys(obj).sort()) {
    const v = canonical(obj[key], budget, depth + 1);
    if (v === undefined) return undefined;
    parts.push(`${JSON.stringify(key)}:${v}`);
  }
  return `{${parts.join(',')}}`;
}

/** A call's identity: its name and its arguments as a value (absent or null: `{}`; a JSON string: what it holds). */
function callKey(name: string, args: unknown, budget: Budget): string | undefined {
  let value: unknown = args ?? {};
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value.trim() === '' ? '{}' : value) as unknown;
    } catch {
      // arguments that are no JSON compare as the string they are
    }
  }
  const c = canonical(value, budget);
  return c === undefined ? undefined : `${name}\n${c}`;
}

/** The key of a value shaped as a call of `name` (`{name, arguments}`, `{name, parameters}`, or under `function`). */
function keyOfCall(value: unknown, name: string, budget: Budget): string | undefined {
  const v = record(value);
  if (!v) return undefined;
  const fn = record(v.function) ?? v;
  if (fn.name !== name) return undefined;
  if ('arguments' in fn) return callKey(name, fn.arguments, budget);
  if ('parameters' in fn) return callKey(name, fn.parameters, budget);
  return undefined;
}

/**
 * Whether the call of `name` keyed `key` is written in `text`: in a JSON value in it, or in a JSON string
 * inside one (up to {@link ECHO_LIMITS}.stringDepth levels). Values are walked with an explicit stack.
 */
function holds(text: string, name: string, key: string, budget: Budget, depth = 0): boolean {
  for (const span of balancedJsonSpans(text, '{[', budget)) {
    const stack: unknown[] = [span.value];
    while (stack.length > 0) {
      if (--budget.left < 0) return false;
      const value = stack.pop();
      if (typeof value === 'string') {
        if (depth < ECHO_LIMITS.stringDepth && value.includes('{') && holds(value, name, key, budget, depth + 1)) return true;
        continue;
      }
      if (value === null || typeof value !== 'object') continue;
      if (keyOfCall(value, name, budget) === key) return true;
      for (const inner of Array.isArray(value) ? value : Object.values(value)) stack.push(inner);
    }
    if (budget.left <= 0) return false;
  }
  return false;
}

/** Text with its whitespace and backslashes taken out: a quote re-indented or escaped into a JSON string squashes to the same. */
function squash(text: string): string {
  return text.replace(/[\s\\]+/g, '');
}

/**
 * Whether `call` is a quote of one of the `given` texts (the non-assistant messages of the request
 * its reply answers): its text stands in one, whitespace and escapes aside, or one holds a call of
 * the same tool with the same arguments as values. Past the scan bound, true.
 */
export function echoedCall(call: WrittenCall, given: readonly string[]): boolean {
  const squashed = squash(call.text);
  const budget: Budget = { left: ECHO_LIMITS.scanChars };
  const key = callKey(call.name, call.arguments, budget);
  for (const text of given) {
    budget.left -= text.length;
    if (budget.left < 0) return true;
    if (squashed !== '' && squash(text).includes(squashed)) return true;
    // a call of the tool names it, as written or escaped
    if (key === undefined || !(text.includes(call.name) || text.includes('\\u'))) continue;
    if (holds(text, call.name, key, budget)) return true;
    if (budget.left <= 0) return true;
  }
  return false;
}
