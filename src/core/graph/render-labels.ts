/**
 * Short texts for pictures of the graph (`troupe graph`): condition labels for `when` guards (a
 * leaf's plugin gives its `label`, else its `describe`, else its key), edge labels, loop-group
 * titles, the nodes and marks of dynamic teams. Pure.
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
  /** The mark of a route an agent chooses by a transfer tool, and the label of a transfer to `user`. */
  handoff: 'handoff',
  user: 'user (human)',
  selector: 'selector',
  /** The arrow into a selector team's hub: it chooses before every turn, up to the cap. */
  eachTurn: (maxTurns: number) => `each turn · cap ${maxTurns} turns`,
  /** The arrow to a swarm's first agent, which keeps the turn until it transfers. */
  firstSpeaker: (maxTurns: number) => `first speaker · cap ${maxTurns} turns`,
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

/**
 * The label of an edge in a picture: its label, its `when` guard, a `handoff` mark when its agent
 * may choose it by a transfer (`chosen`), and a back-edge mark.
 */
export function edgeText(e: Edge, isBack: boolean, chosen = false): string {
  return [e.label ?? '', e.when ? RENDER_TEXT.when(describeGuard(e.when)) : '', chosen ? RENDER_TEXT.handoff : '', isBack ? RENDER_TEXT.backEdge : '']
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
