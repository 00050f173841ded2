/**
 * A tool's arguments: the JSON text the model sent, parsed and checked against the tool's schema
 * before the tool runs, so a bad call costs no side effect and the model learns what to fix (one line
 * per error, each with its JSON path). zod schemas validate themselves and convert to JSON Schema with
 * zod's own export; JSON Schemas (a module's or an MCP server's) validate with ajv in the draft they
 * declare.
 */
import Ajv, { type ValidateFunction } from 'ajv';
import Ajv2019 from 'ajv/dist/2019';
import Ajv2020 from 'ajv/dist/2020';
import { z } from 'zod';
import { parseWithIssues } from '../core/config/zod-issues';
import { readToolArguments, TOOL_ARGUMENT_TEXTS } from '../core/llm/tool-arguments';
import { OUTPUT_TEXTS } from '../core/output/texts';
import { formatAjvErrors, MAX_ERROR_LINES } from '../core/output/validator';

/**
 * Messages about arguments, and about a tool's `parameters` (those follow its path), so tests can pin them.
 * @internal exported for tests
 */
export const ARGUMENT_MESSAGES = {
  notJson: TOOL_ARGUMENT_TEXTS.notJson,
  notObject: TOOL_ARGUMENT_TEXTS.notObject,
  notObjectSchema: 'must describe an object: a zod object schema, or a JSON Schema with "type": "object"',
  zod3: 'is a zod 3 schema; use zod 4 or a JSON Schema object',
  unconvertible: (error: string) => `cannot be converted to JSON Schema: ${error}`,
  badJsonSchema: (error: string) => `is not a usable JSON Schema: ${error}`,
  zodThrew: (error: string) => `the arguments could not be checked: ${error}`,
} as const;

/** Outcome of checking arguments: the value the tool receives, or one line per error. */
type ArgumentCheck = { ok: true; value: unknown } | { ok: false; errors: string[] };

/** Checks one call's parsed arguments. */
export type ArgumentValidator = (args: unknown) => ArgumentCheck;

/** A tool's parameters as the model sees them and as the worker checks them. */
export interface Parameters {
  jsonSchema: Record<string, unknown>;
  validate: ArgumentValidator;
}

/** Whether `value` is a zod 4 schema (from this copy of zod or the tools module's own). */
export function isZodSchema(value: unknown): value is z.ZodType {
  return typeof value === 'object' && value !== null && '_zod' in value && typeof (value as z.ZodType).safeParse === 'function';
}

function isZod3Schema(value: unknown): boolean {
  return typeof value === 'object' && value !== null && '_def' in value && !('_zod' in value);
}

function typeOf(v: unknown): string {
  return v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v;
}

/**
 * Parses the model's argument text (core/llm/tool-arguments.ts): an empty text means no arguments
 * (`{}`); a key repeated within an object is an error, never "last one wins".
 */
export function parseArgumentsJson(text: string): ArgumentCheck {
  const read = readToolArguments(text);
  return read.ok ? { ok: true, value: read.value } : { ok: false, errors: [read.error] };
}

function pointer(path: ReadonlyArray<string | number>): string {
  return path.length === 0 ? '/' : path.map((s) => `/${String(s).replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');
}

function capLines(lines: string[]): string[] {
  if (lines.length <= MAX_ERROR_LINES) return lines;
  return [...lines.slice(0, MAX_ERROR_LINES), OUTPUT_TEXTS.validator.moreErrors(lines.length - MAX_ERROR_LINES)];
}

/** Parameters from a zod schema: draft-07 JSON Schema of the input side, checked by the schema itself. */
export function zodParameters(schema: z.ZodType): Parameters | { error: string } {
  let jsonSchema: Record<string, unknown>;
  try {
    jsonSchema = z.toJSONSchema(schema, { target: 'draft-07', io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
  } catch (e) {
    return { error: ARGUMENT_MESSAGES.unconvertible((e as Error).message) };
  }
  delete jsonSchema.$schema;
  if (jsonSchema.type !== 'object') return { error: ARGUMENT_MESSAGES.notObjectSchema };
  const validate: ArgumentValidator = (args) => {
    try {
      const r = parseWithIssues(schema, args);
      if (r.ok) return { ok: true, value: r.data };
      return { ok: false, errors: capLines(r.issues.map((i) => `${pointer(i.path)}: ${i.message}`)) };
    } catch (e) {
      return { ok: false, errors: [ARGUMENT_MESSAGES.zodThrew((e as Error).message)] };
    }
  };
  return { jsonSchema, validate };
}

function ajvFor(schema: Record<string, unknown>): { ajv: Ajv; schema: Record<string, unknown> } {
  const options = { allErrors: true, strict: false, logger: false as const, validateFormats: false };
  const dialect = typeof schema.$schema === 'string' ? schema.$schema : '';
  if (dialect.includes('2020-12')) return { ajv: new Ajv2020(options), schema };
  if (dialect.includes('2019-09')) return { ajv: new Ajv2019(options), schema };
  // draft-07 and anything older or unknown: checked as draft-07, which reads them the same way in practice
  const { $schema: _ignored, ...rest } = schema;
  return { ajv: new Ajv(options), schema: rest };
}

/** A validator for a JSON Schema, or why it cannot be compiled. */
export function compileJsonSchema(schema: Record<string, unknown>): ArgumentValidator | { error: string } {
  let fn: ValidateFunction;
  try {
    const { ajv, schema: usable } = ajvFor(schema);
    fn = ajv.compile(usable);
  } catch (e) {
    return { error: ARGUMENT_MESSAGES.badJsonSchema((e as Error).message) };
  }
  return (args) => (fn(args) ? { ok: true, value: args } : { ok: false, errors: formatAjvErrors(fn.errors ?? []) });
}

/** Parameters from a module's JSON Schema object (checked when the module loads). */
export function jsonSchemaParameters(schema: unknown): Parameters | { error: string } {
  if (isZod3Schema(schema)) return { error: ARGUMENT_MESSAGES.zod3 };
  if (typeOf(schema) !== 'object' || (schema as Record<string, unknown>).type !== 'object') {
    return { error: ARGUMENT_MESSAGES.notObjectSchema };
  }
  const jsonSchema = schema as Record<string, unknown>;
  const validate = compileJsonSchema(jsonSchema);
  return typeof validate === 'function' ? { jsonSchema, validate } : validate;
}
