/**
 * zod issues → friendly path issues: "expected number, got string", "required",
 * one `unknown key "x" (did you mean "y"?)` per unknown key located at the key, and union errors
 * reduced to the branch the user evidently meant. Pure.
 */
import { z } from 'zod';
import { didYouMean } from './did-you-mean';
import type { Path, PathIssue } from './issues';
import { CONFIG_MESSAGES as M } from './messages';

type Issue = z.core.$ZodIssue;
type RawIssue = z.core.$ZodRawIssue;

const EXPECTED_NAMES: Record<string, string> = { int: 'integer', record: 'object', map: 'object' };

/** The type of a YAML value as users call it: `null`, `array`, `object`, `string`, ... */
export function typeName(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  return typeof v;
}

function expectedName(e: string): string {
  return EXPECTED_NAMES[e] ?? e;
}

function tooSmall(iss: { origin: string; minimum: number | bigint; inclusive?: boolean }): string {
  if (iss.origin === 'string') return iss.minimum === 1 ? M.nonEmptyString : M.minLength(iss.minimum);
  if (iss.origin === 'array' || iss.origin === 'set') return iss.minimum === 1 ? M.nonEmptyList : M.minItems(iss.minimum);
  return iss.inclusive === false ? M.greaterThan(iss.minimum) : M.atLeast(iss.minimum);
}

function tooBig(iss: { origin: string; maximum: number | bigint; inclusive?: boolean }): string {
  if (iss.origin === 'string') return M.maxLength(iss.maximum);
  if (iss.origin === 'array' || iss.origin === 'set') return M.maxItems(iss.maximum);
  return iss.inclusive === false ? M.lessThan(iss.maximum) : M.atMost(iss.maximum);
}

/**
 * Per-parse error map: friendly defaults. Messages written in the schema (e.g.
 * `must be an integer >= 2`) take precedence over it, as zod gives schema messages priority.
 */
const friendlyErrorMap = (iss: RawIssue): string | undefined => {
  switch (iss.code) {
    case 'invalid_type':
      if (iss.input === undefined) return M.required;
      if (iss.expected === 'int' && typeof iss.input === 'number') return M.expected('integer', String(iss.input));
      return M.expected(expectedName(iss.expected), typeName(iss.input));
    case 'too_small':
      return tooSmall(iss);
    case 'too_big':
      return tooBig(iss);
    case 'invalid_value':
      return M.oneOf(iss.values, typeof iss.input === 'string' ? didYouMean(iss.input, iss.values.map(String)) : '');
    case 'invalid_format':
      return M.pattern(iss.pattern ?? iss.format);
    case 'not_multiple_of':
      return M.multipleOf(Number(iss.divisor));
    case 'unrecognized_keys':
    case 'invalid_union':
    case 'invalid_key':
    case 'invalid_element':
    case 'custom':
      return undefined;
    default: {
      const never: never = iss;
      return String(never);
    }
  }
};

function unwrap(s: z.ZodType): z.ZodType {
  for (;;) {
    if (s instanceof z.ZodOptional || s instanceof z.ZodNullable || s instanceof z.ZodDefault) s = s.unwrap() as z.ZodType;
    else if (s instanceof z.ZodPipe) s = s.in as z.ZodType;
    else return s;
  }
}

function child(s: z.ZodType, seg: string | number): z.ZodType | undefined {
  const u = unwrap(s);
  if (u instanceof z.ZodObject) return typeof seg === 'string' ? (u.shape[seg] as z.ZodType | undefined) : undefined;
  if (u instanceof z.ZodRecord) return u.valueType as z.ZodType;
  if (u instanceof z.ZodArray) return u.element as z.ZodType;
  if (u instanceof z.ZodUnion) {
    for (const o of u.options as z.ZodType[]) {
      const c = child(o, seg);
      if (c) return c;
    }
  }
  return undefined;
}

/**
 * The keys an object schema at `path` accepts (the first object option of a union).
 * @internal exported for tests
 */
export function knownKeysAt(schema: z.ZodType, path: Path): string[] {
  let s: z.ZodType | undefined = schema;
  for (const seg of path) {
    s = s && child(s, seg);
    if (!s) return [];
  }
  const u = unwrap(s);
  if (u instanceof z.ZodObject) return Object.keys(u.shape);
  if (u instanceof z.ZodUnion) {
    for (const o of u.options as z.ZodType[]) {
      const keys = knownKeysAt(o, []);
      if (keys.length) return keys;
    }
  }
  return [];
}

function isRootTypeMismatch(branch: Issue[]): boolean {
  return branch.every((i) => i.code === 'invalid_type' && i.path.length === 0);
}

function convert(issue: Issue, base: Path, schema: z.ZodType, schemaBase: Path, out: PathIssue[]): void {
  const path = [...base, ...(issue.path as Array<string | number>)];
  if (issue.code === 'unrecognized_keys') {
    const known = knownKeysAt(schema, [...schemaBase, ...path.slice(base.length)]);
    for (const key of issue.keys) out.push({ path: [...path, key], message: M.unknownKey(key, didYouMean(key, known)), at: 'key' });
    return;
  }
  if (issue.code === 'invalid_union' && issue.errors.length > 0) {
    const meant = issue.errors.find((b) => !isRootTypeMismatch(b));
    if (meant) {
      const rel = path.slice(base.length);
      for (const i of meant) convert(i, path, schema, [...schemaBase, ...rel], out);
      return;
    }
    const expected = [...new Set(issue.errors.flat().map((i) => expectedName((i as { expected: string }).expected)))];
    out.push({ path, message: M.expected(expected.join(' or '), typeName(issue.input)) });
    return;
  }
  out.push({ path, message: issue.message || M.invalid });
}

/**
 * Validate `value` with `schema`; on failure return friendly issues with paths prefixed by `base`.
 * All issues are reported, not just the first.
 */
export function parseWithIssues<S extends z.ZodType>(
  schema: S,
  value: unknown,
  base: Path = [],
): { ok: true; data: z.infer<S> } | { ok: false; issues: PathIssue[] } {
  const r = schema.safeParse(value, { error: friendlyErrorMap, reportInput: true });
  if (r.success) return { ok: true, data: r.data };
  const out: PathIssue[] = [];
  for (const issue of r.error.issues) convert(issue, base, schema, [], out);
  return { ok: false, issues: out };
}
