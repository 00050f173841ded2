/**
 * `collaboration.topology` + `collaboration.agents` → edge drafts: checks
 * the agent list (declared, not `parent`, no duplicates), expands the topology, and records for
 * each edge which list entries its ends came from. Pure.
 */
import type { RoleConfig } from '../config/schema';
import type { PathIssue } from '../config/issues';
import { didYouMean } from '../config/did-you-mean';
import type { EdgeDraft } from './edges';
import { GRAPH_MESSAGES as M } from './messages';
import { isTeam } from './teams';
import { getTopology, topologyNames } from './topologies';
import { PARENT } from './types';

const AGENTS_PATH = ['collaboration', 'agents'] as const;
const TOPOLOGY_PATH = ['collaboration', 'topology'] as const;

function isEdgeShape(e: unknown): boolean {
  const x = e as { from?: unknown; to?: unknown } | null;
  return typeof x === 'object' && x !== null && typeof x.from === 'string' && x.from !== '' && typeof x.to === 'string' && x.to !== '';
}

/** Check the list; return the first index of each usable name (in list order). */
function checkAgentList(list: readonly string[], declared: ReadonlySet<string>, errors: PathIssue[]): Map<string, number> {
  const first = new Map<string, number>();
  list.forEach((raw, j) => {
    const name = raw.trim();
    const path = [...AGENTS_PATH, j];
    if (name === PARENT) errors.push({ path, message: M.parentInTopology });
    else if (first.has(name)) errors.push({ path, message: M.duplicateTopologyAgent(name) });
    else {
      if (!declared.has(name)) errors.push({ path, message: M.undeclaredAgent(name, didYouMean(name, declared)) });
      first.set(name, j);
    }
  });
  return first;
}

/**
 * Template edges of the collaboration block (empty without a topology), plus issues. `failed`
 * says a topology was set but gave no edges (unknown, no agents, or its expander failed).
 */
export function topologyEdges(
  c: RoleConfig['collaboration'],
  declared: ReadonlySet<string>,
): { edges: EdgeDraft[]; errors: PathIssue[]; warnings: PathIssue[]; failed: boolean } {
  const errors: PathIssue[] = [];
  const warnings: PathIssue[] = [];
  if (c.topology === undefined) {
    if (c.agents !== undefined) {
      checkAgentList(c.agents, declared, errors);
      warnings.push({ path: [...AGENTS_PATH], message: M.agentsWithoutTopology, at: 'key' });
    }
    return { edges: [], errors, warnings, failed: false };
  }
  const name = c.topology.trim();
  const expand = getTopology(name);
  if (!expand && !isTeam(name)) {
    const names = topologyNames();
    errors.push({ path: [...TOPOLOGY_PATH], message: M.unknownTopology(name, names, didYouMean(name, names)) });
  }
  if (!c.agents || c.agents.length === 0) {
    errors.push({ path: [...AGENTS_PATH], message: M.topologyNeedsAgents });
    return { edges: [], errors, warnings, failed: true };
  }
  const index = checkAgentList(c.agents, declared, errors);
  // a team's edges come from its handoffs (`teams.ts`)
  if (isTeam(name)) return { edges: [], errors, warnings, failed: false };
  if (!expand) return { edges: [], errors, warnings, failed: true };
  let raw: ReturnType<typeof expand>;
  try {
    raw = expand([...index.keys()]);
  } catch (e) {
    errors.push({ path: [...TOPOLOGY_PATH], message: M.topologyFailed(name, (e as Error).message) });
    return { edges: [], errors, warnings, failed: true };
  }
  if (!Array.isArray(raw) || !raw.every(isEdgeShape)) {
    errors.push({ path: [...TOPOLOGY_PATH], message: M.topologyFailed(name, M.topologyBadEdges) });
    return { edges: [], errors, warnings, failed: true };
  }
  const edges: EdgeDraft[] = [];
  for (const e of raw) {
    if (e.exit === true && e.to !== PARENT) {
      errors.push({ path: [...TOPOLOGY_PATH], message: M.topologyExitToAgent(name, e.to) });
      continue;
    }
    const label = e.label?.trim();
    edges.push({
      from: e.from,
      to: e.to,
      ...(label ? { label } : {}),
      exit: e.to === PARENT,
      source: { kind: 'topology', fromIndex: index.get(e.from), toIndex: index.get(e.to) },
    });
  }
  return { edges, errors, warnings, failed: false };
}
