import { buildAgentMessages, outputSchemaFor, PROMPT_TEXTS } from '../../../../src/core/prompts/build';
import { graphOf, promptInput, topologyEdges } from './prompts-fixtures';

const lines = (...l: string[]): string => l.join('\n');

const CONTRACT = lines(
  '<result_contract>',
  'Put your final answer inside a fenced ```result block. Everything outside the block is treated as working notes.',
  '</result_contract>',
);

describe('buildAgentMessages layout', () => {
  test('a pipeline middle agent sees its neighbours, the task and its predecessor output under "From <sender>"', () => {
    const graph = graphOf({
      name: 'essay',
      topology: 'pipeline',
      instructions: { researcher: 'Find facts.', writer: 'You turn research notes into a first draft.\n', editor: 'Edit.' },
      edges: topologyEdges('pipeline', ['researcher', 'writer', 'editor']),
    });
    const messages = buildAgentMessages(
      promptInput(graph, 'writer', {
        wave: 2,
        triggers: [{ from: 'researcher', text: "Tides come from the moon's pull." }],
      }),
    );
    expect(messages).toEqual([
      {
        role: 'system',
        content: lines(
          'You turn research notes into a first draft.',
          '',
          '<collaboration>',
          'You are the agent "writer" in the graph "essay" (pipeline).',
          'You receive work from: researcher.',
          'You pass your output to: editor.',
          'You are not an exit agent: your result goes on to other agents.',
          'Round 1, wave 2.',
          'You see the task, your own last results and the outputs that triggered this turn.',
          '</collaboration>',
          '',
          CONTRACT,
        ),
      },
      {
        role: 'user',
        content: lines(
          '## Task',
          'Write an essay about tides.',
          '',
          '## Outputs that triggered this turn',
          '',
          '### From researcher',
          "Tides come from the moon's pull.",
        ),
      },
    ]);
  });

  test('a review-loop critic gets its loop edge, iteration k/N, the stop line, the score contract and its own last result', () => {
    const graph = graphOf({
      name: 'essay-review',
      topology: 'review-loop',
      instructions: { writer: 'Write.', critic: 'You review drafts strictly.' },
      edges: topologyEdges('review-loop', ['writer', 'critic']),
      maxIterations: 5,
    });
    const messages = buildAgentMessages(
      promptInput(graph, 'critic', {
        wave: 4,
        iteration: 2,
        stopConditions: ['This graph stops when ANY of: 5 iterations; Critic result matches criteria'],
        scoreContract: true,
        ownRecent: ['score: 60\nNeeds sources.'],
        triggers: [{ from: 'writer', text: 'Draft v2 with sources.' }],
      }),
    );
    expect(messages[0].content).toBe(
      lines(
        'You review drafts strictly.',
        '',
        '<collaboration>',
        'You are the agent "critic" in the graph "essay-review" (review-loop).',
        'You receive work from: writer.',
        'You pass your output to: writer (loop).',
        'You are an exit agent: your result can complete the graph.',
        'Round 1, wave 4, iteration 2/5.',
        'You see the task, your own last results and the outputs that triggered this turn.',
        'This graph stops when ANY of: 5 iterations; Critic result matches criteria',
        '</collaboration>',
        '',
        '<result_contract>',
        'Put your final answer inside a fenced ```result block. Everything outside the block is treated as working notes.',
        'End your final answer with a line `score: <0-100>`: your score, a whole number from 0 to 100.',
        '</result_contract>',
      ),
    );
    expect(messages[1]).toEqual({
      role: 'user',
      content: lines(
        '## Task',
        'Write an essay about tides.',
        '',
        '## Your previous results (oldest first)',
        '',
        '### Your result 1 (latest)',
        'score: 60',
        'Needs sources.',
        '',
        '## Outputs that triggered this turn',
        '',
        '### From writer',
        'Draft v2 with sources.',
      ),
    });
  });

  test('a star specialist started by the task sees the task once (the parent trigger repeating it is left out)', () => {
    const graph = graphOf({
      name: 'due-diligence',
      topology: 'star',
      instructions: { legal: 'Legal.', finance: 'You assess the finances.', tech: 'Tech.' },
      edges: topologyEdges('star', ['legal', 'finance', 'tech']),
    });
    const task = 'Assess ACME Corp.';
    const messages = buildAgentMessages(
      promptInput(graph, 'finance', {
        task,
        stopConditions: 'This graph stops when ANY of: 2min elapsed',
        triggers: [{ from: 'parent', text: task }],
      }),
    );
    expect(messages).toEqual([
      {
        role: 'system',
        content: lines(
          'You assess the finances.',
          '',
          '<collaboration>',
          'You are the agent "finance" in the graph "due-diligence" (star).',
          'You receive work from: the task.',
          'You pass your output to no other agent.',
          'You are an exit agent: your result can complete the graph.',
          'Round 1, wave 1.',
          'You see the task, your own last results and the outputs that triggered this turn.',
          'This graph stops when ANY of: 2min elapsed',
          '</collaboration>',
          '',
          CONTRACT,
        ),
      },
      { role: 'user', content: lines('## Task', 'Assess ACME Corp.') },
    ]);
  });

  test('a thread-mode round-robin agent sees the shared thread labelled by agent, its own turns marked "(you)"', () => {
    const graph = graphOf({
      name: 'build',
      topology: 'round-robin',
      instructions: { planner: 'Plan.', coder: 'You write the code.', tester: 'Test.' },
      edges: topologyEdges('round-robin', ['planner', 'coder', 'tester']),
      context: 'thread',
      maxIterations: 3,
    });
    const messages = buildAgentMessages(
      promptInput(graph, 'coder', {
        task: 'Build a CLI that counts words.',
        wave: 4,
        iteration: 2,
        stopConditions: [
          'This graph stops when ANY of: 3 iterations',
          'This graph stops when ALL of: 2 iterations AND Tester approves',
        ],
        ownRecent: ['ignored in thread mode'],
        triggers: [{ from: 'planner', text: 'Plan v2: add --lines.' }],
        thread: [
          { agent: 'planner', text: 'Plan v1: count words.' },
          { agent: 'coder', text: 'wc.ts v1' },
          { agent: 'tester', text: 'Fails on empty input.' },
          { agent: 'planner', text: 'Plan v2: add --lines.' },
        ],
      }),
    );
    expect(messages[0].content).toBe(
      lines(
        'You write the code.',
        '',
        '<collaboration>',
        'You are the agent "coder" in the graph "build" (round-robin).',
        'You receive work from: planner.',
        'You pass your output to: tester.',
        'You are not an exit agent: your result goes on to other agents.',
        'Round 1, wave 4, iteration 2/3.',
        'You see the task and the shared thread of agent outputs, oldest first.',
        'This graph stops when ANY of: 3 iterations',
        'This graph stops when ALL of: 2 iterations AND Tester approves',
        '</collaboration>',
        '',
        CONTRACT,
      ),
    );
    expect(messages[1].content).toBe(
      lines(
        '## Task',
        'Build a CLI that counts words.',
        '',
        '## Shared thread (oldest first)',
        '',
        '### planner',
        'Plan v1: count words.',
        '',
        '### coder (you)',
        'wc.ts v1',
        '',
        '### tester',
        'Fails on empty input.',
        '',
        '### planner',
        'Plan v2: add --lines.',
      ),
    );
  });

  test('a shared thread shows a transfer with its message, a question to the user and the answer where they happened', () => {
    const graph = graphOf({
      name: 'support',
      topology: 'round-robin',
      instructions: { triage: 'Route.', billing: 'You handle billing.' },
      edges: topologyEdges('round-robin', ['triage', 'billing']),
      context: 'thread',
    });
    const messages = buildAgentMessages(
      promptInput(graph, 'billing', {
        task: 'I was charged twice.',
        thread: [
          { agent: 'triage', text: 'A double charge: billing, please.', kind: 'handoff', to: 'billing' },
          { agent: 'billing', text: 'Which invoice?', kind: 'question', to: 'user' },
          { agent: 'user', text: 'INV-0342.', kind: 'answer', to: 'billing' },
        ],
      }),
    );
    expect(messages[1].content).toBe(
      lines(
        '## Task',
        'I was charged twice.',
        '',
        '## Shared thread (oldest first)',
        '',
        '### triage, handing off to billing (you)',
        'A double charge: billing, please.',
        '',
        '### billing (you), asking the user',
        'Which invoice?',
        '',
        '### user, answering billing (you)',
        'INV-0342.',
        '',
        '## Notes for this turn',
        '',
        '### Answer from a human (from user)',
        'INV-0342.',
        '',
        PROMPT_TEXTS.actOnAnswer,
      ),
    );
  });

  test('a transfer that gives this agent its turn is the turn\'s note, not a thread entry; the others read it in the thread', () => {
    const graph = graphOf({
      name: 'support',
      topology: 'round-robin',
      instructions: { triage: 'Route.', billing: 'You handle billing.', tech: 'You fix errors.' },
      edges: topologyEdges('round-robin', ['triage', 'billing', 'tech']),
      context: 'thread',
    });
    const thread = [
      { agent: 'triage', text: 'Route this.' },
      { agent: 'triage', text: 'A double charge: billing, please.', kind: 'handoff' as const, to: 'billing' },
    ];
    const forBilling = buildAgentMessages(promptInput(graph, 'billing', { task: 'I was charged twice.', thread }));
    expect(forBilling[1].content).toBe(
      lines(
        '## Task',
        'I was charged twice.',
        '',
        '## Shared thread (oldest first)',
        '',
        '### triage',
        'Route this.',
        '',
        '## Notes for this turn',
        '',
        '### Handed off to you, with this message (from triage)',
        'A double charge: billing, please.',
      ),
    );
    const forTech = buildAgentMessages(promptInput(graph, 'tech', { task: 'I was charged twice.', thread }));
    expect(forTech[1].content).toContain('### triage, handing off to billing\nA double charge: billing, please.');
    expect(forTech[1].content).not.toContain(PROMPT_TEXTS.notesHeading);
  });

  test('a dispatch with a summary and notes labels every note kind in the given order, after the history', () => {
    const graph = graphOf({
      name: 'custom-essay',
      instructions: { writer: 'You write essays.', critic: 'Critique.' },
      edges: [
        { from: 'parent', to: 'writer' },
        { from: 'writer', to: 'critic' },
        { from: 'critic', to: 'writer', label: 'revise', guarded: true },
        { from: 'critic', to: 'parent' },
      ],
      maxIterations: 3,
    });
    const messages = buildAgentMessages(
      promptInput(graph, 'writer', {
        round: 2,
        wave: 1,
        iteration: 1,
        summary: 'Drafts 1-3 covered lunar tides; the critic wants solar tides.',
        ownRecent: ['Draft 4', 'Draft 5'],
        triggers: [
          { from: 'parent', text: 'Write an essay about tides.' },
          { from: 'critic', text: 'REVISE: add solar tides.' },
        ],
        notes: [
          { kind: 'reject_reason', text: 'Too short.' },
          { kind: 'user_message', text: 'Cite NOAA.', from: 'ops' },
          { kind: 'human_answer', text: 'Use metric units.', from: 'r1' },
          { kind: 'approval_note', text: 'Good direction.' },
          { kind: 'goal_framework', text: '<goal_framework>…</goal_framework>' },
          { kind: 'goal_continuation', text: '<goal_continuation>…</goal_continuation>' },
          { kind: 'schema_retry', text: 'Your previous response did not match the required output format (attempt 1/2).' },
        ],
      }),
    );
    expect(messages[0].content).toContain(
      lines(
        '<collaboration>',
        'You are the agent "writer" in the graph "custom-essay" (custom flow).',
        'You receive work from: the task, critic (revise, conditional).',
        'You pass your output to: critic.',
        'You are not an exit agent: your result goes on to other agents.',
        'Round 2, wave 1, iteration 1/3.',
      ),
    );
    expect(messages[1].content).toBe(
      lines(
        '## Task',
        'Write an essay about tides.',
        '',
        '## Summary of earlier turns',
        'Drafts 1-3 covered lunar tides; the critic wants solar tides.',
        '',
        '## Your previous results (oldest first)',
        '',
        '### Your result 1',
        'Draft 4',
        '',
        '### Your result 2 (latest)',
        'Draft 5',
        '',
        '## Outputs that triggered this turn',
        '',
        '### From critic',
        'REVISE: add solar tides.',
        '',
        '## Notes for this turn',
        '',
        '### Your previous result was rejected. Reason',
        'Too short.',
        '',
        '### Message from the user (from ops)',
        'Cite NOAA.',
        '',
        '### Answer from a human (from r1)',
        'Use metric units.',
        '',
        '### Approval note from a human',
        'Good direction.',
        '',
        '### Goal',
        '<goal_framework>…</goal_framework>',
        '',
        '### Goal continuation',
        '<goal_continuation>…</goal_continuation>',
        '',
        '### Output format correction',
        'Your previous response did not match the required output format (attempt 1/2).',
      ),
    );
  });

  test('a parent trigger that differs from the task is shown "From the orchestrator"', () => {
    const graph = graphOf({ name: 'g', instructions: { a: 'A.' }, edges: [{ from: 'parent', to: 'a' }, { from: 'a', to: 'parent' }] });
    const [, user] = buildAgentMessages(promptInput(graph, 'a', { triggers: [{ from: 'parent', text: 'Start over.' }] }));
    expect(user.content).toBe(
      lines('## Task', 'Write an essay about tides.', '', '## Outputs that triggered this turn', '', '### From the orchestrator', 'Start over.'),
    );
  });

  test('the same input builds byte-identical messages', () => {
    const graph = graphOf({ name: 'g', topology: 'review-loop', instructions: { w: 'W.', c: 'C.' }, edges: topologyEdges('review-loop', ['w', 'c']), maxIterations: 2 });
    const input = promptInput(graph, 'c', { ownRecent: ['x'], triggers: [{ from: 'w', text: 'y' }] });
    expect(JSON.stringify(buildAgentMessages(input))).toBe(JSON.stringify(buildAgentMessages(structuredClone(input))));
  });

  test('an unknown agent is a programming error', () => {
    const graph = graphOf({ name: 'g', instructions: { a: 'A.' }, edges: [{ from: 'parent', to: 'a' }, { from: 'a', to: 'parent' }] });
    expect(() => buildAgentMessages(promptInput(graph, 'ghost'))).toThrow('buildAgentMessages: unknown agent "ghost"');
  });
});

describe('the result contract as real models follow it (BENCHMARKS.md, "Prompt quality")', () => {
  const graph = () =>
    graphOf({ name: 'g', topology: 'pipeline', instructions: { researcher: 'Research.', editor: 'Edit.' }, edges: topologyEdges('pipeline', ['researcher', 'editor']) });
  const system = (g: ReturnType<typeof graph>, agent: string) => buildAgentMessages(promptInput(g, agent))[0].content;

  test('an agent with tools is told to call them through the interface, and no fence competes with them', () => {
    const g = graph();
    g.agents.researcher.tools = ['files.*', 'goal'];
    const text = system(g, 'researcher');
    expect(text.endsWith(lines(PROMPT_TEXTS.toolsContract, PROMPT_TEXTS.resultContractClose))).toBe(true);
    expect(text).not.toContain('```result');
  });

  test('a final agent of a role with an output schema is given the schema, and asked for the JSON alone', () => {
    const g = graph();
    const schema = { type: 'object', properties: { title: { type: 'string' } }, required: ['title'] };
    g.output = { schema, maxRetries: 2 };
    expect(system(g, 'editor').endsWith(PROMPT_TEXTS.outputContract(JSON.stringify(schema)))).toBe(true);
    expect(system(g, 'editor')).not.toContain('```result');
    // an agent that does not exit keeps the fence
    expect(system(g, 'researcher').endsWith(CONTRACT)).toBe(true);
    expect(outputSchemaFor(g, 'editor')).toBe(schema);
    expect(outputSchemaFor(g, 'researcher')).toBeUndefined();
  });

  test('the score contract names no number a model could copy', () => {
    // only the scale's ends: no example score (once `85`, the demo's threshold, which small models copied)
    expect(PROMPT_TEXTS.scoreContract.match(/\d+/g)).toEqual(['0', '100', '0', '100']);
  });
});
