/**
 * JSON Schema validation of the final output with ajv 8 (draft-07, all errors). Errors
 * carry their JSON path (`/score: must be number`; `/` for the root). Behind {@link OutputValidator} so validation could move to an
 * activity without touching the check. Pure: ajv generates code but does no I/O and keeps no clock.
 */
import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import type { RegExpEngine } from 'ajv/dist/types';
import { REGEX_TEXT_LIMIT } from '../config/limits';
import { OUTPUT_TEXTS } from './texts';

/** Outcome of validating one value: valid, invalid with error lines, or a schema that cannot compile. */
type SchemaValidation =
  | { kind: 'valid' }
  | { kind: 'invalid'; errors: string[] }
  | { kind: 'schema_error'; message: string };

/** Validates a value against a JSON Schema. */
export interface OutputValidator {
  validate(schema: Record<string, unknown>, value: unknown): SchemaValidation;
}

/** Error lines kept per validation; the rest are summarized in one line. */
export const MAX_ERROR_LINES = 20;

/**
 * ajv's regular expressions, held to the bound of role patterns (docs/semantics.md, "Bounds on hostile
 * input"): a string longer than `REGEX_TEXT_LIMIT` fails its `pattern` without being tested, so a
 * pattern that escaped the backtracking check cannot stall the workflow on a long model output.
 */
const boundedRegExp: RegExpEngine = Object.assign(
  (pattern: string, flags: string) => {
    const re = new RegExp(pattern, flags);
    return { test: (s: string) => s.length <= REGEX_TEXT_LIMIT && re.test(s), toString: () => re.toString() };
  },
  { code: 'new RegExp' },
);

/** One error line: `<instancePath or />: <message>` plus the offending name or allowed values. */
function formatAjvError(e: ErrorObject): string {
  const path = e.instancePath === '' ? '/' : e.instancePath;
  let message = e.message ?? e.keyword;
  if (e.keyword === 'additionalProperties') {
    message += ` ('${(e.params as { additionalProperty: string }).additionalProperty}')`;
  } else if (e.keyword === 'pattern' && typeof e.data === 'string' && e.data.length > REGEX_TEXT_LIMIT) {
    message += OUTPUT_TEXTS.validator.patternTextTooLong(e.data.length, REGEX_TEXT_LIMIT);
  } else if (e.keyword === 'enum') {
    const allowed = (e.params as { allowedValues: unknown[] }).allowedValues;
    message += `: ${allowed.map((v) => JSON.stringify(v)).join(', ')}`;
  }
  return `${path}: ${message}`;
}

/** Format ajv errors as deduplicated lines, at most {@link MAX_ERROR_LINES} plus a summary line. */
export function formatAjvErrors(errors: ErrorObject[]): string[] {
  const lines = [...new Set(errors.map(formatAjvError))];
  if (lines.length <= MAX_ERROR_LINES) return lines;
  return [...lines.slice(0, MAX_ERROR_LINES), OUTPUT_TEXTS.validator.moreErrors(lines.length - MAX_ERROR_LINES)];
}

/**
 * The ajv-backed validator. Compiled validators are cached by schema JSON; each schema gets its own
 * Ajv instance so two schemas with the same `$id` cannot collide. Unknown keywords and formats are
 * ignored (`strict: false`; formats need ajv-formats, which troupe does not ship).
 * @internal exported for tests
 */
export function createAjvValidator(): OutputValidator {
  const cache = new Map<string, ValidateFunction | { error: string }>();
  const compile = (schema: Record<string, unknown>): ValidateFunction | { error: string } => {
    const key = JSON.stringify(schema);
    const hit = cache.get(key);
    if (hit) return hit;
    let compiled: ValidateFunction | { error: string };
    try {
      compiled = new Ajv({ allErrors: true, strict: false, logger: false, validateFormats: false, verbose: true, code: { regExp: boundedRegExp } }).compile(schema);
    } catch (err) {
      compiled = { error: err instanceof Error ? err.message : String(err) };
    }
    cache.set(key, compiled);
    return compiled;
  };
  return {
    validate(schema, value) {
      const fn = compile(schema);
      if (typeof fn !== 'function') return { kind: 'schema_error', message: OUTPUT_TEXTS.validator.schemaError(fn.error) };
      return fn(value) ? { kind: 'valid' } : { kind: 'invalid', errors: formatAjvErrors(fn.errors ?? []) };
    },
  };
}

/** The shared default validator (one cache per process or workflow bundle). */
export const defaultOutputValidator: OutputValidator = createAjvValidator();

/**
 * Validate `value` against `schema` with the default validator.
 * @internal exported for tests
 */
export function validateOutput(schema: Record<string, unknown>, value: unknown): SchemaValidation {
  return defaultOutputValidator.validate(schema, value);
}

/** Why `schema` cannot be compiled, or undefined (for config validation before a run starts). */
export function outputSchemaError(schema: Record<string, unknown>): string | undefined {
  const r = validateOutput(schema, null);
  return r.kind === 'schema_error' ? r.message : undefined;
}
