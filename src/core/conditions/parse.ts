/**
 * YAML condition items → compiled `Condition`s, for `collaboration.termination` and for edge
 * `when` guards. The parser owns the item's shape (exactly one key, or a plugin's string form
 * `key(value)`) and the composites; a leaf's value is checked by its plugin (its zod schema, then
 * its `parse`). Nothing is skipped silently: unknown keys are errors with a "did you mean". Issues
 * carry paths relative to the item so the loader can locate them in the YAML. Every item also
 * reports the agents it names (the plugins' `agents` hook), read even when the item is invalid,
 * so an unknown agent is reported beside the item's other errors instead of after they are fixed.
 * Pure.
 */
import { didYouMean } from '../config/did-you-mean';
import { prefixIssues, type Path, type PathIssue } from '../config/issues';
import { clip, MAX_CONFIG_DEPTH } from '../config/limits';
import { parseWithIssues, typeName } from '../config/zod-issues';
import type { ConditionPlugin } from './plugin';
import { conditionKeys, getConditionPlugin, isBuiltinConditionKey } from './registry';
import type { Condition } from './types';

/** User-visible messages of condition parsing. */
const PARSE_MESSAGES = {
  notACondition: (got: string) =>
    `expected a condition (an object with one key, or "signal_observed(type)"), got ${got}`,
  badString: (s: string) =>
    `"${clip(s)}" is not a condition; write an object with one key (e.g. max_iterations: 5) or "signal_observed(type)"`,
  empty: 'empty condition: needs exactly one key',
  manyKeys: (keys: string[]) =>
    `a condition has exactly one key, got ${keys.length} (${keys.join(', ')}); put each condition in its own list item`,
  unknownKey: (key: string, hint: string) => `unknown condition "${clip(key)}"${hint}`,
  notAList: (got: string) => `expected array, got ${got}`,
  emptyList: 'must list at least one condition',
  tooDeep: (max: number) => `any_of and all_of are nested more than ${max} levels deep here; flatten them`,
} as const;

/** An agent name written in a condition item, with paths relative to that item. */
export interface AgentMention {
  /** The key of the condition that names it. */
  kind: string;
  /** The name as compiled (trimmed). */
  agent: string;
  /** Where the name is: `[converged, agent]` (both forms), `[stuck, agent]`, `[text_mention, sources, i]`, … */
  path: Path;
  /** The leaf item that holds it (`[]` for the item itself, `[any_of, 1]` for a nested one). */
  item: Path;
}

/**
 * Result of parsing one condition item: the condition or the issues (never both), and the agents
 * the item names (whether or not it is valid).
 */
export interface ParsedCondition {
  condition?: Condition;
  issues: PathIssue[];
  agents: AgentMention[];
}

/** A parse before its agent mentions are attached. */
type Parsed = Omit<ParsedCondition, 'agents'>;

const CALL_FORM = /^\s*([a-z_][a-z0-9_]*)\s*\(\s*(.*?)\s*\)\s*$/;

/**
 * The agents named under `key` in a leaf item's raw `value`, as its plugin reads them (as far as
 * the value allows); none when the plugin has no `agents` hook or the hook throws.
 */
function leafMentions(key: string, value: unknown): AgentMention[] {
  const plugin = getConditionPlugin(key);
  if (!plugin?.agents) return [];
  try {
    return plugin.agents(value).map(({ agent, path }) => ({ kind: key, agent, path: [key, ...path], item: [] }));
  } catch {
    return [];
  }
}

function prefixMentions(base: Path, mentions: readonly AgentMention[]): AgentMention[] {
  return mentions.map((m) => ({ ...m, path: [...base, ...m.path], item: [...base, ...m.item] }));
}

/** The agents named under `key`, nested lists included. */
function mentionsUnder(key: string, value: unknown, depth: number): AgentMention[] {
  if ((key === 'any_of' || key === 'all_of') && Array.isArray(value)) return prefixMentions([key], parseConditionList(value, depth + 1).agents);
  return leafMentions(key, value);
}

function parseComposite(kind: 'any_of' | 'all_of', value: unknown, depth: number): ParsedCondition {
  if (!Array.isArray(value)) return { issues: [{ path: [kind], message: PARSE_MESSAGES.notAList(typeName(value)) }], agents: [] };
  if (value.length === 0) return { issues: [{ path: [kind], message: PARSE_MESSAGES.emptyList }], agents: [] };
  if (depth >= MAX_CONFIG_DEPTH) return { issues: [{ path: [kind], message: PARSE_MESSAGES.tooDeep(MAX_CONFIG_DEPTH), at: 'key' }], agents: [] };
  const { conditions, issues, agents } = parseConditionList(value, depth + 1);
  const named = prefixMentions([kind], agents);
  if (issues.length) return { issues: prefixIssues([kind], issues), agents: named };
  return { condition: { kind, items: conditions }, issues: [], agents: named };
}

function parseKeyed(key: string, value: unknown, depth: number): ParsedCondition {
  if (key === 'any_of' || key === 'all_of') return parseComposite(key, value, depth);
  return { ...parseLeaf(key, value), agents: leafMentions(key, value) };
}

/**
 * Parse a value with its plugin: its schema first (every issue, located under the key), then its
 * `parse`. A built-in compiles to its params; a user's plugin to `{ kind: 'custom', key, params }`.
 */
function parseWithPlugin(key: string, plugin: ConditionPlugin<unknown>, value: unknown): Parsed {
  let data = value;
  if (plugin.schema) {
    const checked = parseWithIssues(plugin.schema, value, [key]);
    if (!checked.ok) return { issues: checked.issues };
    data = checked.data;
  }
  let r: ReturnType<typeof plugin.parse>;
  try {
    r = plugin.parse(data);
  } catch (e) {
    r = { ok: false, message: (e as Error).message };
  }
  if (!r.ok) return { issues: [{ path: [key, ...(r.path ?? [])], message: r.message }] };
  const condition = isBuiltinConditionKey(key) ? (r.params as Condition) : { kind: 'custom' as const, key, params: r.params };
  return { condition, issues: [] };
}

function parseLeaf(key: string, value: unknown): Parsed {
  const plugin = getConditionPlugin(key);
  if (plugin) return parseWithPlugin(key, plugin, value);
  const hint = didYouMean(key, conditionKeys());
  return { issues: [{ path: [key], message: PARSE_MESSAGES.unknownKey(key, hint), at: 'key' }] };
}

/** The string form `key(value)` of a condition whose plugin allows it (`"signal_observed(done)"`); issues sit on the string. */
function parseString(s: string): ParsedCondition {
  const m = CALL_FORM.exec(s);
  const plugin = m ? getConditionPlugin(m[1]) : undefined;
  if (m && plugin?.callForm) {
    const r = parseWithPlugin(m[1], plugin, m[2]);
    return { ...r, issues: r.issues.map((i) => ({ ...i, path: [] })), agents: [] };
  }
  return { issues: [{ path: [], message: PARSE_MESSAGES.badString(s) }], agents: [] };
}

/**
 * Parse one condition item: `{key: value}` with exactly one key, or `"signal_observed(type)"`.
 * `depth` counts the any_of/all_of lists around it; past `MAX_CONFIG_DEPTH` a list is an error, so
 * no input can exhaust the stack (docs/semantics.md, "Bounds on hostile input").
 */
export function parseCondition(item: unknown, depth = 0): ParsedCondition {
  if (typeof item === 'string') return parseString(item);
  if (item === null || typeof item !== 'object' || Array.isArray(item)) {
    return { issues: [{ path: [], message: PARSE_MESSAGES.notACondition(typeName(item)) }], agents: [] };
  }
  const entries = Object.entries(item as Record<string, unknown>);
  if (entries.length === 0) return { issues: [{ path: [], message: PARSE_MESSAGES.empty }], agents: [] };
  if (entries.length > 1) {
    const agents = entries.flatMap(([k, v]) => mentionsUnder(k, v, depth));
    return { issues: [{ path: [], message: PARSE_MESSAGES.manyKeys(entries.map(([k]) => k)) }], agents };
  }
  return parseKeyed(entries[0][0], entries[0][1], depth);
}

/**
 * Parse a list of items; issue and mention paths start with the item index. Conditions of valid
 * items only; mentions of every item.
 * @internal exported for tests
 */
export function parseConditionList(
  items: readonly unknown[],
  depth = 0,
): { conditions: Condition[]; issues: PathIssue[]; agents: AgentMention[] } {
  const conditions: Condition[] = [];
  const issues: PathIssue[] = [];
  const agents: AgentMention[] = [];
  items.forEach((item, i) => {
    const r = parseCondition(item, depth);
    if (r.condition) conditions.push(r.condition);
    issues.push(...prefixIssues([i], r.issues));
    agents.push(...prefixMentions([i], r.agents));
  });
  return { conditions, issues, agents };
}
