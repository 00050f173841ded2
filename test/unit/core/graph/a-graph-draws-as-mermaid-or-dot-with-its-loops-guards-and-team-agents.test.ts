import { defineRole } from '../../../../src/core/config/define';
import { renderGraph } from '../../../../src/core/graph/render';
import { describeGuard } from '../../../../src/core/graph/render-labels';
import { loadRole } from '../../fixtures/role-yaml';

const reviewLoop = () =>
  loadRole({ topology: 'review-loop', agents: ['writer', 'critic'], max_iterations: 5 }, ['writer', 'critic'], { name: 'essay' }).graph!;

const guarded = () =>
  loadRole({
    topology: 'pipeline',
    agents: ['a', 'b'],
    max_iterations: 4,
    flow: [{ from: 'b', to: 'a', label: 'retry', when: { result_matches: { agent: 'b', score_gte: 85 } } }],
  }).graph!;

describe('mermaid', () => {
  it('draws the review loop exactly: parent node, loop subgraph with cap, back edge thick, exit dashed', () => {
    expect(renderGraph(reviewLoop(), 'mermaid')).toBe(
      [
        'flowchart TD',
        '  %% troupe graph "essay" (topology review-loop)',
        '  parent(["parent (orchestrator)"])',
        '  subgraph loop0 ["loop critic,writer · cap 5"]',
        '    n1["critic"]',
        '    n0["writer"]',
        '  end',
        '  parent --> n0',
        '  n0 --> n1',
        '  n1 ==>|"loop · ↺ back edge"| n0',
        '  n1 -.->|"exit"| parent',
        '',
      ].join('\n'),
    );
  });

  it('shows when guards in the label and escapes quotes and angle brackets', () => {
    const text = renderGraph(guarded(), 'mermaid');
    expect(text).toContain('n1 ==>|"retry · when b score ≥ 85 · ↺ back edge"| n0');
    const g = loadRole({ flow: ['parent -> a"b<c', 'a"b<c -> parent'] }, ['a"b<c']).graph!;
    expect(renderGraph(g, 'mermaid')).toContain('n0["a#quot;b#lt;c"]');
    expect(renderGraph(g, 'dot')).toContain('n0 [label="a\\"b<c"];');
  });

  it('draws nodes outside loops plainly and an exit without label as a bare dashed arrow', () => {
    const g = loadRole({ topology: 'pipeline', agents: ['a', 'b'] }).graph!;
    expect(renderGraph(g, 'mermaid')).toBe(
      [
        'flowchart TD',
        '  %% troupe graph "test-role" (topology pipeline)',
        '  parent(["parent (orchestrator)"])',
        '  n0["a"]',
        '  n1["b"]',
        '  parent --> n0',
        '  n0 --> n1',
        '  n1 -.-> parent',
        '',
      ].join('\n'),
    );
  });
});

describe('dot', () => {
  it('draws the review loop exactly with a cluster, a bold back edge and a dashed exit', () => {
    expect(renderGraph(reviewLoop(), 'dot')).toBe(
      [
        'digraph "essay" {',
        '  rankdir=TB;',
        '  node [shape=box, style=rounded];',
        '  parent [label="parent (orchestrator)", shape=ellipse, style=filled, fillcolor="#eeeeee"];',
        '  subgraph cluster_loop0 {',
        '    label="loop critic,writer · cap 5";',
        '    style=dashed;',
        '    n1 [label="critic"];',
        '    n0 [label="writer"];',
        '  }',
        '  parent -> n0;',
        '  n0 -> n1;',
        '  n1 -> n0 [label="loop · ↺ back edge", style=bold, color="#1f6feb"];',
        '  n1 -> parent [label="exit", style=dashed];',
        '}',
        '',
      ].join('\n'),
    );
  });

  it('shows when guards in edge labels', () => {
    expect(renderGraph(guarded(), 'dot')).toContain('n1 -> n0 [label="retry · when b score ≥ 85 · ↺ back edge", style=bold, color="#1f6feb"];');
  });
});

describe('guard descriptions', () => {
  it('describes every condition kind briefly', () => {
    expect(describeGuard({ kind: 'max_iterations', n: 3 })).toBe('3 iterations');
    expect(describeGuard({ kind: 'timeout_ms', ms: 90000 })).toBe('1.5min elapsed');
    expect(describeGuard({ kind: 'timeout_ms', ms: 2500 })).toBe('2.5s elapsed');
    expect(describeGuard({ kind: 'converged', agent: 'critic' })).toBe('critic converged');
    expect(describeGuard({ kind: 'result_matches', agent: 'c', contains: 'OK', regex: '^P', flags: 'i', noChanges: true })).toBe(
      'c contains "OK" and matches /^P/i and unchanged',
    );
    expect(describeGuard({ kind: 'stuck', repeats: 2, agent: 'w' })).toBe('2 identical results from w');
    expect(describeGuard({ kind: 'signal_observed', type: 'approved' })).toBe('signal approved');
    expect(describeGuard({ kind: 'max_messages', n: 6 })).toBe('6 messages');
    expect(describeGuard({ kind: 'text_mention', text: 'DONE', sources: ['c'] })).toBe('"DONE" mentioned by c');
    expect(describeGuard({ kind: 'token_usage', maxTotalTokens: 100 })).toBe('tokens total 100');
    expect(describeGuard({ kind: 'any_of', items: [{ kind: 'max_messages', n: 1 }, { kind: 'all_of', items: [{ kind: 'max_iterations', n: 2 }, { kind: 'signal_observed', type: 'go' }] }] })).toBe(
      '(1 messages or (2 iterations and signal go))',
    );
    expect(describeGuard({ kind: 'custom', key: 'approvals', params: 2 })).toBe('approvals');
  });
});

describe('a team agent (docs/teams.md, "Nested teams")', () => {
  const nested = () => {
    const team = defineRole({ name: 'research-team', agents: { searcher: { instructions: 'S.' }, checker: { instructions: 'C.' } }, collaboration: { topology: 'pipeline', agents: ['searcher', 'checker'] } });
    return defineRole({
      name: 'briefing',
      agents: { research: { description: 'R.', team }, writer: { instructions: 'W.' } },
      collaboration: { topology: 'pipeline', agents: ['research', 'writer'] },
    }).graph;
  };

  it('is a subgraph of its team in mermaid, which the edges reach', () => {
    expect(renderGraph(nested(), 'mermaid')).toBe(
      [
        'flowchart TD',
        '  %% troupe graph "briefing" (topology pipeline)',
        '  parent(["parent (orchestrator)"])',
        '  n1["writer"]',
        '  subgraph n0_team ["research · team research-team"]',
        '    n0_n0["searcher"]',
        '    n0_n1["checker"]',
        '    n0_n0 --> n0_n1',
        '  end',
        '  parent --> n0_team',
        '  n0_team --> n1',
        '  n1 -.-> parent',
        '',
      ].join('\n'),
    );
  });

  it('is a 3-D box naming its file and its agents in DOT', () => {
    expect(renderGraph(nested(), 'dot')).toContain('n0 [label="research · team research-team\\nsearcher → checker", shape=box3d];');
  });
});
