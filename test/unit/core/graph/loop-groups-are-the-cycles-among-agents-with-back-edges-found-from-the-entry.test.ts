import { dfsRoots, findLoopGroups, nodesInOrder } from '../../../../src/core/graph/loops';

const e = (spec: string) =>
  spec.split(',').map((s) => {
    const [from, to] = s.trim().split('>');
    return { from, to };
  });

describe('loop groups: Tarjan SCCs of the agent-only subgraph (cases 28–30)', () => {
  it('finds a 2-cycle, a self-loop, and two separate 2-cycles', () => {
    expect(findLoopGroups(e('a>b, b>a'))).toEqual([{ id: 'a,b', nodes: ['a', 'b'], backEdges: [1] }]);
    expect(findLoopGroups(e('a>a'))).toEqual([{ id: 'a', nodes: ['a'], backEdges: [0] }]);
    expect(findLoopGroups(e('a>b, b>a, c>d, d>c')).map((g) => g.id)).toEqual(['a,b', 'c,d']);
  });

  it('gives one group a,b,c with back edges c→b and b→a, and z→x for a triangle', () => {
    expect(findLoopGroups(e('a>b, b>c, c>b, b>a'))).toEqual([{ id: 'a,b,c', nodes: ['a', 'b', 'c'], backEdges: [2, 3] }]);
    expect(findLoopGroups(e('x>y, y>z, z>x'))).toEqual([{ id: 'x,y,z', nodes: ['x', 'y', 'z'], backEdges: [2] }]);
  });

  it('ignores edges that touch parent', () => {
    expect(findLoopGroups(e('parent>a, a>parent, parent>b, b>parent'))).toEqual([]);
    expect(findLoopGroups(e('parent>a, a>b, b>a, b>parent'))).toEqual([{ id: 'a,b', nodes: ['a', 'b'], backEdges: [2] }]);
  });

  it('counts an exit-flagged agent edge as a back edge, and a duplicate forward edge adds none', () => {
    const edges = [{ from: 'a', to: 'b' }, { from: 'b', to: 'a', exit: true, label: 'back' }];
    expect(findLoopGroups(edges)[0].backEdges).toEqual([1]);
    expect(findLoopGroups(e('a>b, a>b, b>a'))[0].backEdges).toEqual([2]);
  });

  it('handles a 1000-node chain without groups or stack overflow', () => {
    const chain = Array.from({ length: 999 }, (_, i) => ({ from: `n${i}`, to: `n${i + 1}` }));
    expect(findLoopGroups(chain)).toEqual([]);
    const ring = [...chain, { from: 'n999', to: 'n0' }];
    expect(findLoopGroups(ring)).toHaveLength(1);
    expect(findLoopGroups(ring)[0].backEdges).toEqual([999]);
  });

  it('sorts node ids in the group id', () => {
    expect(findLoopGroups(e('writer>critic, critic>writer'))[0].id).toBe('critic,writer');
  });
});

describe('DFS roots per §11.9 decide the back edges', () => {
  it('roots are parent-edge targets in edge order, then other nodes in first-appearance order', () => {
    expect(dfsRoots(e('a>b, parent>c, parent>b, b>parent, d>a'))).toEqual(['c', 'b', 'a', 'd']);
    expect(nodesInOrder(e('a>b, parent>c, b>parent'))).toEqual(['a', 'b', 'c']);
  });

  it('starting from the entry makes the edge back into the entry the back edge', () => {
    // first-appearance order (rolebox) would start at b and mark b→a forward, a→b back
    const edges = e('b>a, a>b, parent>a, b>parent');
    expect(findLoopGroups(edges)).toEqual([{ id: 'a,b', nodes: ['a', 'b'], backEdges: [0] }]);
  });

  it('a cycle through agents is a loop group, one through parent is not', () => {
    expect(findLoopGroups(e('parent>a, a>b, b>parent'))).toEqual([]);
    expect(findLoopGroups(e('parent>a, a>a, a>parent'))).toHaveLength(1);
  });
});
