/**
 * Mermaid flowchart of a compiled graph: exit edges dashed into a `parent (orchestrator)` node,
 * back edges thick and marked ↺, `when` guards in the labels, loop groups as subgraphs titled
 * with their id and the hard cap. Pure.
 */
import { backEdgeSet, edgeText, nodeIds, RENDER_TEXT } from './render-labels';
import { PARENT, type CompiledGraph } from './types';

function q(text: string): string {
  return `"${text.replace(/"/g, '#quot;').replace(/</g, '#lt;').replace(/>/g, '#gt;')}"`;
}

/** Render `graph` as a Mermaid `flowchart TD`. */
export function renderMermaid(graph: CompiledGraph): string {
  const ids = nodeIds(graph);
  const id = (n: string) => (n === PARENT ? PARENT : ids.get(n)!);
  const back = backEdgeSet(graph);
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
  graph.edges.forEach((e, i) => {
    const isBack = back.has(i);
    const arrow = e.exit ? '-.->' : isBack ? '==>' : '-->';
    const text = edgeText(e, isBack);
    lines.push(`  ${id(e.from)} ${arrow}${text ? `|${q(text)}|` : ''} ${id(e.to)}`);
  });
  return `${lines.join('\n')}\n`;
}
