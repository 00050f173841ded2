import { formatIssue, loadRoleConfig } from '../../../../src/core/config/load';
import { validateGraph } from '../../../../src/core/graph/validate';
import type { EdgeDraft } from '../../../../src/core/graph/edges';
import { errorMessages, loadRole, warningMessages } from '../../fixtures/role-yaml';

const flowEdges = (...specs: string[]): EdgeDraft[] =>
  specs.map((s, index) => {
    const [from, to] = s.split('->').map((x) => x.trim());
    return { from, to, exit: to === 'parent', source: { kind: 'flow', index, form: 'string' } };
  });

describe('rolebox checks 1–3 are errors, all reported at once (case 24)', () => {
  it('names the unknown agent and the field, per edge and field', () => {
    expect(errorMessages(loadRole({ flow: ['parent -> a', 'a -> ghost', 'spook -> parent'] }, ['a']))).toEqual([
      'Edge references unknown agent "ghost" in "to" field',
      'Edge references unknown agent "spook" in "from" field',
    ]);
  });

  it('reports a missing exit and a missing entry', () => {
    expect(errorMessages(loadRole({ flow: ['parent -> a', 'a -> b'] }))).toEqual(['No exit edge found: graph has no termination path']);
    expect(errorMessages(loadRole({ flow: ['a -> b', 'b -> parent'] }))).toEqual([
      'No entry point found: graph must have at least one edge from "parent"',
    ]);
  });

  it('does not short-circuit: unknown agent, no exit and no entry together', () => {
    const r = validateGraph({ edges: flowEdges('a -> ghost'), declared: ['a'], loopGroups: [], capSet: false, cap: 0, conditions: [] });
    expect(r.errors.map((e) => e.message)).toEqual([
      'Edge references unknown agent "ghost" in "to" field',
      'No exit edge found: graph has no termination path',
      'No entry point found: graph must have at least one edge from "parent"',
    ]);
  });
});

describe('a partly unreadable graph', () => {
  it('reports an unreadable edge but not the whole-graph errors its absence would cause', () => {
    const r = loadRole({ flow: ['parent -> a', 'a => parent', 'a -> ghost'] }, ['a', 'b']);
    expect(errorMessages(r)).toEqual([
      'malformed edge "a => parent": expected "from -> to" or "from -> to: label"',
      'Edge references unknown agent "ghost" in "to" field',
    ]);
    expect(r.warnings).toEqual([]);
  });

  it('keeps an object edge whose when guard is wrong, so the graph is still checked as a whole', () => {
    const r = loadRole({ flow: ['parent -> a', { from: 'a', to: 'parent', when: { stuk: 2 } }, 'a -> ghost'] }, ['a', 'b']);
    expect(errorMessages(r)).toEqual([
      'unknown condition "stuk" (did you mean "stuck"?)',
      'Edge references unknown agent "ghost" in "to" field',
    ]);
    expect(warningMessages(r)).toEqual(['Orphan agent "b" is not referenced in any edge']);
  });
});

describe('rolebox checks 4–6 are warnings with the exact messages (cases 25–27)', () => {
  it('warns about an orphan agent', () => {
    const r = loadRole({ topology: 'pipeline', agents: ['a'] }, ['a', 'orphan-agent']);
    expect(r.errors).toEqual([]);
    expect(warningMessages(r)).toEqual(['Orphan agent "orphan-agent" is not referenced in any edge']);
  });

  it('warns once per node unreachable from parent', () => {
    const r = loadRole({ flow: ['parent -> a', 'a -> parent', 'b -> c', 'c -> parent'] }, ['a', 'b', 'c']);
    expect(warningMessages(r)).toEqual([
      'Disconnected node "b" is not reachable from parent entry point',
      'Disconnected node "c" is not reachable from parent entry point',
    ]);
  });

  it('warns about a cycle only when no max_iterations is set anywhere', () => {
    const cyclic = ['parent -> a', 'a -> b', 'b -> a', { from: 'b', to: 'parent', when: { result_matches: { agent: 'b', contains: 'OK' } } }];
    expect(warningMessages(loadRole({ flow: cyclic }))).toEqual(['Cycle detected in graph but maxIterations is not set, defaulting to 3']);
    expect(warningMessages(loadRole({ flow: cyclic, max_iterations: 5 }))).toEqual([]);
    expect(warningMessages(loadRole({ flow: cyclic, termination: { any_of: [{ max_iterations: 4 }] } }))).toEqual([]);
    expect(warningMessages(loadRole({ flow: ['parent -> a', 'a -> parent', 'parent -> b', 'b -> parent'] }))).toEqual([]);
  });
});

describe('check 7: agents named by conditions must exist (an error in troupe; rolebox warned)', () => {
  it('rejects unknown agents in converged, result_matches, stuck and text_mention sources', () => {
    const r = loadRole({
      topology: 'review-loop',
      agents: ['a', 'b'],
      max_iterations: 3,
      termination: {
        any_of: [
          { converged: 'ghost' },
          { result_matches: { agent: 'nobody', contains: 'OK' } },
          { stuck: { repeats: 2, agent: 'phantom' } },
          { text_mention: { text: 'DONE', sources: ['a', 'wraith'] } },
        ],
      },
    });
    expect(errorMessages(r)).toEqual([
      'termination converged references unknown agent "ghost"',
      'termination result_matches references unknown agent "nobody"',
      'termination stuck references unknown agent "phantom"',
      'termination text_mention references unknown agent "wraith"',
    ]);
  });

  it('treats a natural-language converged value as an unknown agent and checks nested items and when guards', () => {
    const r = loadRole({
      flow: ['parent -> a', { from: 'a', to: 'b', when: { converged: 'Critic approves' } }, 'b -> parent', 'a -> parent'],
      termination: { all_of: [{ any_of: [{ converged: { agent: 'c', criteria: 'done' } }] }] },
    });
    expect(errorMessages(r)).toEqual([
      'when converged references unknown agent "Critic approves"',
      'termination converged references unknown agent "c" (did you mean "a"?)',
    ]);
  });

  it('parent is not an agent a condition can name', () => {
    expect(errorMessages(loadRole({ topology: 'pipeline', agents: ['a'], termination: { any_of: [{ converged: 'parent' }] } }, ['a']))).toEqual([
      'termination converged references unknown agent "parent"',
    ]);
  });
});

describe("troupe's own errors", () => {
  it('rejects an agent named parent and agent names with whitespace, ">" or ":"', () => {
    expect(errorMessages(loadRole({ topology: 'pipeline', agents: ['a'] }, ['a', 'parent']))).toEqual([
      '"parent" is the orchestrator node and cannot be an agent name',
    ]);
    expect(errorMessages(loadRole({ topology: 'pipeline', agents: ['a'] }, ['a', 'my agent']))).toContain(
      'agent name "my agent" may not contain whitespace, ">" or ":"',
    );
  });

  it('rejects duplicates, parent, and undeclared agents in the topology list', () => {
    expect(errorMessages(loadRole({ topology: 'review-loop', agents: ['a', 'b', 'a'], max_iterations: 2 }))).toEqual([
      'duplicate agent "a" in the topology list',
    ]);
    expect(errorMessages(loadRole({ topology: 'star', agents: ['a', 'parent'] }))).toEqual([
      '"parent" is the orchestrator node and cannot be listed as an agent',
    ]);
    expect(errorMessages(loadRole({ topology: 'star', agents: ['a', 'c'] }))).toEqual(['unknown agent "c" (did you mean "a"?)']);
  });

  it('a misspelt agent in the topology list, an edge or a condition gets a did-you-mean hint; a name close to none keeps the advice to declare it', () => {
    const agents = ['writer', 'critic'];
    const r = loadRole({ topology: 'review-loop', agents: ['writer', 'critc'], termination: { any_of: [{ converged: 'critc' }] } }, agents);
    expect(errorMessages(r)).toEqual([
      'unknown agent "critc" (did you mean "critic"?)',
      'termination converged references unknown agent "critc" (did you mean "critic"?)',
    ]);
    const edges = loadRole({ flow: ['parent -> writer', 'writer -> critc', 'critic -> parnt'] }, agents);
    expect(errorMessages(edges)).toEqual([
      'No exit edge found: graph has no termination path',
      'Edge references unknown agent "critc" in "to" field (did you mean "critic"?)',
      'Edge references unknown agent "parnt" in "to" field (did you mean "parent"?)',
    ]);
    expect(errorMessages(loadRole({ topology: 'star', agents: ['writer', 'summarizer'] }, agents))).toEqual([
      'unknown agent "summarizer": declare it under agents',
    ]);
  });

  it('checks collaboration.agents without a topology, and warns that it is ignored', () => {
    const r = loadRole({ agents: ['a', 'z'], flow: ['parent -> a', 'a -> parent'] }, ['a']);
    expect(errorMessages(r)).toEqual(['unknown agent "z" (did you mean "a"?)']);
    expect(warningMessages(loadRole({ agents: ['a'], flow: ['parent -> a', 'a -> parent'] }, ['a']))).toEqual([
      'collaboration.agents is only used with a topology; it is ignored here',
    ]);
  });

  it('max_cost_usd needs pricing for every model used, the judge included when a converged condition needs it', () => {
    const base = { topology: 'pipeline', agents: ['a'] };
    expect(errorMessages(loadRole(base, ['a'], { budget: { max_cost_usd: 2 } }))).toEqual([
      'needs pricing for every model used; missing: gpt-4o-mini (add them under pricing)',
    ]);
    const priced = { budget: { max_cost_usd: 2 }, pricing: { 'gpt-4o-mini': { input: 0.15, output: 0.6 } } };
    expect(loadRole(base, ['a'], priced).errors).toEqual([]);
    const withJudge = { ...priced, judge: { model: { name: 'gpt-4o' } } };
    expect(loadRole(base, ['a'], withJudge).errors).toEqual([]);
    expect(errorMessages(loadRole({ ...base, termination: { any_of: [{ converged: 'a' }] } }, ['a'], withJudge))).toEqual([
      'needs pricing for every model used; missing: gpt-4o (add them under pricing)',
    ]);
  });
});

describe('tool_choice', () => {
  const role = (agent: string, model = '') => `name: tc
${model}agents:
  a:
    instructions: Act.
${agent}collaboration: { topology: pipeline, agents: [a] }
`;

  it('required reaches the compiled agent that has tools, from the agent or the model', () => {
    expect(loadRoleConfig(role('    tools: [goal]\n    tool_choice: required\n'), 'role.yaml').graph?.agents.a.toolChoice).toBe('required');
    expect(loadRoleConfig(role('    tools: [goal]\n', 'model: { tool_choice: required }\n'), 'role.yaml').graph?.agents.a.toolChoice).toBe('required');
    // the agent's own auto wins over the model's required; auto is not recorded
    expect(loadRoleConfig(role('    tools: [goal]\n    tool_choice: auto\n', 'model: { tool_choice: required }\n'), 'role.yaml').graph?.agents.a.toolChoice).toBeUndefined();
    // a model-wide required means nothing to an agent with no tools
    const toolless = loadRoleConfig(role('', 'model: { tool_choice: required }\n'), 'role.yaml');
    expect(toolless.errors).toEqual([]);
    expect(toolless.graph?.agents.a.toolChoice).toBeUndefined();
  });

  it('required on an agent with no tools is an error located at the key', () => {
    const r = loadRoleConfig(role('    tool_choice: required\n'), 'role.yaml');
    expect(r.errors.map(formatIssue)).toEqual(['role.yaml:5:18 agents.a.tool_choice: required needs tools: give the agent tools, or remove tool_choice']);
    expect(errorMessages(loadRoleConfig(role('    tool_choice: always\n'), 'role.yaml'))).toEqual([expect.stringContaining('auto')]);
  });
});

describe("troupe's own warnings", () => {
  it('warns about a join reached by acyclic paths of unequal length, not about equal ones', () => {
    const unequal = loadRole({ flow: ['parent -> a', 'a -> b', 'b -> c', 'a -> c', 'c -> parent'] }, ['a', 'b', 'c']);
    expect(warningMessages(unequal)).toEqual([
      'agent "c" is reached from parent by paths of different lengths (2, 3 edges), so it runs once per wave that reaches it',
    ]);
    const equal = loadRole({ flow: ['parent -> a', 'parent -> b', 'a -> c', 'b -> c', 'c -> parent'] }, ['a', 'b', 'c']);
    expect(equal.warnings).toEqual([]);
  });

  it('does not count a loop back into a node as a second path to it', () => {
    expect(loadRole({ topology: 'review-loop', agents: ['a', 'b', 'c'], max_iterations: 3 }, ['a', 'b', 'c']).warnings).toEqual([]);
  });

  it('warns about an all_of whose max_iterations is >= the hard cap, top-level or nested', () => {
    const top = loadRole({
      topology: 'review-loop',
      agents: ['a', 'b'],
      max_iterations: 5,
      termination: { all_of: [{ max_iterations: 5 }, { converged: 'b' }] },
    });
    expect(warningMessages(top)).toEqual(['all_of uses max_iterations 5, which is >= the hard cap 5: the hard cap stops the loop first']);
    const nested = loadRole({
      topology: 'review-loop',
      agents: ['a', 'b'],
      max_iterations: 5,
      termination: { any_of: [{ all_of: [{ max_iterations: 7 }, { converged: 'b' }] }] },
    });
    expect(warningMessages(nested)).toEqual(['all_of uses max_iterations 7, which is >= the hard cap 5: the hard cap stops the loop first']);
    const below = loadRole({
      topology: 'review-loop',
      agents: ['a', 'b'],
      max_iterations: 5,
      termination: { all_of: [{ max_iterations: 4 }, { converged: 'b' }], any_of: [{ max_iterations: 9 }] },
    });
    expect(below.warnings).toEqual([]);
  });

  it('warns when a goal is set but no agent in the graph has the goal tool', () => {
    const goal = { goal: { objective: 'ship it' } };
    expect(warningMessages(loadRole({ topology: 'pipeline', agents: ['a'] }, ['a'], goal))).toEqual([
      'no agent can report on the goal: give at least one agent the goal tool (tools: [goal])',
    ]);
    const yaml = loadRole({ topology: 'pipeline', agents: ['a'] }, [], {
      ...goal,
      agents: { a: { instructions: 'A', tools: ['goal'] } },
    });
    expect(yaml.warnings).toEqual([]);
  });
});

describe('dead exits: an unguarded exit beside an unguarded forward edge is never taken', () => {
  const role = (collaboration: string) => `name: demo
agents:
  writer: { instructions: w }
  critic: { instructions: c }
collaboration:
${collaboration}`;
  const warned = (text: string) => loadRoleConfig(text, 'role.yaml').warnings.map(formatIssue);

  it('warns at a flow exit edge and suggests guarding it with the termination condition that reads the agent', () => {
    const text = role(`  flow:
    - parent -> writer
    - writer -> critic
    - critic -> writer
    - critic -> parent
  max_iterations: 4
  termination:
    any_of:
      - max_messages: 20
      - result_matches: { agent: critic, score_gte: 85 }
`);
    expect(warned(text)).toEqual([
      'role.yaml:10:7 collaboration.flow[3]: the exit edge "critic -> parent" is never taken: routing always follows the unguarded edge "critic -> writer" instead; guard the exit with the termination condition that reads critic (when: { result_matches: { agent: critic, score_gte: 85 } }) so the run exits when it holds',
    ]);
  });

  it('without a condition that reads the agent, suggests a concrete when guard', () => {
    const r = loadRole({ flow: ['parent -> a', 'a -> b', 'b -> a', 'b -> parent'], max_iterations: 3, termination: { any_of: [{ text_mention: { text: 'DONE', sources: ['a'] } }] } });
    expect(warningMessages(r)).toEqual([
      'the exit edge "b -> parent" is never taken: routing always follows the unguarded edge "b -> a" instead; guard the exit so it can be taken, e.g. when: { result_matches: { agent: b, contains: APPROVED } }',
    ]);
    const mention = loadRole({ flow: ['parent -> a', 'a -> b', 'b -> a', 'b -> parent'], max_iterations: 3, termination: { any_of: [{ text_mention: { text: 'LGTM', sources: ['b'] } }] } });
    expect(warningMessages(mention)[0]).toMatch(/reads b \(when: \{ text_mention: \{ text: LGTM, sources: \[b\] \} \}\)/);
  });

  it('the review-loop and round-robin topologies alone do not warn: their loops end by conditions and the cap', () => {
    expect(loadRole({ topology: 'review-loop', agents: ['a', 'b'], max_iterations: 3 }).warnings).toEqual([]);
    expect(loadRole({ topology: 'round-robin', agents: ['a', 'b', 'c'], max_iterations: 3 }, ['a', 'b', 'c']).warnings).toEqual([]);
    expect(loadRole({ topology: 'review-loop', agents: ['a'], max_iterations: 3 }, ['a']).warnings).toEqual([]);
  });

  it('a topology pair warns once a flow edge takes part: a relabelled exit (at the flow item) or a new forward edge (at the topology)', () => {
    const relabelled = loadRoleConfig(
      role('  topology: review-loop\n  agents: [writer, critic]\n  max_iterations: 3\n  flow:\n    - "critic -> parent: done"\n  termination:\n    any_of: [ { converged: critic } ]\n'),
      'role.yaml',
    );
    expect(relabelled.warnings.map(formatIssue)).toEqual([
      'role.yaml:10:7 collaboration.flow[0]: the exit edge "critic -> parent" is never taken: routing always follows the unguarded edge "critic -> writer" instead; guard the exit with the termination condition that reads critic (when: { converged: critic }) so the run exits when it holds',
    ]);
    const added = loadRole({ topology: 'review-loop', agents: ['a', 'b'], max_iterations: 3, flow: ['b -> c', 'c -> parent'] }, ['a', 'b', 'c']);
    expect(added.warnings.map(formatIssue)).toEqual([
      'role.yaml:10:13 collaboration.topology: the exit edge "b -> parent" is never taken: routing always follows the unguarded edge "b -> a" instead; guard the exit so it can be taken, e.g. when: { result_matches: { agent: b, contains: APPROVED } }',
    ]);
  });

  it('does not warn when the exit is guarded, when every forward edge is guarded, or when the guard could not be read', () => {
    const guard = { result_matches: { agent: 'b', contains: 'OK' } };
    expect(loadRole({ flow: ['parent -> a', 'a -> b', 'b -> a', { from: 'b', to: 'parent', when: guard }], max_iterations: 3 }).warnings).toEqual([]);
    expect(loadRole({ flow: ['parent -> a', 'a -> b', { from: 'b', to: 'a', when: guard }, 'b -> parent'], max_iterations: 3 }).warnings).toEqual([]);
    expect(warningMessages(loadRole({ flow: ['parent -> a', 'a -> b', 'b -> a', { from: 'b', to: 'parent', when: { stuk: 1 } }], max_iterations: 3 }))).toEqual([]);
  });
});
