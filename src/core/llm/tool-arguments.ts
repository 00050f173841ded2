/**
 * A tool call's arguments as the tool will receive them. The model sends JSON text; `JSON.parse`
 * keeps the last of two equal keys, so `{"target":"staging", …, "target":"PRODUCTION"}` reads as
 * PRODUCTION while a human reading the text sees staging first. troupe refuses such text (an error for
 * the model, never "last one wins") and otherwise passes on the value parsed and serialized again:
 * the one form a `tool_call` request shows and the tool then gets (docs/semantics.md, "Humans in the
 * loop"). Pure, and bounded: the scan is one pass with an explicit stack, never recursion.
 */

/** Bounds of the arguments of one call. */
export const TOOL_ARGUMENT_LIMITS = {
  /** Deepest nesting of objects and arrays in the arguments. */
  maxDepth: 64,
  /** Largest arguments (UTF-8 bytes, serialized) a human is asked to approve: shown whole or not at all. */
  approvalBytes: 16 * 1024,
} as const;

/** What the model reads when its arguments cannot be used, so tests pin them. */
export const TOOL_ARGUMENT_TEXTS = {
  invalid: (tool: string, lines: readonly string[]) => `Error: invalid arguments for tool '${tool}':\n${lines.join('\n')}`,
  notJson: (error: string) => `the arguments are not valid JSON (${error})`,
  notObject: (type: string) => `the arguments must be a JSON object, got ${type}`,
  duplicateKey: (key: string, at: string) =>
    `the key ${JSON.stringify(key)} appears more than once in the object at ${at}; send each key once`,
  tooDeep: (depth: number) => `the arguments are nested deeper than ${depth} levels`,
  tooLargeToApprove: (tool: string, bytes: number) =>
    `Error: the call of ${tool} needs a human's approval, and its arguments (${bytes} bytes) are larger than the ` +
    `${TOOL_ARGUMENT_LIMITS.approvalBytes} bytes a human is shown in full; it was not run. Send smaller arguments ` +
    '(for example a path to a file instead of its content).',
} as const;

/** The arguments read: the value and its serialized form, or why they cannot be used. */
type ToolArguments = { ok: true; value: Record<string, unknown>; json: string } | { ok: false; error: string };

function typeOf(v: unknown): string {
  return v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v;
}

function pointer(path: readonly string[]): string {
  return path.length === 0 ? '/' : path.map((s) => `/${s.replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');
}

/**
 * A problem with JSON text that `JSON.parse` accepted: a key repeated within one object, or nesting
 * past the depth bound. One pass over the text; strings are skipped whole.
 * @internal exported for tests
 */
export function jsonStructureIssue(text: string, maxDepth: number = TOOL_ARGUMENT_LIMITS.maxDepth): string | undefined {
  /** One open container: an object's keys so far (null for an array, which counts its items) and its key in the parent. */
  const stack: Array<{ keys: Set<string> | null; items: number; key: string }> = [];
  let lastKey = '';
  let expectKey = false;
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    if (c === 0x22 /* " */) {
      let j = i + 1;
      while (j < text.length && text.charCodeAt(j) !== 0x22) j += text.charCodeAt(j) === 0x5c /* \ */ ? 2 : 1;
      const top = stack[stack.length - 1];
      if (top?.keys && expectKey) {
        const key = JSON.parse(text.slice(i, j + 1)) as string;
        if (top.keys.has(key)) return TOOL_ARGUMENT_TEXTS.duplicateKey(key, pointer(stack.slice(1).map((s) => s.key)));
        top.keys.add(key);
        lastKey = key;
        expectKey = false;
      }
      i = j;
    } else if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      const parent = stack[stack.length - 1];
      stack.push({ keys: c === 0x7b ? new Set() : null, items: 0, key: parent?.keys ? lastKey : String(parent?.items ?? 0) });
      if (stack.length > maxDepth) return TOOL_ARGUMENT_TEXTS.tooDeep(maxDepth);
      expectKey = c === 0x7b;
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      stack.pop();
      expectKey = false;
    } else if (c === 0x2c /* , */) {
      const top = stack[stack.length - 1];
      if (top && !top.keys) top.items += 1;
      expectKey = top?.keys != null;
    }
  }
  return undefined;
}

/**
 * Read a call's argument text: empty text is `{}`; otherwise JSON whose top level is an object, with
 * no key repeated within an object and nesting within the bound. `json` is the value serialized again.
 */
export function readToolArguments(text: string): ToolArguments {
  if (text.trim() === '') return { ok: true, value: {}, json: '{}' };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    return { ok: false, error: TOOL_ARGUMENT_TEXTS.notJson((e as Error).message) };
  }
  if (typeOf(value) !== 'object') return { ok: false, error: TOOL_ARGUMENT_TEXTS.notObject(typeOf(value)) };
  const issue = jsonStructureIssue(text);
  if (issue) return { ok: false, error: issue };
  return { ok: true, value: value as Record<string, unknown>, json: JSON.stringify(value) };
}
