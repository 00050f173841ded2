import { effectiveCap, iterationsForMessages, loopShape, type LoopShape } from '../../../../src/core/graph/cap';
import { findLoopGroups } from '../../../../src/core/graph/loops';
import { PARENT, type CompiledGraph, type Edge } from '../../../../src/core/graph/types';
import { loadRole, warningMessages } from '../../fixtures/role-yaml';
import { driveRun } from '../../fixtures/drive-machine';

const CYCLE_WARNING = 'Cycle detected in graph but maxIterations is not set, defaulting to 3';
const edges = (...specs: string[]): Edge[] =>
  specs.map((s) => {
    const [from, to] = s.split('->').map((x) => x.trim());
    return { from, to, exit: to === PARENT };
  });
const shapeOf = (es: Edge[], beforeExit = false): LoopShape => loopShape(findLoopGroups(es)[0], es, beforeExit);

describe('a loop with no configured cap is capped by what bounds it (max_messages)', () => {
  it('AutoGen round-robin of three with only max_messages: 10 gets cap 4 and ends max_messages after exactly 10 messages', () => {
    const r = loadRole({ topology: 'round-robin', agents: ['a', 'b', 'c'], termination: { any_of: [{ max_messages: 10 }] } }, ['a', 'b', 'c']);
    expect(r.errors).toEqual([]);
    expect(r.warnings).toEqual([]);
    const g = r.graph!;
    // one back edge c→a, one message per agent per lap: the counter is 3 after 9 messages, and
    // reaches 4 only after 12, so max_messages (10) holds first, on a's fourth turn
    expect(g.maxIterations).toBe(4);
    const round = driveRun(g);
    expect(round).toMatchObject({ reason: 'max_messages', status: 'exhausted', messages: 10, loopCounters: { 'a,b,c': 3 } });
    expect(round.waves.flat()).toEqual(['a', 'b', 'c', 'a', 'b', 'c', 'a', 'b', 'c', 'a']);
  });

  it('the old default cap 3 would have ended that round exhausted/max_iterations after 9 messages', () => {
    const g = loadRole({ topology: 'round-robin', agents: ['a', 'b', 'c'], termination: { any_of: [{ max_messages: 10 }] } }, ['a', 'b', 'c']).graph!;
    expect(driveRun({ ...g, maxIterations: 3 } as CompiledGraph)).toMatchObject({ reason: 'max_iterations', messages: 9 });
  });

  it('a review loop of two with max_messages: 10 gets cap 5: cap and condition hold on the same wave and the condition wins', () => {
    const g = loadRole({ topology: 'review-loop', agents: ['a', 'b'], termination: { any_of: [{ max_messages: 10 }] } }).graph!;
    expect(g.maxIterations).toBe(5);
    expect(driveRun(g)).toMatchObject({ reason: 'max_messages', messages: 10, loopCounters: { 'a,b': 5 } });
  });

  it('takes the largest of what the conditions give: max_iterations N, or the iterations max_messages needs', () => {
    const rr = (termination: object) => loadRole({ topology: 'round-robin', agents: ['a', 'b', 'c'], termination }, ['a', 'b', 'c']).graph!;
    expect(rr({ any_of: [{ max_iterations: 8 }, { max_messages: 10 }] }).maxIterations).toBe(8);
    expect(rr({ any_of: [{ max_iterations: 2 }, { max_messages: 30 }] }).maxIterations).toBe(10);
    expect(rr({ any_of: [{ any_of: [{ max_messages: 7 }] }] }).maxIterations).toBe(3);
    expect(rr({ all_of: [{ max_messages: 13 }] }).maxIterations).toBe(5);
  });

  it('a configured collaboration.max_iterations is the cap, whatever the conditions need', () => {
    const g = loadRole({ topology: 'round-robin', agents: ['a', 'b', 'c'], max_iterations: 2, termination: { any_of: [{ max_messages: 10 }] } }, ['a', 'b', 'c']);
    expect(g.graph?.maxIterations).toBe(2);
    expect(g.warnings).toEqual([]);
    expect(driveRun(g.graph!)).toMatchObject({ reason: 'max_iterations', messages: 6 });
  });

  it('max_messages beside other all_of items cannot end the run alone: it gives no cap (default 3, warning 6) and warns that the cap can stop the loop first', () => {
    const r = loadRole(
      { topology: 'round-robin', agents: ['a', 'b', 'c'], termination: { all_of: [{ max_messages: 10 }, { text_mention: 'DONE' }] } },
      ['a', 'b', 'c'],
    );
    expect(r.graph?.maxIterations).toBe(3);
    expect(warningMessages(r)).toEqual([
      CYCLE_WARNING,
      'all_of uses max_messages 10, which can need 4 iterations of a loop, more than the hard cap 3: the hard cap can stop the loop first (set collaboration.max_iterations to 4 or more)',
    ]);
    const enough = loadRole(
      { topology: 'round-robin', agents: ['a', 'b', 'c'], max_iterations: 4, termination: { all_of: [{ max_messages: 10 }, { text_mention: 'DONE' }] } },
      ['a', 'b', 'c'],
    );
    expect(enough.warnings).toEqual([]);
  });

  it('a max_messages inside a nested all_of with siblings gives no cap either; one in a one-item all_of does', () => {
    const nested = loadRole({ topology: 'review-loop', agents: ['a', 'b'], termination: { any_of: [{ all_of: [{ max_messages: 4 }, { converged: 'b' }] }] } });
    expect(nested.graph?.maxIterations).toBe(3);
    expect(warningMessages(nested)).toEqual([CYCLE_WARNING]);
    expect(loadRole({ topology: 'review-loop', agents: ['a', 'b'], termination: { any_of: [{ all_of: [{ max_messages: 12 }] }] } }).graph?.maxIterations).toBe(6);
  });

  it('an acyclic graph has no cap, whatever max_messages says', () => {
    expect(loadRole({ topology: 'pipeline', agents: ['a', 'b'], termination: { any_of: [{ max_messages: 10 }] } }).graph?.maxIterations).toBe(0);
  });

  it('with approval.before_exit a rejected round may restart at the last agent, so the ring gets its slack', () => {
    const rr = (extra: object) =>
      loadRole({ topology: 'round-robin', agents: ['a', 'b', 'c'], termination: { any_of: [{ max_messages: 9 }] } }, ['a', 'b', 'c'], extra).graph!;
    expect(rr({}).maxIterations).toBe(3);
    expect(rr({ approval: { before_exit: true } }).maxIterations).toBe(4);
    // the rejected round restarts at c: c (1, counter 1), a b c (4, 2), a b c (7, 3): cap 3 would stop at 7 < 9
    const g = rr({ approval: { before_exit: true } });
    expect(driveRun({ ...g, entry: ['c'] })).toMatchObject({ reason: 'max_messages', messages: 9, loopCounters: { 'a,b,c': 3 } });
    expect(driveRun({ ...g, entry: ['c'], maxIterations: 3 })).toMatchObject({ reason: 'max_iterations', messages: 7 });
  });

  it('a loop of another shape gets one iteration per message (times its most back edges per agent), which is never too few', () => {
    const r = loadRole(
      {
        flow: ['parent -> w', 'w -> c', 'w -> f', 'c -> w', 'f -> w', { from: 'c', to: 'parent', when: { result_matches: { agent: 'c', contains: 'OK' } } }],
        termination: { any_of: [{ max_messages: 10 }] },
      },
      ['w', 'c', 'f'],
    );
    expect(r.errors).toEqual([]);
    expect(r.graph?.maxIterations).toBe(10);
    // w, then c and f together, both back to w: 3 messages for 2 iterations; a cap of ceil(10/3) = 4 would stop at 6 messages
    expect(driveRun(r.graph!)).toMatchObject({ reason: 'max_messages', messages: 10, loopCounters: { 'c,f,w': 6 } });
    expect(driveRun({ ...r.graph!, maxIterations: 4 })).toMatchObject({ reason: 'max_iterations', messages: 6 });
  });
});

describe('loopShape and iterationsForMessages', () => {
  it('a ring is numbered from the target of its back edge; entries from parent add their positions as slack', () => {
    expect(shapeOf(edges('parent -> a', 'a -> b', 'b -> c', 'c -> a', 'c -> parent'))).toEqual({ kind: 'ring', length: 3, slack: 0 });
    expect(shapeOf(edges('parent -> a', 'parent -> c', 'a -> b', 'b -> c', 'c -> a', 'c -> parent'))).toEqual({ kind: 'ring', length: 3, slack: 2 });
    expect(shapeOf(edges('parent -> a', 'a -> a', 'a -> parent'))).toEqual({ kind: 'ring', length: 1, slack: 0 });
  });

  it('before_exit adds the positions of the ring agents that can exit, or of any one agent', () => {
    expect(shapeOf(edges('parent -> a', 'a -> b', 'b -> c', 'c -> a', 'c -> parent'), true)).toEqual({ kind: 'ring', length: 3, slack: 2 });
    expect(shapeOf(edges('parent -> a', 'a -> b', 'b -> c', 'c -> a', 'b -> parent', 'c -> parent'), true)).toEqual({ kind: 'ring', length: 3, slack: 3 });
  });

  it('a ring entered midway by another agent, a fan-out, or a self-loop beside the ring is general', () => {
    expect(shapeOf(edges('parent -> x', 'x -> a', 'x -> b', 'a -> b', 'b -> a', 'b -> parent'))).toEqual({ kind: 'general', backEdgesPerAgent: 1 });
    expect(shapeOf(edges('parent -> x', 'x -> a', 'a -> b', 'b -> a', 'b -> parent'))).toEqual({ kind: 'ring', length: 2, slack: 0 });
    expect(shapeOf(edges('parent -> w', 'w -> c', 'w -> f', 'c -> w', 'f -> w', 'c -> parent'))).toEqual({ kind: 'general', backEdgesPerAgent: 1 });
    expect(shapeOf(edges('parent -> a', 'a -> b', 'b -> a', 'b -> b', 'b -> parent'))).toEqual({ kind: 'general', backEdgesPerAgent: 2 });
  });

  it('ring: floor((N - 1 + slack) / L) + 1; general: per-agent back edges × (N - 1) + 1', () => {
    expect(iterationsForMessages(10, { kind: 'ring', length: 3, slack: 0 })).toBe(4);
    expect(iterationsForMessages(9, { kind: 'ring', length: 3, slack: 0 })).toBe(3);
    expect(iterationsForMessages(9, { kind: 'ring', length: 3, slack: 2 })).toBe(4);
    expect(iterationsForMessages(1, { kind: 'ring', length: 4, slack: 0 })).toBe(1);
    expect(iterationsForMessages(10, { kind: 'general', backEdgesPerAgent: 1 })).toBe(10);
    expect(iterationsForMessages(10, { kind: 'general', backEdgesPerAgent: 2 })).toBe(19);
  });

  it('the ring formula is enough for every start position and the smallest such cap when the round starts at the back edge target', () => {
    for (let length = 1; length <= 5; length++) {
      const ring = Array.from({ length }, (_, i) => `a${i}`);
      const ringEdges = [...ring.map((a, i) => `${a} -> ${ring[(i + 1) % length]}`), `${ring[length - 1]} -> parent`];
      for (let start = 0; start < length; start++) {
        const es = edges(`parent -> ${ring[0]}`, ...ringEdges);
        const groups = findLoopGroups(es);
        for (let n = 1; n <= 16; n++) {
          const cap = iterationsForMessages(n, { kind: 'ring', length, slack: start });
          const g = { edges: es, loopGroups: groups, entry: [ring[start]], maxIterations: cap, termination: { anyOf: [{ kind: 'max_messages', n }], allOf: [] } };
          const round = driveRun(g as unknown as CompiledGraph);
          expect({ length, start, n, reason: round.reason, messages: round.messages }).toEqual({ length, start, n, reason: 'max_messages', messages: n });
          if (start === 0 && cap > 1) {
            const tighter = driveRun({ ...g, maxIterations: cap - 1 } as unknown as CompiledGraph);
            expect({ length, n, reason: tighter.reason }).toEqual({ length, n, reason: 'max_iterations' });
          }
        }
      }
    }
  });
});

describe('effectiveCap', () => {
  const group = findLoopGroups(edges('parent -> a', 'a -> b', 'b -> a', 'b -> parent'));
  const shapes: LoopShape[] = [{ kind: 'ring', length: 2, slack: 0 }];
  it('configured wins; no loops gives 0; nothing bounding gives the default, unbounded', () => {
    expect(effectiveCap({ configured: 7, termination: { anyOf: [], allOf: [] }, loopGroups: group, shapes })).toEqual({ cap: 7, bounded: true });
    expect(effectiveCap({ termination: { anyOf: [{ kind: 'max_messages', n: 9 }], allOf: [] }, loopGroups: [], shapes: [] })).toEqual({ cap: 0, bounded: true });
    expect(effectiveCap({ termination: { anyOf: [{ kind: 'timeout_ms', ms: 5 }], allOf: [] }, loopGroups: group, shapes })).toEqual({ cap: 3, bounded: false });
    expect(effectiveCap({ termination: { anyOf: [{ kind: 'max_messages', n: 9 }], allOf: [] }, loopGroups: group, shapes })).toEqual({ cap: 5, bounded: true });
  });
});
