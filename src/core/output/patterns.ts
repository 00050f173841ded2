/**
 * The regular expressions an output schema runs on model output: every `pattern` keyword and every
 * `patternProperties` key, found where ajv would evaluate them (in subschemas, never in `enum`,
 * `const`, `default` or `examples` data), for the backtracking check at validation
 * (docs/semantics.md, "Bounds on hostile input"). Iterative, so a deep schema cannot exhaust the stack. Pure.
 */
import type { Path } from '../config/issues';

/** A pattern of the schema: its source, its path under the schema, and whether it is a key. */
interface SchemaPattern {
  path: Path;
  source: string;
  /** A `patternProperties` key (located at the key) rather than a `pattern` value. */
  key?: true;
}

/** Keywords whose value is one subschema. */
const ONE = ['additionalItems', 'additionalProperties', 'contains', 'propertyNames', 'if', 'then', 'else', 'not', 'items', 'unevaluatedItems', 'unevaluatedProperties', 'contentSchema'];
/** Keywords whose value is a list of subschemas. */
const LIST = ['allOf', 'anyOf', 'oneOf', 'items', 'prefixItems'];
/** Keywords whose value maps names to subschemas. */
const MAP = ['properties', 'patternProperties', 'definitions', '$defs', 'dependencies', 'dependentSchemas'];

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** The patterns of `schema`, in document order. */
export function schemaPatterns(schema: unknown): SchemaPattern[] {
  const out: SchemaPattern[] = [];
  const seen = new Set<object>();
  const stack: Array<{ node: unknown; path: Path }> = [{ node: schema, path: [] }];
  while (stack.length > 0) {
    const { node, path } = stack.pop()!;
    if (!isObject(node) || seen.has(node)) continue;
    seen.add(node);
    const next: Array<{ node: unknown; path: Path }> = [];
    if (typeof node.pattern === 'string') out.push({ path: [...path, 'pattern'], source: node.pattern });
    if (isObject(node.patternProperties)) {
      for (const key of Object.keys(node.patternProperties)) out.push({ path: [...path, 'patternProperties', key], source: key, key: true });
    }
    for (const k of ONE) if (isObject(node[k])) next.push({ node: node[k], path: [...path, k] });
    for (const k of LIST) {
      const list = node[k];
      if (Array.isArray(list)) list.forEach((item, i) => next.push({ node: item, path: [...path, k, i] }));
    }
    for (const k of MAP) {
      const map = node[k];
      if (isObject(map)) for (const [name, sub] of Object.entries(map)) next.push({ node: sub, path: [...path, k, name] });
    }
    stack.push(...next.reverse());
  }
  return out;
}
