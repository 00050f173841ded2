/**
 * A best-effort config for running the graph checks when the schema failed elsewhere, so that
 * "all errors at once" includes graph and condition errors too. Each schema issue is
 * repaired as narrowly as possible, so that one error does not hide its neighbours:
 *
 * - an unknown key is removed; a failing optional section or setting is dropped;
 * - a termination list that is not a non-empty list is dropped, the other list is kept;
 * - a failing agent keeps only its name;
 * - a flow item, or `collaboration.agents` entry, that cannot be read is replaced by a stand-in
 *   whose own complaints are not reported (`unreliable`); a bad label, exit or `when` field is
 *   removed from its edge;
 * - when edges are left out (an unreadable item, flow list or topology), `partial` asks the
 *   compiler to skip the checks that need the whole graph.
 *
 * Only a file whose agents map or collaboration block cannot be read gives up. Pure.
 */
import { RoleConfigSchema, type RoleConfig } from './schema';
import type { Path, PathIssue } from './issues';

type Json = unknown;
type Container = Record<string | number, Json>;

/** A stand-in config and what the compiler's findings on it are worth. */
interface LenientConfig {
  config: RoleConfig;
  /** Compiler issues under these paths are about stand-ins, not the user's text: drop them. */
  unreliable: Path[];
  /** Some edges were left out: the whole-graph checks would mislead. */
  partial: boolean;
}

function clone(v: Json): Json {
  if (Array.isArray(v)) return v.map(clone);
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, clone(x)]));
  return v;
}

function parentOf(root: Json, path: Path): Container | undefined {
  let cur = root;
  for (const seg of path.slice(0, -1)) {
    if (!cur || typeof cur !== 'object') return undefined;
    cur = (cur as Container)[seg];
  }
  return cur && typeof cur === 'object' ? (cur as Container) : undefined;
}

const PLACEHOLDER_AGENT = { instructions: '-' };
/** A flow item that parses as a malformed edge: the compiler leaves it out (its complaint is dropped). */
const PLACEHOLDER_EDGE = '';
/** A topology entry no valid agent name matches (names may not contain ":"). */
const PLACEHOLDER_NAME = '?:';

/** Fields of a flow object edge that can be dropped without changing which edge it is. */
const DROPPABLE_EDGE_FIELDS = new Set<string | number>(['label', 'exit', 'when']);

interface Repair {
  data: Record<string, Json>;
  unreliable: Path[];
  partial: boolean;
}

function listAt(c: Record<string, Json>, key: string): Json[] | undefined {
  return Array.isArray(c[key]) ? (c[key] as Json[]) : undefined;
}

function repairCollaboration(r: Repair, path: Path): boolean {
  const c = r.data.collaboration;
  if (!c || typeof c !== 'object' || Array.isArray(c)) return false;
  const collab = c as Record<string, Json>;
  const [key, index, field] = path;
  if (key === undefined) return false;
  if (key === 'termination') {
    const t = collab.termination;
    if ((index === 'any_of' || index === 'all_of') && t && typeof t === 'object' && !Array.isArray(t)) delete (t as Container)[index];
    else delete collab.termination;
    return true;
  }
  if (key === 'max_iterations' || key === 'context') {
    delete collab[key];
    return true;
  }
  if (key === 'flow' || key === 'agents') {
    const list = listAt(collab, key);
    const base = ['collaboration', key];
    if (!list || typeof index !== 'number') {
      delete collab[key];
      r.unreliable.push(base);
    } else if (key === 'flow' && field !== undefined && DROPPABLE_EDGE_FIELDS.has(field)) {
      const edge = list[index];
      if (edge && typeof edge === 'object') delete (edge as Container)[field];
      return true;
    } else {
      list[index] = key === 'flow' ? PLACEHOLDER_EDGE : PLACEHOLDER_NAME;
      r.unreliable.push([...base, index]);
    }
    r.partial = true;
    return true;
  }
  delete collab[key];
  if (key === 'topology') r.partial = true;
  return true;
}

/** Apply one schema issue to the copy; false when the graph checks cannot run. */
function repair(r: Repair, issue: PathIssue): boolean {
  const { path } = issue;
  if (issue.at === 'key') {
    const parent = parentOf(r.data, path);
    if (parent) delete parent[path[path.length - 1]];
    return true;
  }
  const top = path[0];
  if (top === undefined) return false;
  if (top === 'collaboration') return repairCollaboration(r, path.slice(1));
  if (top === 'agents') {
    const agents = r.data.agents;
    if (path.length < 2 || !agents || typeof agents !== 'object' || Array.isArray(agents)) return false;
    (agents as Container)[path[1]] = { ...PLACEHOLDER_AGENT };
    return true;
  }
  if (top === 'name') r.data.name = 'x';
  else delete r.data[top];
  return true;
}

/** A schema-valid stand-in for `data`, or undefined when the failures leave no usable graph. */
export function lenientConfig(data: unknown, issues: readonly PathIssue[]): LenientConfig | undefined {
  if (!data || typeof data !== 'object' || Array.isArray(data)) return undefined;
  const r: Repair = { data: clone(data) as Record<string, Json>, unreliable: [], partial: false };
  for (const issue of issues) if (!repair(r, issue)) return undefined;
  const parsed = RoleConfigSchema.safeParse(r.data);
  return parsed.success ? { config: parsed.data, unreliable: r.unreliable, partial: r.partial } : undefined;
}
