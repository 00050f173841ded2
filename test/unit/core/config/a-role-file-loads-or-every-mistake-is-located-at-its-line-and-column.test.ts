import { formatIssue, loadRoleConfig } from '../../../../src/core/config/load';

const located = (text: string, file = 'role.yaml') => loadRoleConfig(text, file).errors.map(formatIssue);
const locatedWarnings = (text: string) => loadRoleConfig(text, 'role.yaml').warnings.map(formatIssue);

const VALID = `name: essay-review
agents:
  writer:
    instructions: Write the essay.
  critic:
    instructions: "Score it: end with score: N."
collaboration:
  topology: review-loop
  agents: [writer, critic]
  max_iterations: 5
  termination:
    any_of:
      - result_matches: { agent: critic, score_gte: 85 }
`;

describe('loading a valid role.yaml', () => {
  it('returns the config and the compiled graph with no issues', () => {
    const r = loadRoleConfig(VALID, 'role.yaml');
    expect(r.errors).toEqual([]);
    expect(r.warnings).toEqual([]);
    expect(r.config?.name).toBe('essay-review');
    expect(r.graph?.loopGroups.map((g) => g.id)).toEqual(['critic,writer']);
  });
});

describe('bad YAML gives exact located messages: file:line:col path: message', () => {
  it('YAML syntax errors are located without a path', () => {
    expect(located('name: demo\nagents:\n  a: {instructions: hi\ncollaboration:\n  topology: pipeline\n')).toEqual([
      'role.yaml:4:1: Flow map in block collection must be sufficiently indented and end with a }',
    ]);
    expect(located('name: demo\nagents:\n\ta: 1\n')).toEqual(['role.yaml:3:1: Tabs are not allowed as indentation']);
    expect(located('name: demo\nkey: @bad\n')).toEqual(['role.yaml:2:6: Plain value cannot start with reserved character @']);
  });

  it('duplicate YAML keys, several documents and dangling aliases are located errors', () => {
    expect(located('name: demo\nname: other\n')).toEqual(['role.yaml:2:1: Map keys must be unique']);
    expect(located('name: a\n---\nname: b\n')).toEqual(['role.yaml:2:1: a role.yaml holds a single YAML document; remove the extra "---"']);
    expect(located('name: demo\nagents: *nope\n')).toEqual(['role.yaml:2:9: alias "*nope" refers to no anchor "&nope" defined before it']);
  });

  it('an empty file or a non-mapping document is an error at 1:1', () => {
    expect(located('')).toEqual(['role.yaml:1:1: the file is empty; expected a mapping with name, agents and collaboration']);
    expect(located('# only a comment\n')).toEqual(['role.yaml:1:1: the file is empty; expected a mapping with name, agents and collaboration']);
    expect(located('- a\n- b\n')).toEqual(['role.yaml:1:1: expected object, got array']);
  });

  it('a wrong type is located at the value: "expected number, got string"', () => {
    const text = VALID.replace('  max_iterations: 5', '  max_iterations: five');
    expect(located(text)).toEqual(['role.yaml:10:19 collaboration.max_iterations: expected number, got string']);
    expect(located(VALID.replace('    instructions: Write the essay.', '    instructions:'))).toEqual([
      'role.yaml:4:5 agents.writer.instructions: expected string, got null',
    ]);
  });

  it('a missing key is located at its parent', () => {
    expect(located(VALID.replace('    instructions: Write the essay.', '    description: writes'))).toEqual([
      'role.yaml:3:3 agents.writer.instructions: required',
    ]);
    expect(located(VALID.replace('name: essay-review\n', ''))).toEqual(['role.yaml:1:1 name: required']);
  });

  it('an unknown key is an error at the key, with a did-you-mean hint when close', () => {
    expect(located(VALID.replace('collaboration:', 'colaboration:'))).toEqual([
      'role.yaml:1:1 collaboration: required',
      'role.yaml:7:1 colaboration: unknown key "colaboration" (did you mean "collaboration"?)',
    ]);
    expect(located(VALID.replace('    instructions: Write the essay.', '    instructions: Write the essay.\n    modle: { name: gpt-4o }'))).toEqual([
      'role.yaml:5:5 agents.writer.modle: unknown key "modle" (did you mean "model"?)',
    ]);
    expect(located(VALID.replace('name: essay-review', 'name: essay-review\nflavour: spicy'))).toEqual([
      'role.yaml:2:1 flavour: unknown key "flavour"',
    ]);
  });

  it('an unknown agent in an edge is located at the edge item or its field', () => {
    const text = `name: demo
agents:
  a:
    instructions: hi
collaboration:
  flow:
    - "parent -> a"
    - "a -> b"
    - { from: b, to: parent }
`;
    expect(located(text)).toEqual([
      'role.yaml:8:7 collaboration.flow[1]: Edge references unknown agent "b" in "to" field (did you mean "a"?)',
      'role.yaml:9:15 collaboration.flow[2].from: Edge references unknown agent "b" in "from" field (did you mean "a"?)',
    ]);
  });

  it('an invalid regex is located at the regex value and names it', () => {
    const text = VALID.replace('score_gte: 85', 'regex: "[unclosed"');
    expect(located(text)).toEqual([
      'role.yaml:13:49 collaboration.termination.any_of[0].result_matches.regex: invalid regex "[unclosed": Unterminated character class',
    ]);
  });

  it('a duplicate agent in the topology list is located at the second occurrence', () => {
    const text = VALID.replace('  agents: [writer, critic]', '  agents:\n    - writer\n    - critic\n    - writer');
    expect(located(text)).toEqual(['role.yaml:12:7 collaboration.agents[2]: duplicate agent "writer" in the topology list']);
  });

  it('stuck.repeats below 2 is located at the value with its bound', () => {
    const text = VALID.replace('      - result_matches: { agent: critic, score_gte: 85 }', '      - max_iterations: 4\n      - stuck:\n          repeats: 1');
    expect(located(text)).toEqual(['role.yaml:15:20 collaboration.termination.any_of[1].stuck.repeats: must be an integer >= 2']);
  });

  it('an unknown condition key is located at the key with a hint; an unknown condition agent at the name', () => {
    const text = VALID.replace('      - result_matches: { agent: critic, score_gte: 85 }', '      - stuk: { repeats: 2 }\n      - converged: critc');
    expect(located(text)).toEqual([
      'role.yaml:13:9 collaboration.termination.any_of[0].stuk: unknown condition "stuk" (did you mean "stuck"?)',
      'role.yaml:14:20 collaboration.termination.any_of[1].converged.agent: termination converged references unknown agent "critc" (did you mean "critic"?)',
    ]);
  });

  it('an enum value gets the allowed values and a hint', () => {
    expect(located(VALID.replace('  max_iterations: 5', '  max_iterations: 5\n  context: threads'))).toEqual([
      'role.yaml:11:12 collaboration.context: must be one of inbox, thread (did you mean "thread"?)',
    ]);
  });

  it('exit: true on an edge to an agent is located at exit', () => {
    const text = `name: demo
agents:
  a: { instructions: hi }
  b: { instructions: hi }
collaboration:
  flow:
    - parent -> a
    - { from: a, to: b, exit: true }
    - b -> parent
`;
    expect(located(text)).toEqual([
      'role.yaml:8:31 collaboration.flow[1].exit: exit: true is only allowed on an edge to parent ("b" is an agent)',
    ]);
  });

  it('reports schema errors and graph errors all at once, sorted by position', () => {
    const text = `name: Demo
model: { temperature: hot }
agents:
  a:
    instructions: hi
collaboration:
  flow:
    - "parent -> a"
    - "a -> ghost"
    - { from: a, to: parent, exit: yes }
  termination:
    any_of:
      - stuk: { repeats: 2 }
`;
    expect(located(text)).toEqual([
      'role.yaml:1:7 name: must match [a-z0-9][a-z0-9-]*',
      'role.yaml:2:23 model.temperature: expected number, got string',
      'role.yaml:9:7 collaboration.flow[1]: Edge references unknown agent "ghost" in "to" field',
      'role.yaml:10:36 collaboration.flow[2].exit: expected boolean, got string',
      'role.yaml:13:9 collaboration.termination.any_of[0].stuk: unknown condition "stuk" (did you mean "stuck"?)',
    ]);
  });

  it('returns no config and no graph when there are errors', () => {
    const r = loadRoleConfig(VALID.replace('max_iterations: 5', 'max_iterations: 0'), 'role.yaml');
    expect(r.config).toBeUndefined();
    expect(r.graph).toBeUndefined();
    expect(r.errors.map(formatIssue)).toEqual(['role.yaml:10:19 collaboration.max_iterations: must be an integer >= 1']);
  });

  it('uses the file name it is given', () => {
    expect(located('', 'examples/x.yaml')).toEqual(['examples/x.yaml:1:1: the file is empty; expected a mapping with name, agents and collaboration']);
  });
});

describe('warnings are separate from errors and located too', () => {
  it('keeps the graph and reports warnings with positions', () => {
    const text = VALID.replace('  max_iterations: 5\n', '');
    const r = loadRoleConfig(text.replace('      - result_matches: { agent: critic, score_gte: 85 }', '      - timeout_ms: 60000'), 'role.yaml');
    expect(r.errors).toEqual([]);
    expect(r.graph).toBeDefined();
    expect(r.warnings.map(formatIssue)).toEqual([
      'role.yaml:7:1 collaboration.max_iterations: Cycle detected in graph but maxIterations is not set, defaulting to 3',
    ]);
  });

  it('locates an orphan agent at its key', () => {
    expect(locatedWarnings(VALID.replace('agents:\n  writer:', 'agents:\n  editor:\n    instructions: edit\n  writer:'))).toEqual([
      'role.yaml:3:3 agents.editor: Orphan agent "editor" is not referenced in any edge',
    ]);
  });
});

describe('one error does not hide another: every error of a file at once', () => {
  const role = (collaboration: string) => `name: demo
agents:
  writer: { instructions: w }
  critic: { instructions: c }
collaboration:
${collaboration}`;

  it('an empty all_of does not hide the errors of its any_of sibling', () => {
    const text = role(`  topology: review-loop
  agents: [writer, critic]
  max_iterations: 5
  termination:
    any_of:
      - stuk: { repeats: 2 }
      - converged: critc
    all_of: []
`);
    expect(located(text)).toEqual([
      'role.yaml:11:9 collaboration.termination.any_of[0].stuk: unknown condition "stuk" (did you mean "stuck"?)',
      'role.yaml:12:20 collaboration.termination.any_of[1].converged.agent: termination converged references unknown agent "critc" (did you mean "critic"?)',
      'role.yaml:13:13 collaboration.termination.all_of: must list at least one condition',
    ]);
  });

  it('a condition the schema rejects in part still has its agent checked, nested and multi-key items too', () => {
    const text = role(`  topology: review-loop
  agents: [writer, critic]
  max_iterations: 5
  termination:
    any_of:
      - result_matches: { agent: critc, score_gte: "high" }
      - any_of: [ { stuck: { repeats: 1 } }, { converged: writr } ]
      - { converged: critc, max_iterations: 3 }
`);
    expect(located(text)).toEqual([
      'role.yaml:11:34 collaboration.termination.any_of[0].result_matches.agent: termination result_matches references unknown agent "critc" (did you mean "critic"?)',
      'role.yaml:11:52 collaboration.termination.any_of[0].result_matches.score_gte: expected number, got string',
      'role.yaml:12:39 collaboration.termination.any_of[1].any_of[0].stuck.repeats: must be an integer >= 2',
      'role.yaml:12:59 collaboration.termination.any_of[1].any_of[1].converged.agent: termination converged references unknown agent "writr" (did you mean "writer"?)',
      'role.yaml:13:9 collaboration.termination.any_of[2]: a condition has exactly one key, got 2 (converged, max_iterations); put each condition in its own list item',
      'role.yaml:13:22 collaboration.termination.any_of[2].converged.agent: termination converged references unknown agent "critc" (did you mean "critic"?)',
    ]);
  });

  it('a bad when guard or exit flag does not hide the edge: its endpoints and the guard agent are checked', () => {
    const text = role(`  flow:
    - parent -> writer
    - { from: writr, to: critic, when: { result_matches: { agent: critc, score_gte: high } } }
    - { from: critic, to: writer, exit: true }
    - critic -> parent
`);
    expect(located(text)).toEqual([
      'role.yaml:8:15 collaboration.flow[1].from: Edge references unknown agent "writr" in "from" field (did you mean "writer"?)',
      'role.yaml:8:67 collaboration.flow[1].when.result_matches.agent: when result_matches references unknown agent "critc" (did you mean "critic"?)',
      'role.yaml:8:85 collaboration.flow[1].when.result_matches.score_gte: expected number, got string',
      'role.yaml:9:41 collaboration.flow[2].exit: exit: true is only allowed on an edge to parent ("writer" is an agent)',
    ]);
  });

  it('an unreadable flow item or topology entry does not hide the other errors, nor the guard of a replaced duplicate edge', () => {
    const text = role(`  topology: review-loop
  agents: [writer, 5]
  flow:
    - { from: 5, to: parent }
    - { from: critic, to: writer, when: { converged: ghost } }
    - { from: critic, to: writer, when: { converged: critic } }
  termination:
    any_of:
      - converged: critc
`);
    expect(located(text)).toEqual([
      'role.yaml:7:20 collaboration.agents[1]: expected string, got number',
      'role.yaml:9:15 collaboration.flow[0].from: expected string, got number',
      'role.yaml:10:54 collaboration.flow[1].when.converged.agent: when converged references unknown agent "ghost"',
      'role.yaml:14:20 collaboration.termination.any_of[0].converged.agent: termination converged references unknown agent "critc" (did you mean "critic"?)',
    ]);
  });

  it('a flow or topology of the wrong type does not hide condition and agent-list errors, nor invent "no edges"', () => {
    expect(located(role(`  flow: "parent -> writer"\n  termination:\n    any_of:\n      - converged: critc\n`))).toEqual([
      'role.yaml:6:9 collaboration.flow: expected array, got string',
      'role.yaml:9:20 collaboration.termination.any_of[0].converged.agent: termination converged references unknown agent "critc" (did you mean "critic"?)',
    ]);
    expect(located(role(`  topology: 5\n  agents: [writer, critc]\n  termination:\n    any_of:\n      - converged: critc\n`))).toEqual([
      'role.yaml:6:13 collaboration.topology: expected string, got number',
      'role.yaml:7:20 collaboration.agents[1]: unknown agent "critc" (did you mean "critic"?)',
      'role.yaml:10:20 collaboration.termination.any_of[0].converged.agent: termination converged references unknown agent "critc" (did you mean "critic"?)',
    ]);
  });
});

describe('caps and matchers rolebox accepted silently are located errors', () => {
  it('a cap is an integer >= 1, in collaboration.max_iterations and in a max_iterations condition', () => {
    expect(located(VALID.replace('max_iterations: 5', 'max_iterations: 2.5'))).toEqual([
      'role.yaml:10:19 collaboration.max_iterations: must be an integer >= 1',
    ]);
    expect(located(VALID.replace('max_iterations: 5', 'max_iterations: -1'))).toEqual([
      'role.yaml:10:19 collaboration.max_iterations: must be an integer >= 1',
    ]);
    expect(located(VALID.replace('      - result_matches: { agent: critic, score_gte: 85 }', '      - max_iterations: 0'))).toEqual([
      'role.yaml:13:25 collaboration.termination.any_of[0].max_iterations: must be an integer >= 1',
    ]);
  });

  it('a result_matches with no matcher is an error at the condition: it could never hold', () => {
    expect(located(VALID.replace('{ agent: critic, score_gte: 85 }', '{ agent: critic }'))).toEqual([
      'role.yaml:13:25 collaboration.termination.any_of[0].result_matches: needs at least one of contains, regex, score_gte, no_changes (without one it could never hold)',
    ]);
  });
});
