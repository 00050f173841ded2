import { loadRoleConfig } from '../../../../src/core/config/load';
import { RoleConfigSchema } from '../../../../src/core/config/schema';
import { compileRole } from '../../../../src/core/graph/compile';
import { errorMessages, loadRole, warningMessages } from '../../fixtures/role-yaml';

const CYCLE_WARNING = 'Cycle detected in graph but maxIterations is not set, defaulting to 3';

describe('compiling topologies (rolebox cases 7–9, 23)', () => {
  it('pipeline [a,b]: edges, nodes, topology, cap 0, one exit edge, entry [a], no loops', () => {
    const r = loadRole({ topology: 'pipeline', agents: ['a', 'b'] });
    expect(r.errors).toEqual([]);
    expect(r.warnings).toEqual([]);
    const g = r.graph!;
    expect(g.edges).toEqual([
      { from: 'parent', to: 'a', exit: false },
      { from: 'a', to: 'b', exit: false },
      { from: 'b', to: 'parent', exit: true },
    ]);
    expect(g.nodes).toEqual(['a', 'b']);
    expect(g.topology).toBe('pipeline');
    expect(g.maxIterations).toBe(0);
    expect(g.edges.filter((e) => e.exit)).toEqual([{ from: 'b', to: 'parent', exit: true }]);
    expect(g.entry).toEqual(['a']);
    expect(g.loopGroups).toEqual([]);
  });

  it('review-loop [coder,reviewer] without a cap defaults to 3 with warning 6; star [a,b,c] has cap 0 and 3 exits', () => {
    const r = loadRole({ topology: 'review-loop', agents: ['coder', 'reviewer'] }, ['coder', 'reviewer']);
    expect(r.graph?.maxIterations).toBe(3);
    expect(r.graph?.edges.filter((e) => e.exit)).toHaveLength(1);
    expect(r.graph?.loopGroups).toEqual([{ id: 'coder,reviewer', nodes: ['coder', 'reviewer'], backEdges: [2] }]);
    expect(warningMessages(r)).toEqual([CYCLE_WARNING]);
    const s = loadRole({ topology: 'star', agents: ['a', 'b', 'c'] }, ['a', 'b', 'c']);
    expect(s.graph?.maxIterations).toBe(0);
    expect(s.graph?.edges.filter((e) => e.exit)).toHaveLength(3);
    expect(s.graph?.entry).toEqual(['a', 'b', 'c']);
  });

  it('a topology with no agents, or with an agent that is not declared, is an error (case 9)', () => {
    expect(errorMessages(loadRole({ topology: 'pipeline', agents: [] }))).toEqual(['must list at least one agent when a topology is set']);
    expect(errorMessages(loadRole({ topology: 'pipeline' }))).toEqual(['must list at least one agent when a topology is set']);
    expect(errorMessages(loadRole({ topology: 'pipeline', agents: ['a', 'b'] }, ['a']))).toEqual(['unknown agent "b" (did you mean "a"?)']);
  });

  it('neither topology nor flow is an error', () => {
    expect(errorMessages(loadRole({}))).toEqual(['needs a topology or a flow: the graph has no edges']);
  });
});

describe('the effective hard cap (§4.5, cases 16, 21)', () => {
  it('uses collaboration.max_iterations when set, on cyclic and acyclic graphs', () => {
    expect(loadRole({ topology: 'review-loop', agents: ['a', 'b'], max_iterations: 5 }).graph?.maxIterations).toBe(5);
    expect(loadRole({ topology: 'pipeline', agents: ['a', 'b'], max_iterations: 5 }).graph?.maxIterations).toBe(5);
  });

  it('rejects 0, negative and fractional caps (rolebox clamped them to 0)', () => {
    for (const bad of [0, -5, 2.5]) {
      expect(errorMessages(loadRole({ topology: 'review-loop', agents: ['a', 'b'], max_iterations: bad }))).toEqual(['must be an integer >= 1']);
    }
  });

  it('a cyclic flow without any max_iterations defaults to 3 and warns', () => {
    const guardedExit = { from: 'b', to: 'parent', when: { result_matches: { agent: 'b', contains: 'OK' } } };
    const r = loadRole({ flow: ['parent -> a', 'a -> b', 'b -> a', guardedExit] });
    expect(r.graph?.maxIterations).toBe(3);
    expect(warningMessages(r)).toEqual([CYCLE_WARNING]);
  });

  it('root 10 plus a max_iterations 5 condition keeps 10 and the condition', () => {
    const r = loadRole({ topology: 'review-loop', agents: ['a', 'b'], max_iterations: 10, termination: { any_of: [{ max_iterations: 5 }] } });
    expect(r.graph?.maxIterations).toBe(10);
    expect(r.graph?.termination).toEqual({ anyOf: [{ kind: 'max_iterations', n: 5 }], allOf: [] });
  });

  it('without a root cap the largest max_iterations condition is the cap, with no warning (rolebox kept 3)', () => {
    const r = loadRole({ topology: 'review-loop', agents: ['a', 'b'], termination: { any_of: [{ max_iterations: 8 }, { any_of: [{ max_iterations: 12 }] }] } });
    expect(r.graph?.maxIterations).toBe(12);
    expect(r.warnings).toEqual([]);
  });

  it('a termination without max_iterations on a cyclic graph still defaults to 3 with the warning', () => {
    const r = loadRole({ topology: 'review-loop', agents: ['a', 'b'], termination: { any_of: [{ timeout_ms: 60000 }] } });
    expect(r.graph?.maxIterations).toBe(3);
    expect(warningMessages(r)).toEqual([CYCLE_WARNING]);
  });

  it('a max_iterations condition on an acyclic graph does not make a cap', () => {
    expect(loadRole({ topology: 'pipeline', agents: ['a'], termination: { any_of: [{ max_iterations: 4 }] } }, ['a']).graph?.maxIterations).toBe(0);
  });
});

describe('termination (case 23, §4.6)', () => {
  it('no termination gives empty lists', () => {
    expect(loadRole({ topology: 'pipeline', agents: ['a'] }, ['a']).graph?.termination).toEqual({ anyOf: [], allOf: [] });
  });

  it('compiles any_of and all_of separately', () => {
    const r = loadRole({
      topology: 'review-loop',
      agents: ['a', 'b'],
      max_iterations: 6,
      termination: { any_of: [{ converged: 'b' }], all_of: [{ max_iterations: 2 }, { result_matches: { agent: 'b', contains: 'OK' } }] },
    });
    expect(r.graph?.termination).toEqual({
      anyOf: [{ kind: 'converged', agent: 'b' }],
      allOf: [{ kind: 'max_iterations', n: 2 }, { kind: 'result_matches', agent: 'b', contains: 'OK' }],
    });
  });

  it('accepts the string item "signal_observed(type)" that rolebox dropped', () => {
    const r = loadRole({ topology: 'pipeline', agents: ['a'], termination: { any_of: ['signal_observed(answer)'] } }, ['a']);
    expect(r.graph?.termination.anyOf).toEqual([{ kind: 'signal_observed', type: 'answer' }]);
  });

  it('an empty any_of at the top is an error', () => {
    expect(errorMessages(loadRole({ topology: 'pipeline', agents: ['a'], termination: { any_of: [] } }, ['a']))).toEqual([
      'must list at least one condition',
    ]);
  });
});

describe('entry, nodes and defaults', () => {
  it('entry is the parent-edge targets in edge order (deduplicated); nodes are in first-appearance order', () => {
    const r = loadRole({ flow: ['parent -> b', 'c -> a', 'parent -> c', 'b -> parent', 'a -> parent'] }, ['a', 'b', 'c']);
    expect(r.graph?.entry).toEqual(['b', 'c']);
    expect(r.graph?.nodes).toEqual(['b', 'c', 'a']);
  });

  it('merges the top-level model under each agent and the judge; defaults name, tools and timeout', () => {
    const text = `
name: defaults
model: { name: gpt-4o, temperature: 0.3, max_tokens: 900, context_window: 64000 }
agents:
  a:
    instructions: A
  b:
    instructions: B
    model: { name: local-llama, base_url: "http://localhost:11434/v1", api_key_env: LLAMA_KEY }
    tools: [goal, signal]
    timeout_ms: 45000
judge:
  model: { temperature: 0 }
collaboration: { topology: pipeline, agents: [a, b] }
`;
    const g = loadRoleConfig(text, 'role.yaml').graph!;
    expect(g.agents.a).toEqual({
      name: 'a',
      instructions: 'A',
      model: { name: 'gpt-4o', temperature: 0.3, maxTokens: 900, contextWindow: 64000 },
      tools: [],
      maxToolRounds: 8,
      maxParallelToolCalls: 32,
      timeoutMs: 30000,
    });
    expect(g.agents.b).toEqual({
      name: 'b',
      instructions: 'B',
      model: { name: 'local-llama', temperature: 0.3, maxTokens: 900, contextWindow: 64000, baseUrl: 'http://localhost:11434/v1', apiKeyEnv: 'LLAMA_KEY' },
      tools: ['goal', 'signal'],
      maxToolRounds: 8,
      maxParallelToolCalls: 32,
      timeoutMs: 45000,
    });
    expect(g.judge).toEqual({ model: { name: 'gpt-4o', temperature: 0, maxTokens: 900, contextWindow: 64000 } });
  });

  it('without any model config, agents and judge use gpt-4o-mini', () => {
    const g = loadRole({ topology: 'pipeline', agents: ['a'] }, ['a']).graph!;
    expect(g.agents.a.model).toEqual({ name: 'gpt-4o-mini' });
    expect(g.judge.model).toEqual({ name: 'gpt-4o-mini' });
  });

  it('context defaults to inbox, to thread for round-robin, and an explicit value wins', () => {
    expect(loadRole({ topology: 'pipeline', agents: ['a'] }, ['a']).graph?.context).toBe('inbox');
    expect(loadRole({ topology: 'round-robin', agents: ['a', 'b'], max_iterations: 2 }).graph?.context).toBe('thread');
    expect(loadRole({ topology: 'round-robin', agents: ['a', 'b'], max_iterations: 2, context: 'inbox' }).graph?.context).toBe('inbox');
  });

  it('compiles task, goal, output, approval, budget and pricing', () => {
    const r = loadRole({ topology: 'pipeline', agents: ['a'] }, ['a'], {
      task: 'do it',
      goal: { objective: 'ship', success_criteria: 'tests pass' },
      output: { schema: { type: 'object' } },
      approval: { before_exit: true },
      budget: { max_total_tokens: 1000, max_cost_usd: 1, max_agent_calls: 5, max_duration_ms: 60000 },
      pricing: { 'gpt-4o-mini': { input: 0.15, output: 0.6 } },
    });
    const g = r.graph!;
    expect(g.task).toBe('do it');
    expect(g.goal).toEqual({ objective: 'ship', successCriteria: 'tests pass', maxTurns: 10, maxDurationMs: 9000000 });
    expect(g.output).toEqual({ schema: { type: 'object' }, maxRetries: 2 });
    expect(g.approval).toEqual({ beforeExit: true });
    expect(g.budget).toEqual({ maxTotalTokens: 1000, maxCostUsd: 1, maxAgentCalls: 5, maxDurationMs: 60000 });
    expect(g.pricing).toEqual({ 'gpt-4o-mini': { input: 0.15, output: 0.6 } });
  });

  it('the compiled graph is plain JSON', () => {
    const g = loadRole({
      flow: ['parent -> a', 'a -> b', { from: 'b', to: 'a', when: { result_matches: { agent: 'b', regex: '^FAIL', flags: 'i' } } }, 'b -> parent'],
      max_iterations: 3,
    }).graph!;
    expect(JSON.parse(JSON.stringify(g))).toEqual(g);
    expect(g.edges[2].when).toEqual({ kind: 'result_matches', agent: 'b', regex: '^FAIL', flags: 'i' });
  });

  it('compileRole returns path-based issues and no graph on errors', () => {
    const config = RoleConfigSchema.parse({
      name: 'x',
      agents: { a: { instructions: 'A' } },
      collaboration: { flow: ['parent -> a', 'a -> ghost', 'ghost -> parent'] },
    });
    const r = compileRole(config);
    expect(r.graph).toBeUndefined();
    expect(r.errors).toEqual([
      { path: ['collaboration', 'flow', 1], message: 'Edge references unknown agent "ghost" in "to" field' },
      { path: ['collaboration', 'flow', 2], message: 'Edge references unknown agent "ghost" in "from" field' },
    ]);
  });

  it('max_tool_rounds: the agent setting, else its model setting, else the top-level model, else 8', () => {
    const g = loadRoleConfig(
      `name: rounds
model: { name: m, max_tool_rounds: 5 }
agents:
  a: { instructions: A, max_tool_rounds: 2, model: { max_tool_rounds: 3 } }
  b: { instructions: B, model: { max_tool_rounds: 3 } }
  c: { instructions: C }
collaboration:
  topology: pipeline
  agents: [a, b, c]
`,
      'role.yaml',
    ).graph!;
    expect([g.agents.a.maxToolRounds, g.agents.b.maxToolRounds, g.agents.c.maxToolRounds]).toEqual([2, 3, 5]);
    expect(loadRoleConfig('name: r\nagents:\n  a: { instructions: A }\ncollaboration: { topology: pipeline, agents: [a] }\n', 'r.yaml').graph!.agents.a.maxToolRounds).toBe(8);
  });
});
