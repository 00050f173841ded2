/**
 * Graphviz DOT of a compiled graph: exit edges dashed into a `parent (orchestrator)` node, back
 * edges bold and marked ↺, `when` guards in the labels, loop groups as clusters titled with their
 * id and the hard cap; a team's handoffs dashed, a `user` node for transfers to a human, a
 * selector team's `selector` hub (the arrows come from `render-arrows.ts`); a team agent as a 3-D
 * box naming its file and its team's agents. Pure.
 */
import { picturePlan, type PictureArrow, type TeamNode } from './render-arrows';
import { nodeIds, RENDER_TEXT } from './render-labels';
import { PARENT, type CompiledGraph } from './types';

function q(text: string): string {
  return `"${text.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')}"`;
}

const LINES: Record<PictureArrow['line'], string[]> = { solid: [], dashed: ['style=dashed'], thick: ['style=bold', 'color="#1f6feb"'] };

/** A team node's shape: the human an ellipse like the orchestrator, the selector a hexagon. */
function teamNode(n: TeamNode): string {
  const shape = n.id === 'selector' ? 'shape=hexagon, style=filled, fillcolor="#fff4d6"' : 'shape=ellipse, style=dashed';
  return `${n.id} [label=${q(n.label)}, ${shape}];`;
}

/** A node's attributes: its name, or for a team agent its name, its file and its team's agents, drawn as a box3d. */
function nodeAttrs(graph: CompiledGraph, n: string): string {
  const team = graph.agents[n]?.team;
  if (!team) return `label=${q(n)}`;
  return `label=${q(`${RENDER_TEXT.team(n, team.file)}\n${team.graph.nodes.join(' → ')}`)}, shape=box3d`;
}

/** Render `graph` as a DOT `digraph`. */
export function renderDot(graph: CompiledGraph): string {
  const ids = nodeIds(graph);
  const id = (n: string) => ids.get(n) ?? n;
  const plan = picturePlan(graph);
  const lines = [
    `digraph ${q(graph.name)} {`,
    '  rankdir=TB;',
    '  node [shape=box, style=rounded];',
    `  ${PARENT} [label=${q(RENDER_TEXT.parent)}, shape=ellipse, style=filled, fillcolor="#eeeeee"];`,
  ];
  const grouped = new Set<string>();
  graph.loopGroups.forEach((g, i) => {
    lines.push(`  subgraph cluster_loop${i} {`, `    label=${q(RENDER_TEXT.loopTitle(g, graph.maxIterations))};`, '    style=dashed;');
    for (const n of g.nodes) {
      lines.push(`    ${id(n)} [${nodeAttrs(graph, n)}];`);
      grouped.add(n);
    }
    lines.push('  }');
  });
  for (const n of graph.nodes) if (!grouped.has(n)) lines.push(`  ${id(n)} [${nodeAttrs(graph, n)}];`);
  for (const n of plan.teamNodes) lines.push(`  ${teamNode(n)}`);
  for (const a of plan.arrows) {
    const attrs = [...(a.text ? [`label=${q(a.text)}`] : []), ...LINES[a.line]];
    lines.push(`  ${id(a.from)} -> ${id(a.to)}${attrs.length ? ` [${attrs.join(', ')}]` : ''};`);
  }
  lines.push('}');
  return `${lines.join('\n')}\n`;
}
