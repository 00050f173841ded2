/**
 * The bounds a role file, and the model output its patterns run on, are held to
 * (docs/semantics.md, "Bounds on hostile input"). One place, so the loader, the validator, the condition
 * matchers and the output check agree, and tests pin them. Pure constants.
 */

/**
 * The deepest nesting of mappings and lists a role file may have. A real role is about ten levels
 * deep (an output schema a few more); the YAML reader and the walkers that follow it recurse once
 * per level, so a file nested thousands deep would exhaust the stack before anything could say why.
 */
export const MAX_CONFIG_DEPTH = 64;

/** The longest regular expression (a `regex` matcher or an output-schema `pattern`) a role may use, in characters. */
export const MAX_PATTERN_LENGTH = 1000;

/**
 * The most characters of a text a role's regular expression is run on (16 Ki UTF-16 code units): a
 * `regex` matcher reads the first this many characters of the result; an output-schema string longer
 * than this fails its `pattern`. Patterns are checked for catastrophic backtracking when the role is
 * validated; this bound keeps one that was not (a graph built by hand, a run started before the
 * check existed) from stalling a workflow task on a long result: a quadratic pattern on 16 Ki
 * characters costs milliseconds, on the 64 KiB a result may hold it costs seconds.
 */
export const REGEX_TEXT_LIMIT = 16 * 1024;

/** The first {@link REGEX_TEXT_LIMIT} characters of `text`: what a role's regex is run on. */
export function regexText(text: string): string {
  return text.length > REGEX_TEXT_LIMIT ? text.slice(0, REGEX_TEXT_LIMIT) : text;
}

/**
 * How long the backtracking check may spend on one pattern before calling it unsafe (ms): recheck's
 * own default. Everyday patterns take milliseconds to a second (a long literal before a wide class
 * such as `\S+` is the slow case); results are cached for the life of the process.
 */
export const PATTERN_CHECK_TIMEOUT_MS = 10_000;

/**
 * How many YAML syntax errors a file reports. After the first few, the reader's errors follow from
 * the earlier ones (after a quoted value continued on an unindented line, every `!` is read as a tag,
 * one error each), so the rest are counted in one closing error instead of listed.
 */
export const MAX_YAML_ERRORS = 20;

/** How many errors, and how many warnings, one load reports at most; the rest are counted in one closing issue. */
export const MAX_REPORTED_ISSUES = 200;

/**
 * How many characters of a user's value an error message quotes before cutting it with `…`.
 * @internal exported for tests
 */
export const MAX_QUOTED_CHARS = 80;

/** How many characters of a YAML snippet a message suggests before cutting it: any everyday condition fits. */
export const MAX_SNIPPET_CHARS = 400;

/** `value` cut to `max` characters (default {@link MAX_QUOTED_CHARS}) with `…`, for quoting in a message. */
export function clip(value: string, max: number = MAX_QUOTED_CHARS): string {
  return value.length > max ? `${value.slice(0, max)}…` : value;
}

/**
 * The most agents a role may declare, and the most tool calls of one reply that may run: with the
 * run's bound on pending tool calls (`MAX_PENDING_TOOL_CALLS`, `src/workflows/tool-dispatch.ts`), no wave can come near the 2,000
 * activities Temporal lets one run have pending (past them every workflow task of the run fails).
 */
export const MAX_AGENTS = 256;

/** The largest `max_parallel_tool_calls` (see {@link MAX_AGENTS}); the default is 32. */
export const MAX_PARALLEL_TOOL_CALLS = 128;

/**
 * `max_tool_rounds` when neither the agent, its model nor the role's `model` sets it: the tool rounds
 * of one dispatch before its closing call (`tool_choice: none`). The one default, applied when the
 * role is compiled (`core/graph/resolve.ts`), for an agent with worker tools and one with built-ins
 * alike (docs/semantics.md, "Tools").
 */
export const DEFAULT_MAX_TOOL_ROUNDS = 8;

/** `max_parallel_tool_calls` when neither the agent nor its model sets it. */
export const DEFAULT_PARALLEL_TOOL_CALLS = 32;
