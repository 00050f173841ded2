/**
 * RoleConfig → CompiledGraph: topology expansion, flow edges, hybrid merge, the
 * termination expression, loop groups, the effective hard cap, defaults, and every validation
 * check. Issues come back by config path (the loader turns them into line:col). The graph is
 * returned only when there are no errors; it is plain JSON (the workflow argument). Pure.
 */
import type { RoleConfig } from '../config/schema';
import { prefixIssues, type PathIssue } from '../config/issues';
import { parseCondition } from '../conditions/parse';
import type { Condition, Termination } from '../conditions/types';
import { effectiveCap, iterationsForMessagesInAll, loopShape } from './cap';
import { locateParsed, usesJudge, type LocatedCondition } from '../conditions/walk';
import { edgePath, parseFlowEdge, type EdgeDraft } from './edges';
import { findLoopGroups, nodesInOrder } from './loops';
import { mergeEdges } from './merge';
import { GRAPH_MESSAGES as M } from './messages';
import { resolveSettings } from './resolve';
import { compileTeam } from './teams';
import { topologyEdges } from './topology-edges';
import { compileTeamAgents } from './team-agents';
import { PARENT, type CompiledGraph, type Edge, type TeamGraph } from './types';
import { validateConfig } from './validate-config';
import { validateGraph } from './validate';
import { patternIssues } from './validate-patterns';

/** Result of compiling: the graph when there are no errors, and path-located issues. */
interface CompileResult {
  graph?: CompiledGraph;
  errors: PathIssue[];
  warnings: PathIssue[];
}

/** How to compile. */
interface CompileOptions {
  /**
   * Some of the graph's edges were left out before compiling (the loader's stand-in config for a
   * file that failed the schema): skip the checks that need the whole graph, which would mislead.
   */
  partial?: boolean;
  /** The compiled graphs of the team agents, by agent (docs/teams.md, "Nested teams"): the caller reads their files. */
  teams?: Record<string, TeamGraph>;
}

function compileTermination(t: RoleConfig['collaboration']['termination'], errors: PathIssue[]): { termination: Termination; located: LocatedCondition[] } {
  const located: LocatedCondition[] = [];
  const lists = { any_of: [] as Condition[], all_of: [] as Condition[] };
  for (const key of ['any_of', 'all_of'] as const) {
    (t?.[key] ?? []).forEach((item, i) => {
      const path = ['collaboration', 'termination', key, i];
      const r = parseCondition(item);
      errors.push(...prefixIssues(path, r.issues));
      located.push(locateParsed(r, path, 'termination', key === 'all_of'));
      if (r.condition) lists[key].push(r.condition);
    });
  }
  return { termination: { anyOf: lists.any_of, allOf: lists.all_of }, located };
}

/** The flow's edges and the `when` guards of every flow item (replaced duplicates included). */
function flowEdges(c: RoleConfig['collaboration'], errors: PathIssue[]): { edges: EdgeDraft[]; guards: LocatedCondition[] } {
  const edges: EdgeDraft[] = [];
  const guards: LocatedCondition[] = [];
  (c.flow ?? []).forEach((raw, i) => {
    const r = parseFlowEdge(raw, i);
    errors.push(...r.issues);
    if (r.edge) edges.push(r.edge);
    if (r.guard) guards.push(r.guard);
  });
  return { edges, guards };
}

function toEdge({ source: _source, whenInvalid: _whenInvalid, ...edge }: EdgeDraft): Edge {
  return edge;
}

/** Compile a schema-valid config. Never throws. */
export function compileRole(config: RoleConfig, options: CompileOptions = {}): CompileResult {
  const errors: PathIssue[] = [];
  const warnings: PathIssue[] = [];
  const c = config.collaboration;
  const declaredList = Object.keys(config.agents);
  const declared = new Set(declaredList);

  const template = topologyEdges(c, declared);
  errors.push(...template.errors);
  warnings.push(...template.warnings);
  const { edges: flow, guards } = flowEdges(c, errors);
  const merged = mergeEdges(template.edges, flow);
  for (const { earlier, later } of merged.replaced) {
    if (earlier.source.kind === 'flow') warnings.push({ path: edgePath(later.source), message: M.duplicateEdge(later.from, later.to) });
  }
  const { termination, located } = compileTermination(c.termination, errors);
  located.push(...guards);
  const team = compileTeam(config, merged.edges, termination);
  errors.push(...team.errors);
  warnings.push(...team.warnings);
  const drafts = team.edges ?? merged.edges;
  const partial = options.partial === true || template.failed || flow.length < (c.flow ?? []).length;
  if (drafts.length === 0 && template.errors.length === 0 && !partial) {
    errors.push({ path: ['collaboration'], message: M.noEdges, at: 'key' });
  }

  const edges = drafts.map(toEdge);
  // a team's turns are capped by max_turns; its routes are choices, not loops
  const loopGroups = team.edges ? [] : findLoopGroups(edges);
  const shapes = loopGroups.map((g) => loopShape(g, edges, config.approval?.before_exit ?? false));
  const { cap: maxIterations, bounded } = effectiveCap({ configured: team.edges ? undefined : c.max_iterations, termination, loopGroups, shapes });
  const graphIssues = validateGraph({
    edges: drafts,
    declared: declaredList,
    loopGroups,
    capSet: bounded,
    cap: loopGroups.length > 0 ? maxIterations : 0,
    iterationsForMessages: (n) => iterationsForMessagesInAll(n, shapes),
    conditions: located,
    raw: config,
    partial,
    team: team.edges !== undefined,
  });
  errors.push(...graphIssues.errors);
  warnings.push(...graphIssues.warnings);

  const settings = resolveSettings(config);
  const nested = compileTeamAgents(config, options.teams, partial);
  errors.push(...nested.errors);
  for (const [name, team] of Object.entries(nested.teams)) settings.agents[name] = { ...settings.agents[name], tools: [], team };
  for (const [name, targets] of Object.entries(team.handoffs)) if (settings.agents[name]) settings.agents[name].handoffs = targets;
  const nodes = nodesInOrder(edges);
  const configIssues = validateConfig({
    config,
    agents: settings.agents,
    nodes,
    judge: settings.judge.model,
    usesJudge: usesJudge(located.flatMap((l) => (l.condition ? [l.condition] : []))),
  });
  errors.push(...configIssues.errors);
  warnings.push(...configIssues.warnings);
  errors.push(...patternIssues(located, config.output?.schema));
  if (errors.length > 0) return { errors, warnings };

  const topology = c.topology?.trim();
  const graph: CompiledGraph = {
    ...settings,
    ...(topology !== undefined && { topology }),
    nodes,
    edges,
    entry: team.entry ?? [...new Set(edges.filter((e) => e.from === PARENT).map((e) => e.to))],
    loopGroups,
    maxIterations: team.edges ? 0 : maxIterations,
    ...(team.maxTurns !== undefined && { maxTurns: team.maxTurns }),
    ...(team.selector && { selector: team.selector }),
    context: c.context ?? (topology === 'round-robin' || team.edges ? 'thread' : 'inbox'),
    termination,
  };
  return { graph, errors, warnings };
}
