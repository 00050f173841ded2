/**
 * Mermaid flowchart of a compiled graph: exit edges dashed into a `parent (orchestrator)` node,
 * back edges thick and marked ↺, `when` guards in the labels, loop groups as subgraphs titled
 * with their id and the hard cap; a team's handoffs dashed, a `user` node for transfers to a
 * human, a selector team's `selector` hub (the arrows come from `render-arrows.ts`). Pure.
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

/** Render `graph` as a Mermaid `flowchart TD`. */
export function renderMermaid(graph: CompiledGraph): string {
  const ids = nodeIds(graph);
  const id = (n: string) => ids.get(n) ?? n;
  const plan = picturePlan(graph);
  const lines = ['flowchart TD', `  %% troupe graph "${graph.name}"${graph.topology ? ` (topology ${graph.topology})` : ''}`];
  lines.push(`  ${PARENT}([${q(RENDER_TEXT.parent)}])`);
  const grouped = new Set<string>();
  graph.loopGroups.forEach((g, i) => {
    lines.push(`  subgraph loop${i} [${q(RENDER_TEXT.loopTitle(g, graph.maxIterations))}]`);
    for (const n of g.nodes) {
      lines.push(`    ${id(n)}[${q(n)}]`);
      grouped.add(n);
    }
    lines.push('  end');
  });
  for (const n of graph.nodes) if (!grouped.has(n)) lines.push(`  ${id(n)}[${q(n)}]`);
  for (const n of plan.teamNodes) lines.push(`  ${teamNode(n)}`);
  for (const a of plan.arrows) lines.push(`  ${id(a.from)} ${ARROWS[a.line]}${a.text ? `|${q(a.text)}|` : ''} ${id(a.to)}`);
  return `${lines.join('\n')}\n`;
}
