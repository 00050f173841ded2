/**
 * A best-effort config for running the graph checks when the schema failed elsewhere, so that
 * "all errors at once" includes graph errors too (SPEC §3). Failing optional sections are dropped,
 * a failing agent keeps only its name, unknown keys and bad optional edge fields are removed; an
 * edge or topology that cannot be read gives up (the graph checks would only add noise). Pure.
 */
import { RoleConfigSchema, type RoleConfig } from './schema';
import type { PathIssue } from './issues';

type Json = unknown;

function clone(v: Json): Json {
  if (Array.isArray(v)) return v.map(clone);
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, clone(x)]));
  return v;
}

function parentOf(root: Json, path: PathIssue['path']): Record<string | number, Json> | undefined {
  let cur = root;
  for (const seg of path.slice(0, -1)) {
    if (!cur || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string | number, Json>)[seg];
  }
  return cur && typeof cur === 'object' ? (cur as Record<string | number, Json>) : undefined;
}

const PLACEHOLDER_AGENT = { instructions: '-' };

/** Fields of a flow object edge that can be dropped without changing which edge it is. */
const DROPPABLE_EDGE_FIELDS = new Set<string | number>(['label', 'exit', 'when']);

function repairCollaboration(c: Record<string, Json>, path: PathIssue['path']): boolean {
  const [key, index, field] = path;
  if (key === 'termination' || key === 'max_iterations' || key === 'context') {
    delete c[key];
    return true;
  }
  if (key === 'flow' && typeof index === 'number' && field !== undefined && DROPPABLE_EDGE_FIELDS.has(field)) {
    const edge = (c.flow as Json[])[index];
    if (edge && typeof edge === 'object') delete (edge as Record<string | number, Json>)[field];
    return true;
  }
  return false;
}

/** Apply one schema issue to the copy; false when the graph checks cannot run. */
function repair(data: Record<string, Json>, issue: PathIssue): boolean {
  const { path } = issue;
  if (issue.at === 'key') {
    const parent = parentOf(data, path);
    if (parent) delete parent[path[path.length - 1]];
    return true;
  }
  const top = path[0];
  if (top === undefined) return false;
  if (top === 'collaboration') return repairCollaboration(data.collaboration as Record<string, Json>, path.slice(1));
  if (top === 'agents') {
    if (path.length < 2) return false;
    (data.agents as Record<string, Json>)[path[1]] = { ...PLACEHOLDER_AGENT };
    return true;
  }
  if (top === 'name') data.name = 'x';
  else delete data[top];
  return true;
}

/** A schema-valid stand-in for `data`, or undefined when the failures leave no usable graph. */
export function lenientConfig(data: unknown, issues: readonly PathIssue[]): RoleConfig | undefined {
  if (!data || typeof data !== 'object' || Array.isArray(data)) return undefined;
  const copy = clone(data) as Record<string, Json>;
  for (const issue of issues) if (!repair(copy, issue)) return undefined;
  const r = RoleConfigSchema.safeParse(copy);
  return r.success ? r.data : undefined;
}
