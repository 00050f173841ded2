/**
 * RoleConfig → CompiledGraph (SPEC §2, §4): topology expansion, flow edges, hybrid merge, the
 * termination expression, loop groups, the effective hard cap, defaults, and every validation
 * check. Issues come back by config path (the loader turns them into line:col). The graph is
 * returned only when there are no errors; it is plain JSON (the workflow argument). Pure.
 */
import type { RoleConfig } from '../config/schema';
import { prefixIssues, type PathIssue } from '../config/issues';
import { parseCondition } from '../termination/parse';
import type { Condition, Termination } from '../termination/types';
import { largestMaxIterations, usesJudge, type LocatedCondition } from './condition-walk';
import { edgePath, parseFlowEdge, type EdgeDraft } from './edges';
import { findLoopGroups, nodesInOrder } from './loops';
import { mergeEdges } from './merge';
import { GRAPH_MESSAGES as M } from './messages';
import { resolveSettings } from './resolve';
import { topologyEdges } from './topology-edges';
import { PARENT, type CompiledGraph, type Edge } from './types';
import { validateConfig } from './validate-config';
import { validateGraph } from './validate';

/** Hard cap on a cyclic graph when no `max_iterations` is set anywhere (§4.5, warning 6). */
export const DEFAULT_MAX_ITERATIONS = 3;

/** Result of compiling: the graph when there are no errors, and path-located issues. */
export interface CompileResult {
  graph?: CompiledGraph;
  errors: PathIssue[];
  warnings: PathIssue[];
}

function compileTermination(t: RoleConfig['collaboration']['termination'], errors: PathIssue[]): { termination: Termination; located: LocatedCondition[] } {
  const located: LocatedCondition[] = [];
  const lists = { any_of: [] as Condition[], all_of: [] as Condition[] };
  for (const key of ['any_of', 'all_of'] as const) {
    (t?.[key] ?? []).forEach((item, i) => {
      const path = ['collaboration', 'termination', key, i];
      const r = parseCondition(item);
      errors.push(...prefixIssues(path, r.issues));
      if (!r.condition) return;
      lists[key].push(r.condition);
      located.push({ condition: r.condition, path, scope: 'termination', inAllOf: key === 'all_of' });
    });
  }
  return { termination: { anyOf: lists.any_of, allOf: lists.all_of }, located };
}

function flowEdges(c: RoleConfig['collaboration'], errors: PathIssue[]): EdgeDraft[] {
  const out: EdgeDraft[] = [];
  (c.flow ?? []).forEach((raw, i) => {
    const r = parseFlowEdge(raw, i);
    errors.push(...r.issues);
    if (r.edge) out.push(r.edge);
  });
  return out;
}

function toEdge({ source: _source, ...edge }: EdgeDraft): Edge {
  return edge;
}

/** Compile a schema-valid config. Never throws. */
export function compileRole(config: RoleConfig): CompileResult {
  const errors: PathIssue[] = [];
  const warnings: PathIssue[] = [];
  const c = config.collaboration;
  const declaredList = Object.keys(config.agents);
  const declared = new Set(declaredList);

  const template = topologyEdges(c, declared);
  errors.push(...template.errors);
  warnings.push(...template.warnings);
  const flow = flowEdges(c, errors);
  const merged = mergeEdges(template.edges, flow);
  for (const { earlier, later } of merged.replaced) {
    if (earlier.source.kind === 'flow') warnings.push({ path: edgePath(later.source), message: M.duplicateEdge(later.from, later.to) });
  }
  const drafts = merged.edges;
  if (drafts.length === 0 && template.errors.length === 0 && flow.length === (c.flow ?? []).length) {
    errors.push({ path: ['collaboration'], message: M.noEdges, at: 'key' });
  }

  const { termination, located } = compileTermination(c.termination, errors);
  drafts.forEach((e) => {
    if (e.when && e.source.kind === 'flow') {
      located.push({ condition: e.when, path: [...edgePath(e.source), 'when'], scope: 'when', inAllOf: false });
    }
  });

  const edges = drafts.map(toEdge);
  const loopGroups = findLoopGroups(edges);
  const largest = largestMaxIterations([...termination.anyOf, ...termination.allOf]);
  const maxIterations = c.max_iterations ?? (loopGroups.length > 0 ? largest ?? DEFAULT_MAX_ITERATIONS : 0);
  const graphIssues = validateGraph({
    edges: drafts,
    declared: declaredList,
    loopGroups,
    capSet: c.max_iterations !== undefined || largest !== undefined,
    cap: loopGroups.length > 0 ? maxIterations : 0,
    conditions: located,
    partial: template.failed || flow.length < (c.flow ?? []).length,
  });
  errors.push(...graphIssues.errors);
  warnings.push(...graphIssues.warnings);

  const settings = resolveSettings(config);
  const nodes = nodesInOrder(edges);
  const configIssues = validateConfig({
    config,
    agents: settings.agents,
    nodes,
    judge: settings.judge.model,
    usesJudge: usesJudge(located.map((l) => l.condition)),
  });
  errors.push(...configIssues.errors);
  warnings.push(...configIssues.warnings);
  if (errors.length > 0) return { errors, warnings };

  const topology = c.topology?.trim();
  const graph: CompiledGraph = {
    ...settings,
    ...(topology !== undefined && { topology }),
    nodes,
    edges,
    entry: [...new Set(edges.filter((e) => e.from === PARENT).map((e) => e.to))],
    loopGroups,
    maxIterations,
    context: c.context ?? (topology === 'round-robin' ? 'thread' : 'inbox'),
    termination,
  };
  return { graph, errors, warnings };
}
