import { formatIssue, loadRoleConfig } from '../../../../src/core/config/load';
import { transferToolName } from '../../../../src/core/graph/teams';

const load = (yaml: string) => loadRoleConfig(yaml, 'role.yaml');
const errors = (yaml: string) => load(yaml).errors.map(formatIssue);
const warnings = (yaml: string) => load(yaml).warnings.map(formatIssue);

const swarm = (agents: string, collaboration = '') => `name: desk
agents:
${agents}collaboration:
  topology: swarm
  agents: [triage, billing, tech]
${collaboration}`;

const desk = `  triage:
    description: Routes a request
    instructions: Route it.
    handoffs: [billing, tech, user]
  billing:
    instructions: |
      Handles invoices and refunds.
      Be brief.
    handoffs: [triage]
  tech:
    instructions: Fixes things.
    handoffs: [triage]
`;

describe('a swarm', () => {
  it('compiles: the first agent enters, one handoff edge per agent target, no loops, thread context, turns from max_messages', () => {
    const r = load(swarm(desk, '  termination: { any_of: [{ max_messages: 7 }] }\n'));
    expect(r.errors).toEqual([]);
    const g = r.graph!;
    expect(g.entry).toEqual(['triage']);
    expect(g.edges).toEqual([
      { from: 'parent', to: 'triage', exit: false },
      { from: 'triage', to: 'billing', exit: false, label: 'handoff', handoff: true },
      { from: 'triage', to: 'tech', exit: false, label: 'handoff', handoff: true },
      { from: 'billing', to: 'triage', exit: false, label: 'handoff', handoff: true },
      { from: 'tech', to: 'triage', exit: false, label: 'handoff', handoff: true },
    ]);
    expect(g.agents.triage.handoffs).toEqual(['billing', 'tech', 'user']);
    expect(g.loopGroups).toEqual([]);
    expect(g.maxIterations).toBe(0);
    expect(g.maxTurns).toBe(7);
    expect(g.context).toBe('thread');
    expect(r.warnings).toEqual([]);
  });

  it('without max_turns or max_messages gets 3 turns per agent, with a warning; max_turns wins', () => {
    expect(load(swarm(desk)).graph?.maxTurns).toBe(9);
    expect(warnings(swarm(desk))).toEqual([
      'role.yaml:15:1 collaboration: the swarm team has no max_turns and no max_messages condition: a round stops after 9 turns (3 per agent, 3 agents)',
    ]);
    expect(load(swarm(desk, '  max_turns: 4\n  termination: { any_of: [{ max_messages: 7 }] }\n')).graph?.maxTurns).toBe(4);
  });

  it('an agent without handoffs, a target outside the team, a typo, itself, twice, edges: each a located error', () => {
    const bad = `  triage:
    instructions: Route it.
    handoffs: [biling, triage, tech, tech, ops, edges]
  billing:
    instructions: Bills.
  tech:
    instructions: Fixes.
    handoffs: edges
  ops:
    instructions: Runs things.
`;
    expect(errors(swarm(bad))).toEqual([
      'role.yaml:5:16 agents.triage.handoffs[0]: unknown handoff target "biling" (did you mean "billing"?)',
      'role.yaml:5:24 agents.triage.handoffs[1]: "triage" cannot transfer to itself',
      'role.yaml:5:38 agents.triage.handoffs[3]: "tech" is listed twice',
      'role.yaml:5:44 agents.triage.handoffs[4]: "ops" is not in the swarm: add it to collaboration.agents',
      'role.yaml:5:49 agents.triage.handoffs[5]: unknown handoff target "edges": declare it under agents, or use user for a human',
      'role.yaml:6:3 agents.billing: "billing" is in a swarm but has no handoffs: list the agents it may transfer to (user for a human)',
      'role.yaml:10:15 agents.tech.handoffs: handoffs: edges needs edges, and a swarm has none: list the agents this one may transfer to',
    ]);
  });

  it('a flow, selector options or max_iterations-style mistakes are located errors', () => {
    expect(errors(swarm(desk, '  flow: [triage -> billing]\n  selector: { max_attempts: 2 }\n'))).toEqual([
      'role.yaml:18:3 collaboration.flow: a swarm team has no flow: its handoffs are its routes',
      'role.yaml:19:3 collaboration.selector: selector options need topology: selector',
    ]);
  });
});

describe('a selector team', () => {
  const selector = (extra = '', agents = `  planner:
    description: Plans the work
    instructions: Plan.
  coder:
    instructions: Write the code.
`) => `name: crew
model: { name: gpt-4o-mini, timeout_ms: 60000 }
agents:
${agents}collaboration:
  topology: selector
  agents: [planner, coder]
${extra}`;

  it('compiles: no entry agent (the selector chooses wave 1), an edge from parent to each, its selector with defaults', () => {
    const g = load(selector('  max_turns: 6\n')).graph!;
    expect(g.entry).toEqual([]);
    expect(g.edges.map((e) => `${e.from}->${e.to}:${e.label}`)).toEqual(['parent->planner:selected', 'parent->coder:selected']);
    expect(g.maxTurns).toBe(6);
    expect(g.selector).toEqual({ model: { name: 'gpt-4o-mini' }, allowRepeatedSpeaker: false, maxAttempts: 3, timeoutMs: 60000 });
  });

  it('takes the selector model, prompt, repeat rule and attempts from collaboration.selector', () => {
    const g = load(selector('  max_turns: 6\n  selector:\n    model: { name: small, temperature: 0 }\n    prompt: "Pick from {participants}"\n    allow_repeated_speaker: true\n    max_attempts: 5\n')).graph!;
    expect(g.selector).toEqual({ model: { name: 'small', temperature: 0 }, prompt: 'Pick from {participants}', allowRepeatedSpeaker: true, maxAttempts: 5, timeoutMs: 60000 });
  });

  it('handoffs on a selector agent, and a team of one, are located errors', () => {
    const agents = `  planner:
    instructions: Plan.
    handoffs: [coder]
  coder:
    instructions: Code.
`;
    expect(errors(selector('  max_turns: 2\n', agents))).toEqual([
      'role.yaml:6:5 agents.planner.handoffs: a selector team has no handoffs: its selector chooses every speaker (remove handoffs, or use topology: swarm)',
    ]);
    expect(errors(selector('  max_turns: 2\n').replace('agents: [planner, coder]', 'agents: [planner]'))).toEqual([
      'role.yaml:11:11 collaboration.agents: a selector team needs at least two agents',
    ]);
  });
});

describe('handoffs in a graph', () => {
  const graph = (handoffs: string, flow = '[parent -> triage, triage -> billing, triage -> tech, billing -> parent, tech -> parent]') => `name: g
agents:
  triage:
    instructions: Route it.
    handoffs: ${handoffs}
  billing:
    instructions: Bills.
  tech:
    instructions: Fixes.
collaboration:
  flow: ${flow}
`;

  it('edges means every out-edge target; a list may name them and user', () => {
    expect(load(graph('edges')).graph?.agents.triage.handoffs).toEqual(['billing', 'tech']);
    expect(load(graph('[tech, user]')).graph?.agents.triage.handoffs).toEqual(['tech', 'user']);
    expect(load(graph('[tech]')).graph?.edges.some((e) => e.handoff)).toBe(false);
  });

  it('a target that is no out-edge is a located error naming the targets there are', () => {
    expect(errors(graph('[billing, tech]', '[parent -> triage, triage -> billing, billing -> tech, tech -> parent]'))).toEqual([
      'role.yaml:5:25 agents.triage.handoffs[1]: "triage" has no edge to "tech": a transfer follows an out-edge (its targets: billing); add "triage -> tech" to the flow',
    ]);
    expect(errors(graph('edges', '[parent -> triage, triage -> parent]'))).toEqual([
      'role.yaml:5:15 agents.triage.handoffs: handoffs: edges, but "triage" has no edge to another agent',
    ]);
  });

  it('max_turns and selector options belong to teams', () => {
    expect(errors(graph('edges').replace('collaboration:\n', 'collaboration:\n  max_turns: 3\n'))).toEqual([
      'role.yaml:11:3 collaboration.max_turns: max_turns counts the turns of a swarm or selector team; a graph is capped by max_iterations',
    ]);
  });

  it('a transfer tool that clashes with a tool, or two names that read as one tool, are errors', () => {
    expect(transferToolName('dev ops')).toBe('transfer_to_dev_ops');
    expect(transferToolName('Billing')).toBe('transfer_to_Billing');
    const yaml = `name: g
agents:
  a:
    instructions: Route it.
    tools: [transfer_to_b]
    handoffs: [b]
  b:
    instructions: B.
collaboration:
  flow: [parent -> a, a -> b, b -> parent]
`;
    expect(errors(yaml)).toEqual(['role.yaml:6:16 agents.a.handoffs[0]: transfer_to_b is also one of the agent\'s tools: rename the tool']);
  });
});
