/**
 * A best-effort config for running the graph checks when the schema failed elsewhere, so that
 * "all errors at once" includes graph errors too (SPEC §3). Failing optional sections are dropped,
 * a failing agent keeps only its name, unknown keys are removed; a failing `collaboration` or
 * `agents` map gives up. Pure.
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
  if (top === 'collaboration') return false;
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
