/**
 * `troupe graph` pictures of dynamic teams (docs/teams.md): a swarm's handoff edges dashed and
 * labelled `handoff`, transfers to `user` as dashed arrows into a `user` node, a graph agent's
 * transfer routes marked `handoff`, and a selector team drawn through a `selector` hub.
 */
import { loadRoleConfig } from '../../../../src/core/config/load';
import { renderGraph } from '../../../../src/core/graph/render';
import type { CompiledGraph } from '../../../../src/core/graph/types';

const compile = (yaml: string): CompiledGraph => {
  const r = loadRoleConfig(yaml, 'role.yaml');
  expect(r.errors).toEqual([]);
  return r.graph!;
};

const swarm = () =>
  compile(`name: desk
agents:
  triage: { instructions: Route it., handoffs: [billing, tech, user] }
  billing: { instructions: Bills., handoffs: [triage, user] }
  tech: { instructions: Fixes., handoffs: [triage] }
collaboration:
  topology: swarm
  agents: [triage, billing, tech]
  termination: { any_of: [{ max_messages: 8 }] }
`);

const selector = () =>
  compile(`name: crew
agents:
  planner: { instructions: Plan. }
  coder: { instructions: Code. }
collaboration:
  topology: selector
  agents: [planner, coder]
  max_turns: 6
`);

const routedGraph = () =>
  compile(`name: g
agents:
  triage: { instructions: Route it., handoffs: [tech, user] }
  billing: { instructions: Bills. }
  tech: { instructions: Fixes. }
collaboration:
  flow: [parent -> triage, triage -> billing, triage -> tech, billing -> parent, tech -> parent]
`);

describe('a swarm', () => {
  it('mermaid: the first speaker with the turn cap, every handoff edge dashed, a user node for the transfers to a human', () => {
    expect(renderGraph(swarm(), 'mermaid')).toBe(
      [
        'flowchart TD',
        '  %% troupe graph "desk" (topology swarm)',
        '  parent(["parent (orchestrator)"])',
        '  n0["triage"]',
        '  n1["billing"]',
        '  n2["tech"]',
        '  user(["user (human)"])',
        '  parent -->|"first speaker · cap 8 turns"| n0',
        '  n0 -.->|"handoff"| n1',
        '  n0 -.->|"handoff"| n2',
        '  n1 -.->|"handoff"| n0',
        '  n2 -.->|"handoff"| n0',
        '  n0 -.->|"handoff"| user',
        '  n1 -.->|"handoff"| user',
        '',
      ].join('\n'),
    );
  });

  it('dot: the same picture, handoffs and the user node dashed', () => {
    expect(renderGraph(swarm(), 'dot')).toBe(
      [
        'digraph "desk" {',
        '  rankdir=TB;',
        '  node [shape=box, style=rounded];',
        '  parent [label="parent (orchestrator)", shape=ellipse, style=filled, fillcolor="#eeeeee"];',
        '  n0 [label="triage"];',
        '  n1 [label="billing"];',
        '  n2 [label="tech"];',
        '  user [label="user (human)", shape=ellipse, style=dashed];',
        '  parent -> n0 [label="first speaker · cap 8 turns"];',
        '  n0 -> n1 [label="handoff", style=dashed];',
        '  n0 -> n2 [label="handoff", style=dashed];',
        '  n1 -> n0 [label="handoff", style=dashed];',
        '  n2 -> n0 [label="handoff", style=dashed];',
        '  n0 -> user [label="handoff", style=dashed];',
        '  n1 -> user [label="handoff", style=dashed];',
        '}',
        '',
      ].join('\n'),
    );
  });
});

describe('a selector team', () => {
  it('mermaid: parent to a selector hub with the turn cap, then a dashed selected arrow to each agent', () => {
    expect(renderGraph(selector(), 'mermaid')).toBe(
      [
        'flowchart TD',
        '  %% troupe graph "crew" (topology selector)',
        '  parent(["parent (orchestrator)"])',
        '  n0["planner"]',
        '  n1["coder"]',
        '  selector{{"selector"}}',
        '  parent -->|"each turn · cap 6 turns"| selector',
        '  selector -.->|"selected"| n0',
        '  selector -.->|"selected"| n1',
        '',
      ].join('\n'),
    );
  });

  it('dot: the hub is a hexagon and the spokes are dashed', () => {
    const dot = renderGraph(selector(), 'dot');
    expect(dot).toContain('  selector [label="selector", shape=hexagon, style=filled, fillcolor="#fff4d6"];\n');
    expect(dot).toContain('  parent -> selector [label="each turn · cap 6 turns"];\n  selector -> n0 [label="selected", style=dashed];\n  selector -> n1 [label="selected", style=dashed];\n');
    expect(dot).not.toContain('parent -> n0');
  });
});

describe('a graph whose agent has handoffs', () => {
  it('marks the edges the agent may choose with handoff, keeps them solid (static routing still follows them), and draws its transfer to user', () => {
    const mermaid = renderGraph(routedGraph(), 'mermaid');
    expect(mermaid).toContain('  n0 --> n1\n  n0 -->|"handoff"| n2\n');
    expect(mermaid).toContain('  user(["user (human)"])\n');
    expect(mermaid).toContain('  n0 -.->|"handoff"| user\n');
    const dot = renderGraph(routedGraph(), 'dot');
    expect(dot).toContain('  n0 -> n1;\n  n0 -> n2 [label="handoff"];\n');
    expect(dot).toContain('  n0 -> user [label="handoff", style=dashed];\n');
  });

  it('a graph without handoffs gets no user node and no handoff marks', () => {
    const g = compile(`name: g
agents:
  a: { instructions: A. }
  b: { instructions: B. }
collaboration:
  topology: pipeline
  agents: [a, b]
`);
    for (const format of ['mermaid', 'dot'] as const) {
      expect(renderGraph(g, format)).not.toMatch(/user|handoff|selector/);
    }
  });
});
