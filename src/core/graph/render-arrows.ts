/**
 * What a picture of the graph draws besides its agents (`troupe graph`, the Temporal UI's details):
 * every arrow with its text and line, and the nodes a dynamic team adds (docs/teams.md). Both
 * renderers draw this one list, so Mermaid and DOT always show the same picture. Pure.
 * - An edge: solid; an exit edge dashed; a back edge thick and marked ↺.
 * - A swarm's handoff edge (`Edge.handoff`): dashed, labelled `handoff` (followed only on a transfer).
 * - An agent's edge in a graph that it may also choose by a transfer: `handoff` added to its label,
 *   the line kept (without a transfer the edge is still followed as usual).
 * - A transfer to `user`: a dashed `handoff` arrow into a `user` node.
 * - A selector team: `parent → selector`, then a dashed `selected` arrow to each agent; a swarm's
 *   first agent: its arrow from `parent` says so. Both carry the team's turn cap.
 */
import { backEdgeSet, edgeText, RENDER_TEXT } from './render-labels';
import { PARENT, USER, type CompiledGraph } from './types';

/** A node a team adds to the picture: the human of `user` transfers, or a selector team's hub. */
export interface TeamNode {
  /** Its id in the picture (agents are `n0`, `n1`, ...; these never clash with them). */
  id: 'user' | 'selector';
  label: string;
}

/** One arrow of the picture between two node names (`parent`, an agent, or a {@link TeamNode} id). */
export interface PictureArrow {
  from: string;
  to: string;
  /** Its label; empty for none. */
  text: string;
  line: 'solid' | 'dashed' | 'thick';
}

/** The team nodes and every arrow of a picture, in drawing order. */
export interface PicturePlan {
  teamNodes: TeamNode[];
  arrows: PictureArrow[];
}

/** The hub of a selector team. */
const SELECTOR_NODE = 'selector';

/** What a picture of `graph` draws: its edges (a selector's through its hub), then the transfers to `user`. */
export function picturePlan(graph: CompiledGraph): PicturePlan {
  const back = backEdgeSet(graph);
  const teamNodes: TeamNode[] = [];
  const arrows: PictureArrow[] = [];
  const hub = graph.selector !== undefined;
  if (hub) {
    teamNodes.push({ id: SELECTOR_NODE, label: RENDER_TEXT.selector });
    arrows.push({ from: PARENT, to: SELECTOR_NODE, text: graph.maxTurns !== undefined ? RENDER_TEXT.eachTurn(graph.maxTurns) : '', line: 'solid' });
  }
  graph.edges.forEach((e, i) => {
    if (hub && e.from === PARENT) {
      arrows.push({ from: SELECTOR_NODE, to: e.to, text: edgeText(e, false), line: 'dashed' });
      return;
    }
    const isBack = back.has(i);
    const chosen = !e.handoff && !e.exit && (graph.agents[e.from]?.handoffs ?? []).includes(e.to);
    const turns = graph.maxTurns;
    const first = e.from === PARENT && turns !== undefined && !e.label;
    const text = first ? RENDER_TEXT.firstSpeaker(turns) : edgeText(e, isBack, chosen);
    arrows.push({ from: e.from, to: e.to, text, line: e.exit || e.handoff ? 'dashed' : isBack ? 'thick' : 'solid' });
  });
  const askers = graph.nodes.filter((n) => (graph.agents[n]?.handoffs ?? []).includes(USER));
  if (askers.length > 0) {
    teamNodes.push({ id: USER, label: RENDER_TEXT.user });
    for (const agent of askers) arrows.push({ from: agent, to: USER, text: RENDER_TEXT.handoff, line: 'dashed' });
  }
  return { teamNodes, arrows };
}

