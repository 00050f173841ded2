/**
 * Pictures of a compiled graph for `troupe graph`: Mermaid or Graphviz DOT. Pure.
 */
import { renderDot } from './render-dot';
import { renderMermaid } from './render-mermaid';
import type { CompiledGraph } from './types';

/** Supported picture formats. */
export type GraphFormat = 'mermaid' | 'dot';

/** The formats, for CLI validation and help. */
export const GRAPH_FORMATS: readonly GraphFormat[] = ['mermaid', 'dot'];

/** Render `graph` in `format`. */
export function renderGraph(graph: CompiledGraph, format: GraphFormat): string {
  switch (format) {
    case 'mermaid':
      return renderMermaid(graph);
    case 'dot':
      return renderDot(graph);
    default: {
      const never: never = format;
      throw new Error(`unknown format ${String(never)}`);
    }
  }
}
