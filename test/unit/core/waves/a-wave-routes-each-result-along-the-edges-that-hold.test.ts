import { compileYaml } from '../../../helpers/compile';
import { countBackEdges, hardCapReached, iterationOf, routeWave } from '../../../../src/core/waves/routing';
import type { Condition } from '../../../../src/core/conditions/types';

const never = () => false;
const always = () => true;

describe('routeWave (docs/semantics.md, "Routing")', () => {
  test('pipeline: a middle agent follows its edge; the last takes the unguarded exit', () => {
    const g = compileYaml(`
name: p
agents: { a: { instructions: a }, b: { instructions: b } }
collaboration: { topology: pipeline, agents: [a, b] }
`);
    expect(routeWave(g, [{ agent: 'a', text: 'A' }], never)).toEqual({
      next: [{ agent: 'b', triggers: [{ from: 'a', text: 'A' }] }],
      exits: [],
      backEdges: [],
      deadEnds: [],
    });
    expect(routeWave(g, [{ agent: 'b', text: 'B' }], never)).toMatchObject({ next: [], exits: ['b'] });
  });

  test('review-loop: the non-exit loop edge wins over the unguarded exit and is a back edge', () => {
    const g = compileYaml(`
name: r
agents: { w: { instructions: w }, c: { instructions: c } }
collaboration: { topology: review-loop, agents: [w, c], max_iterations: 2 }
`);
    const out = routeWave(g, [{ agent: 'c', text: 'C' }], never);
    expect(out.exits).toEqual([]);
    expect(out.next.map((n) => n.agent)).toEqual(['w']);
    expect(out.backEdges).toHaveLength(1);
    const counters = countBackEdges(g, {}, out.backEdges);
    expect(counters).toEqual({ 'c,w': 1 });
    expect(hardCapReached(g, counters)).toBeNull();
    expect(hardCapReached(g, countBackEdges(g, counters, out.backEdges))).toEqual({ group: 'c,w', count: 2 });
    expect(iterationOf(g, 'w', counters)).toBe(2);
  });

  test('a guarded exit that holds wins; a guarded non-exit edge that does not hold is skipped', () => {
    const g = compileYaml(`
name: guarded
agents: { a: { instructions: a }, b: { instructions: b } }
collaboration:
  flow:
    - parent -> a
    - { from: a, to: b, when: { result_matches: { agent: a, contains: MORE } } }
    - { from: a, to: parent, when: { result_matches: { agent: a, contains: DONE } } }
    - b -> parent
`);
    const holds = (text: string) => (c: Condition) => c.kind === 'result_matches' && c.contains !== undefined && text.includes(c.contains);
    expect(routeWave(g, [{ agent: 'a', text: 'DONE and MORE' }], holds('DONE and MORE'))).toMatchObject({ exits: ['a'], next: [] });
    expect(routeWave(g, [{ agent: 'a', text: 'MORE' }], holds('MORE'))).toMatchObject({ exits: [], next: [{ agent: 'b' }] });
    expect(routeWave(g, [{ agent: 'a', text: 'x' }], holds('x'))).toMatchObject({ exits: [], next: [], deadEnds: ['a'] });
  });

  test('with no guarded edge holding, the unguarded exit is taken', () => {
    const g = compileYaml(`
name: fallback
agents: { a: { instructions: a }, b: { instructions: b } }
collaboration:
  flow:
    - parent -> a
    - { from: a, to: b, when: { text_mention: MORE } }
    - a -> parent
    - b -> parent
`);
    expect(routeWave(g, [{ agent: 'a', text: 'x' }], never)).toMatchObject({ exits: ['a'], next: [] });
    expect(routeWave(g, [{ agent: 'a', text: 'MORE' }], always)).toMatchObject({ exits: [], next: [{ agent: 'b' }] });
  });

  test('an agent with no edge that holds ends its branch (dead end)', () => {
    const g = compileYaml(`
name: dead
agents: { a: { instructions: a }, b: { instructions: b } }
collaboration:
  flow:
    - parent -> a
    - { from: a, to: b, when: { text_mention: GO } }
    - b -> parent
`);
    expect(routeWave(g, [{ agent: 'a', text: 'stop' }], never)).toEqual({ next: [], exits: [], backEdges: [], deadEnds: ['a'] });
    expect(routeWave(g, [{ agent: 'a', text: 'GO' }], always).next.map((n) => n.agent)).toEqual(['b']);
  });

  test('a join: one dispatch with every sender output, first-seen order; fan-out follows every edge', () => {
    const g = compileYaml(`
name: join
agents: { s: { instructions: s }, p: { instructions: p }, x: { instructions: x }, y: { instructions: y } }
collaboration:
  flow: [parent -> s, parent -> p, s -> x, s -> y, p -> x, x -> parent, y -> parent]
`);
    const out = routeWave(g, [{ agent: 's', text: 'S' }, { agent: 'p', text: 'P' }], never);
    expect(out.next).toEqual([
      { agent: 'x', triggers: [{ from: 's', text: 'S' }, { from: 'p', text: 'P' }] },
      { agent: 'y', triggers: [{ from: 's', text: 'S' }] },
    ]);
  });
});
