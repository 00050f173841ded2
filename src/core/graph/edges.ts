/**
 * Edge parsing: the string form `"a -> b: label"` and the
 * object form `{from, to, label?, exit?, when?}`. `exit` is true exactly for edges to parent; a
 * malformed edge is an error, never skipped. Each edge remembers where it came from so the
 * validator can point at it in the YAML. An object edge whose `exit` or `when` is wrong is still
 * returned beside its errors, so that its endpoints and the rest of the graph are checked too. Pure.
 */
import type { EdgeConfig } from '../config/schema';
import { prefixIssues, type Path, type PathIssue } from '../config/issues';
import { parseCondition } from '../conditions/parse';
import { locateParsed, type LocatedCondition } from '../conditions/walk';
import { GRAPH_MESSAGES as M } from './messages';
import { PARENT, type Edge } from './types';

/** The edge string: names are anything but whitespace, `>` and `:`; the label follows the first `:`. */
const EDGE_STRING_RE = /^\s*([^\s>:]+)\s*->\s*([^\s>:]+)(?:\s*:\s*(.*?))?\s*$/;

/** Where an edge came from: a `flow` item, or a topology expanded over `collaboration.agents`. */
type EdgeSource =
  | { kind: 'flow'; index: number; form: 'string' | 'object' }
  | { kind: 'topology'; fromIndex?: number; toIndex?: number };

/** An edge before compilation, with its origin. */
export interface EdgeDraft extends Edge {
  source: EdgeSource;
  /** Its `when` could not be read (the errors say why): it is guarded, by something unknown. */
  whenInvalid?: true;
}

/** Base path of `collaboration.flow[i]`. */
function flowPath(index: number): Path {
  return ['collaboration', 'flow', index];
}

/** The YAML path that best shows an edge's `from` or `to` name. */
export function endpointPath(source: EdgeSource, field: 'from' | 'to'): Path {
  switch (source.kind) {
    case 'flow':
      return source.form === 'object' ? [...flowPath(source.index), field] : flowPath(source.index);
    case 'topology': {
      const i = field === 'from' ? source.fromIndex : source.toIndex;
      return i === undefined ? ['collaboration', 'topology'] : ['collaboration', 'agents', i];
    }
    default: {
      const never: never = source;
      return never;
    }
  }
}

/** The YAML path of a whole edge. */
export function edgePath(source: EdgeSource): Path {
  return source.kind === 'flow' ? flowPath(source.index) : ['collaboration', 'topology'];
}

/**
 * Parse `"a -> b"` / `"a -> b: label"`; undefined when it does not match. A blank label is no label.
 * @internal exported for tests
 */
export function parseEdgeString(s: string): { from: string; to: string; label?: string } | undefined {
  const m = EDGE_STRING_RE.exec(s);
  if (!m) return undefined;
  const label = m[3]?.trim();
  return { from: m[1], to: m[2], ...(label ? { label } : {}) };
}

/** One parsed `flow` item: the edge when its ends are known, its issues, and its `when` guard located. */
interface ParsedFlowEdge {
  edge?: EdgeDraft;
  issues: PathIssue[];
  guard?: LocatedCondition;
}

/** Parse one `flow` item (already shape-checked by the schema). Issues have absolute paths. */
export function parseFlowEdge(raw: EdgeConfig, index: number): ParsedFlowEdge {
  const base = flowPath(index);
  if (typeof raw === 'string') {
    const p = parseEdgeString(raw);
    if (!p) return { issues: [{ path: base, message: M.malformedEdge(raw) }] };
    if (p.from === PARENT && p.to === PARENT) return { issues: [{ path: base, message: M.parentToParent }] };
    return { edge: { ...p, exit: p.to === PARENT, source: { kind: 'flow', index, form: 'string' } }, issues: [] };
  }
  const issues: PathIssue[] = [];
  const toParent = raw.to === PARENT;
  if (raw.exit === true && !toParent) issues.push({ path: [...base, 'exit'], message: M.exitToAgent(raw.to) });
  if (raw.exit === false && toParent) issues.push({ path: [...base, 'exit'], message: M.notExitToParent });
  let guard: LocatedCondition | undefined;
  if (raw.when !== undefined) {
    if (raw.from === PARENT) issues.push({ path: [...base, 'when'], message: M.whenOnEntry, at: 'key' });
    const parsed = parseCondition(raw.when);
    issues.push(...prefixIssues([...base, 'when'], parsed.issues));
    guard = locateParsed(parsed, [...base, 'when'], 'when');
  }
  if (raw.from === PARENT && toParent) return { issues: [{ path: base, message: M.parentToParent }, ...issues], ...(guard && { guard }) };
  const label = raw.label?.trim();
  const when = raw.from === PARENT ? undefined : guard?.condition;
  const edge: EdgeDraft = {
    from: raw.from,
    to: raw.to,
    ...(label ? { label } : {}),
    exit: toParent,
    ...(when ? { when } : {}),
    ...(guard && !guard.condition && raw.from !== PARENT ? { whenInvalid: true as const } : {}),
    source: { kind: 'flow', index, form: 'object' },
  };
  return { edge, issues, ...(guard && { guard }) };
}
