/**
 * Short texts for pictures of the graph (`troupe graph`): condition labels for `when` guards (a
 * leaf's plugin gives its `label`, else its `describe`, else its key), edge labels, loop-group
 * titles. Pure.
 */
import { pluginOf } from '../conditions/registry';
import type { Condition } from '../conditions/types';
import type { CompiledGraph, Edge, LoopGroup } from './types';

/** Texts used in pictures. */
export const RENDER_TEXT = {
  parent: 'parent (orchestrator)',
  backEdge: '↺ back edge',
  when: (d: string) => `when ${d}`,
  loopTitle: (g: LoopGroup, cap: number) => `loop ${g.id} · cap ${cap}`,
  /** A team agent (docs/teams.md, "Nested teams"): its name and its file. */
  team: (agent: string, file: string) => `${agent} · team ${file}`,
} as const;

/** A one-line description of a condition for pictures, with matcher details (`critic score ≥ 85`); prompts use `conditions/describe.ts`. */
export function describeGuard(c: Condition): string {
  switch (c.kind) {
    case 'any_of':
      return `(${c.items.map(describeGuard).join(' or ')})`;
    case 'all_of':
      return `(${c.items.map(describeGuard).join(' and ')})`;
    default: {
      const { key, plugin, params } = pluginOf(c);
      if (plugin?.label) return plugin.label(params);
      return plugin?.describe ? plugin.describe(params) : key;
    }
  }
}

/** The label of an edge in a picture: its label, its `when` guard, and a back-edge mark. */
export function edgeText(e: Edge, isBack: boolean): string {
  return [e.label ?? '', e.when ? RENDER_TEXT.when(describeGuard(e.when)) : '', isBack ? RENDER_TEXT.backEdge : '']
    .filter(Boolean)
    .join(' · ');
}

/** Indexes of all back edges of the graph. */
export function backEdgeSet(graph: CompiledGraph): Set<number> {
  return new Set(graph.loopGroups.flatMap((g) => g.backEdges));
}

/** Stable picture ids: `parent`, and `n0`, `n1`, ... for agents in node order. */
export function nodeIds(graph: CompiledGraph): Map<string, string> {
  return new Map(graph.nodes.map((n, i) => [n, `n${i}`]));
}
