import { parseEdgeString, parseFlowEdge } from '../../../../src/core/graph/edges';
import { mergeEdges } from '../../../../src/core/graph/merge';
import { errorMessages, loadRole, warningMessages } from '../../fixtures/role-yaml';

const edgesOf = (r: ReturnType<typeof loadRole>) => r.graph?.edges;

describe('string edges (rolebox regex, §4.2)', () => {
  it('parses "a -> b", "a->b" and "a -> b: label" with the label trimmed', () => {
    expect(parseEdgeString('a -> b')).toEqual({ from: 'a', to: 'b' });
    expect(parseEdgeString('parent->a')).toEqual({ from: 'parent', to: 'a' });
    expect(parseEdgeString('  parent  ->  a  :  start here  ')).toEqual({ from: 'parent', to: 'a', label: 'start here' });
  });

  it('takes the label after the first ":" following the target; a blank label is no label', () => {
    expect(parseEdgeString('a -> b: review: needs changes!')).toEqual({ from: 'a', to: 'b', label: 'review: needs changes!' });
    expect(parseEdgeString('a -> b:')).toEqual({ from: 'a', to: 'b' });
  });

  it('keeps Unicode names and labels as written', () => {
    expect(parseEdgeString('研究者 -> 撰写者: 传递结果')).toEqual({ from: '研究者', to: '撰写者', label: '传递结果' });
  });

  it('does not match names with whitespace, ">" or ":"', () => {
    expect(parseEdgeString('not a valid edge')).toBeUndefined();
    expect(parseEdgeString('a -> b c')).toBeUndefined();
    expect(parseEdgeString('a -> -> b')).toBeUndefined();
  });

  it('marks an edge to parent as an exit, and only that', () => {
    expect(parseFlowEdge('a -> parent', 0).edge).toMatchObject({ exit: true });
    expect(parseFlowEdge('parent -> a', 0).edge).toMatchObject({ exit: false });
  });

  it('a malformed string edge is an error at the flow item (rolebox skipped it, case 12)', () => {
    expect(parseFlowEdge('not a valid edge', 1)).toEqual({
      issues: [{ path: ['collaboration', 'flow', 1], message: 'malformed edge "not a valid edge": expected "from -> to" or "from -> to: label"' }],
    });
    expect(errorMessages(loadRole({ flow: ['parent -> a', 'not a valid edge', 'a -> parent'] }, ['a']))).toEqual([
      'malformed edge "not a valid edge": expected "from -> to" or "from -> to: label"',
    ]);
  });

  it('numbers and nulls in flow are errors, not skipped (case 12)', () => {
    expect(errorMessages(loadRole({ flow: ['parent -> a', 5, null, 'a -> parent'] }, ['a']))).toEqual([
      'expected string or object, got number',
      'expected string or object, got null',
    ]);
  });
});

describe('object edges', () => {
  it('trims from/to (rolebox kept them untrimmed), keeps the label, and derives exit from the target', () => {
    expect(parseFlowEdge({ from: 'a', to: 'parent', label: ' final ' }, 0).edge).toEqual({
      from: 'a',
      to: 'parent',
      label: 'final',
      exit: true,
      source: { kind: 'flow', index: 0, form: 'object' },
    });
    const r = loadRole({ flow: ['parent -> a', { from: ' a ', to: ' parent ' }] }, ['a']);
    expect(edgesOf(r)?.[1]).toEqual({ from: 'a', to: 'parent', exit: true });
  });

  it('exit: true on an edge to an agent is an error (rolebox case 11 accepted it)', () => {
    expect(parseFlowEdge({ from: 'a', to: 'b', exit: true }, 3).issues).toEqual([
      { path: ['collaboration', 'flow', 3, 'exit'], message: 'exit: true is only allowed on an edge to parent ("b" is an agent)' },
    ]);
  });

  it('exit: false on an edge to parent is an error; exit: "yes" is a type error (case 19)', () => {
    expect(parseFlowEdge({ from: 'a', to: 'parent', exit: false }, 0).issues[0].message).toBe(
      'exit: false is not allowed on an edge to parent: edges to parent always exit',
    );
    expect(errorMessages(loadRole({ flow: ['parent -> a', { from: 'a', to: 'parent', exit: 'yes' }] }, ['a']))).toEqual([
      'expected boolean, got string',
    ]);
  });

  it('an object without "to", or with a blank "from", is an error (case 19)', () => {
    expect(errorMessages(loadRole({ flow: ['parent -> a', { from: 'a' }, 'a -> parent'] }, ['a']))).toEqual(['required']);
    expect(errorMessages(loadRole({ flow: ['parent -> a', { from: '', to: 'parent' }] }, ['a']))).toEqual(['must be a non-empty string']);
  });

  it('parses a when guard with the condition parser, locating its issues under when', () => {
    const r = parseFlowEdge({ from: 'b', to: 'a', when: { result_matches: { agent: 'b', contains: 'FAIL' } } }, 2);
    expect(r.edge?.when).toEqual({ kind: 'result_matches', agent: 'b', contains: 'FAIL' });
    expect(parseFlowEdge({ from: 'b', to: 'a', when: { stuk: 2 } }, 2).issues).toEqual([
      { path: ['collaboration', 'flow', 2, 'when', 'stuk'], message: 'unknown condition "stuk" (did you mean "stuck"?)', at: 'key' },
    ]);
  });

  it('rejects when on an entry edge and parent → parent', () => {
    expect(parseFlowEdge({ from: 'parent', to: 'a', when: { max_iterations: 2 } }, 0).issues[0]).toEqual({
      path: ['collaboration', 'flow', 0, 'when'],
      message: 'when is not allowed on an edge from parent: entry edges always run',
      at: 'key',
    });
    expect(parseFlowEdge('parent -> parent', 0).issues[0].message).toBe('an edge cannot go from parent to parent');
  });
});

describe('custom flows (cases 10, 13, 17)', () => {
  it('keeps labels and exit flags of a custom flow and has no topology', () => {
    const r = loadRole({ flow: ['parent -> coder', 'coder -> reviewer: handoff label', 'reviewer -> parent: final'] }, ['coder', 'reviewer']);
    expect(r.errors).toEqual([]);
    expect(edgesOf(r)).toEqual([
      { from: 'parent', to: 'coder', exit: false },
      { from: 'coder', to: 'reviewer', label: 'handoff label', exit: false },
      { from: 'reviewer', to: 'parent', label: 'final', exit: true },
    ]);
    expect(r.graph?.topology).toBeUndefined();
  });

  it('a flow with only a labelled entry has no exit edge (case 17)', () => {
    expect(errorMessages(loadRole({ flow: ['  parent  ->  a  :  start here  '] }, ['a']))).toEqual([
      'No exit edge found: graph has no termination path',
    ]);
  });
});

describe('hybrid merge (§4.2, rolebox §1.4)', () => {
  it('replaces a same from->to edge in its position and appends new ones (verified rolebox example)', () => {
    const r = loadRole(
      { topology: 'pipeline', agents: ['a', 'b'], flow: [{ from: 'a', to: 'b', label: 'x' }, 'b -> c', 'c -> parent'] },
      ['a', 'b', 'c'],
    );
    expect(r.errors).toEqual([]);
    expect(edgesOf(r)).toEqual([
      { from: 'parent', to: 'a', exit: false },
      { from: 'a', to: 'b', label: 'x', exit: false },
      { from: 'b', to: 'parent', exit: true },
      { from: 'b', to: 'c', exit: false },
      { from: 'c', to: 'parent', exit: true },
    ]);
  });

  it('overrides a label (case 14) and replaces the whole edge, not its fields', () => {
    const r = loadRole({ topology: 'review-loop', agents: ['a', 'b'], flow: [{ from: 'b', to: 'a' }] });
    expect(edgesOf(r)?.[2]).toEqual({ from: 'b', to: 'a', exit: false });
    const r2 = loadRole({ topology: 'pipeline', agents: ['a', 'b'], flow: [{ from: 'a', to: 'b', label: 'custom label' }] });
    expect(edgesOf(r2)?.[1]).toEqual({ from: 'a', to: 'b', label: 'custom label', exit: false });
  });

  it('pipeline [a,b,c] + "b -> d", "d -> parent: done" has nodes a,b,c,d and 2 exits (case 15)', () => {
    const r = loadRole({ topology: 'pipeline', agents: ['a', 'b', 'c'], flow: ['b -> d', 'd -> parent: done'] }, ['a', 'b', 'c', 'd']);
    expect(r.graph?.nodes).toEqual(['a', 'b', 'c', 'd']);
    expect(r.graph?.edges.filter((e) => e.exit)).toHaveLength(2);
  });

  it('a duplicate edge inside flow warns and the later one wins in place', () => {
    const r = loadRole({ flow: ['parent -> a', 'a -> parent: one', 'a -> parent: two'] }, ['a']);
    expect(warningMessages(r)).toEqual(['duplicate edge "a -> parent": the later one replaces the earlier']);
    expect(edgesOf(r)).toEqual([
      { from: 'parent', to: 'a', exit: false },
      { from: 'a', to: 'parent', label: 'two', exit: true },
    ]);
  });

  it('mergeEdges reports which edges were replaced', () => {
    const m = mergeEdges([{ from: 'a', to: 'b', n: 1 }], [{ from: 'a', to: 'b', n: 2 }, { from: 'b', to: 'c', n: 3 }]);
    expect(m.edges).toEqual([{ from: 'a', to: 'b', n: 2 }, { from: 'b', to: 'c', n: 3 }]);
    expect(m.replaced).toEqual([{ earlier: { from: 'a', to: 'b', n: 1 }, later: { from: 'a', to: 'b', n: 2 } }]);
  });
});
