/**
 * Mermaid flowchart of a compiled graph: exit edges dashed into a `parent (orchestrator)` node,
 * back edges thick and marked ↺, `when` guards in the labels, loop groups as subgraphs titled
 * with their id and the hard cap; a team's handoffs dashed, a `user` node for transfers to a
 * human, a selector team's `selector` hub (the arrows come from `render-arrows.ts`); a team agent
 * as a subgraph of its team's agents and their edges (docs/teams.md, "Nested teams"). Pure.
 */
import { picturePlan, type PictureArrow, type TeamNode } from './render-arrows';
import { nodeIds, RENDER_TEXT } from './render-labels';
import { PARENT, type CompiledGraph } from './types';

function q(text: string): string {
  return `"${text.replace(/"/g, '#quot;').replace(/</g, '#lt;').replace(/>/g, '#gt;')}"`;
}

const ARROWS: Record<PictureArrow['line'], string> = { solid: '-->', dashed: '-.->', thick: '==>' };

/** A team node's shape: the human a stadium like the orchestrator, the selector a hexagon. */
function teamNode(n: TeamNode): string {
  return n.id === 'selector' ? `${n.id}{{${q(n.label)}}}` : `${n.id}([${q(n.label)}])`;
}

/**
 * A team agent as a subgraph (`<id>_team`, which the parent's edges reach) holding its team's agents
 * and the edges between them, nested teams again as subgraphs; ids are prefixed with the agent's.
 */
function teamLines(graph: CompiledGraph, agent: string, prefix: string, indent: string): string[] {
  const team = graph.agents[agent].team!;
  const inner = team.graph;
  const ids = nodeIds(inner);
  const id = (n: string) => `${prefix}_${ids.get(n)!}`;
  const lines = [`${indent}subgraph ${prefix}_team [${q(RENDER_TEXT.team(agent, team.file))}]`];
  for (const n of inner.nodes) {
    if (inner.agents[n]?.team) lines.push(...teamLines(inner, n, id(n), `${indent}  `));
    else lines.push(`${indent}  ${id(n)}[${q(n)}]`);
  }
  const end = (n: string) => (inner.agents[n]?.team ? `${id(n)}_team` : id(n));
  for (const e of inner.edges) if (e.from !== PARENT && e.to !== PARENT) lines.push(`${indent}  ${end(e.from)} --> ${end(e.to)}`);
  lines.push(`${indent}end`);
  return lines;
}

/** Render `graph` as a Mermaid `flowchart TD`. */
export function renderMermaid(graph: CompiledGraph): string {
  const ids = nodeIds(graph);
  const id = (n: string) => ids.get(n) ?? n;
  const plan = picturePlan(graph);
  const lines = ['flowchart TD', `  %% troupe graph "${graph.name}"${graph.topology ? ` (topology ${graph.topology})` : ''}`];
  lines.push(`  ${PARENT}([${q(RENDER_TEXT.parent)}])`);
  const teams = new Set(graph.nodes.filter((n) => graph.agents[n]?.team));
  const grouped = new Set<string>();
  graph.loopGroups.forEach((g, i) => {
    lines.push(`  subgraph loop${i} [${q(RENDER_TEXT.loopTitle(g, graph.maxIterations))}]`);
    for (const n of g.nodes) {
      if (teams.has(n)) lines.push(...teamLines(graph, n, id(n), '    '));
      else lines.push(`    ${id(n)}[${q(n)}]`);
      grouped.add(n);
    }
    lines.push('  end');
  });
  const end = (n: string) => (teams.has(n) ? `${id(n)}_team` : id(n));
  for (const n of graph.nodes) if (!grouped.has(n) && !teams.has(n)) lines.push(`  ${id(n)}[${q(n)}]`);
  for (const n of teams) if (!grouped.has(n)) lines.push(...teamLines(graph, n, id(n), '  '));
  for (const n of plan.teamNodes) lines.push(`  ${teamNode(n)}`);
  for (const a of plan.arrows) lines.push(`  ${end(a.from)} ${ARROWS[a.line]}${a.text ? `|${q(a.text)}|` : ''} ${end(a.to)}`);
  return `${lines.join('\n')}\n`;
}
