import {
  clearRegisteredTopologies,
  expandTopology,
  registerTopology,
  topologyNames,
} from '../../../../src/core/graph/topologies';
import { findLoopGroups } from '../../../../src/core/graph/loops';
import { errorMessages, loadRole } from '../../fixtures/role-yaml';

const norm = (edges: ReturnType<typeof expandTopology>) =>
  (edges ?? []).map((e) => ({ ...e, exit: e.exit ?? e.to === 'parent' }));

afterEach(() => clearRegisteredTopologies());

describe('built-in topologies have rolebox\'s exact edge shapes (cases 1–5)', () => {
  it('pipeline [a,b,c] chains from parent and exits from the last agent; [a] is parent→a→parent', () => {
    expect(norm(expandTopology('pipeline', ['a', 'b', 'c']))).toEqual([
      { from: 'parent', to: 'a', exit: false },
      { from: 'a', to: 'b', exit: false },
      { from: 'b', to: 'c', exit: false },
      { from: 'c', to: 'parent', exit: true },
    ]);
    expect(norm(expandTopology('pipeline', ['a']))).toEqual([
      { from: 'parent', to: 'a', exit: false },
      { from: 'a', to: 'parent', exit: true },
    ]);
  });

  it('review-loop [coder,reviewer] adds the loop edge and a labelled exit; [a] gives a self-loop', () => {
    expect(norm(expandTopology('review-loop', ['coder', 'reviewer']))).toEqual([
      { from: 'parent', to: 'coder', exit: false },
      { from: 'coder', to: 'reviewer', exit: false },
      { from: 'reviewer', to: 'coder', label: 'loop', exit: false },
      { from: 'reviewer', to: 'parent', label: 'exit', exit: true },
    ]);
    expect(norm(expandTopology('review-loop', ['a']))).toEqual([
      { from: 'parent', to: 'a', exit: false },
      { from: 'a', to: 'a', label: 'loop', exit: false },
      { from: 'a', to: 'parent', label: 'exit', exit: true },
    ]);
  });

  it('star [a,b,c] gives parent→x then x→parent per agent', () => {
    expect(norm(expandTopology('star', ['a', 'b', 'c']))).toEqual([
      { from: 'parent', to: 'a', exit: false },
      { from: 'a', to: 'parent', exit: true },
      { from: 'parent', to: 'b', exit: false },
      { from: 'b', to: 'parent', exit: true },
      { from: 'parent', to: 'c', exit: false },
      { from: 'c', to: 'parent', exit: true },
    ]);
  });

  it('round-robin has the same edges as review-loop', () => {
    expect(expandTopology('round-robin', ['a', 'b', 'c'])).toEqual(expandTopology('review-loop', ['a', 'b', 'c']));
  });

  it('every template gives [] for no agents, and an unknown name expands to nothing', () => {
    for (const t of ['pipeline', 'review-loop', 'star', 'round-robin']) expect(expandTopology(t, [])).toEqual([]);
    expect(expandTopology('unknown', ['a'])).toBeUndefined();
  });

  it('pipeline and star have no loop groups; review-loop [a,b] has group a,b with back edge b→a', () => {
    for (const t of ['pipeline', 'star']) {
      const edges = norm(expandTopology(t, ['a', 'b', 'c']));
      expect(findLoopGroups(edges)).toEqual([]);
      expect(findLoopGroups(edges)).toEqual([]);
    }
    const edges = norm(expandTopology('review-loop', ['a', 'b']));
    expect(findLoopGroups(edges)).toEqual([{ id: 'a,b', nodes: ['a', 'b'], backEdges: [2] }]);
    expect(edges[2]).toMatchObject({ from: 'b', to: 'a', label: 'loop' });
  });
});

describe('registerTopology', () => {
  it('adds a topology usable from YAML', () => {
    registerTopology('fan-in', (agents) => [
      ...agents.slice(0, -1).flatMap((a) => [{ from: 'parent', to: a }, { from: a, to: agents[agents.length - 1] }]),
      { from: agents[agents.length - 1], to: 'parent' },
    ]);
    expect(topologyNames()).toEqual(['pipeline', 'review-loop', 'star', 'round-robin', 'swarm', 'selector', 'fan-in']);
    const r = loadRole({ topology: 'fan-in', agents: ['a', 'b', 'c'] }, ['a', 'b', 'c']);
    expect(r.errors).toEqual([]);
    expect(r.graph?.entry).toEqual(['a', 'b']);
    expect(r.graph?.edges.at(-1)).toEqual({ from: 'c', to: 'parent', exit: true });
    expect(r.graph?.topology).toBe('fan-in');
  });

  it('may not shadow a built-in (rolebox let custom ones win)', () => {
    expect(() => registerTopology('pipeline', () => [])).toThrow('registerTopology: "pipeline" is a built-in topology and cannot be replaced');
    expect(() => registerTopology('swarm', () => [])).toThrow('registerTopology: "swarm" is a built-in topology and cannot be replaced');
    expect(() => registerTopology('Bad Name', () => [])).toThrow('registerTopology: invalid name "Bad Name"');
  });

  it('reports a topology that throws or sets exit on an agent edge as a config error', () => {
    registerTopology('broken', () => {
      throw new Error('needs two agents');
    });
    registerTopology('exit-to-agent', (a) => [{ from: 'parent', to: a[0] }, { from: a[0], to: a[1], exit: true }, { from: a[1], to: 'parent' }]);
    expect(errorMessages(loadRole({ topology: 'broken', agents: ['a'] }))).toEqual(['topology "broken" failed to expand: needs two agents']);
    registerTopology('not-a-list', () => ({}) as never);
    registerTopology('half-edge', (a) => [{ from: 'parent', to: a[0] }, { from: a[0] } as never]);
    for (const t of ['not-a-list', 'half-edge']) {
      expect(errorMessages(loadRole({ topology: t, agents: ['a'] }))).toEqual([`topology "${t}" failed to expand: it must return a list of {from, to} edges`]);
    }
    expect(errorMessages(loadRole({ topology: 'exit-to-agent', agents: ['a', 'b'] }))).toEqual([
      'topology "exit-to-agent" produced exit: true on an edge to agent "b"',
    ]);
  });

  it('an unknown topology is an error listing the known ones, with a hint, and its agents are not called orphans', () => {
    expect(loadRole({ topology: 'mesh', agents: ['a', 'b'] }).warnings).toEqual([]);
    expect(errorMessages(loadRole({ topology: 'mesh', agents: ['a'] }))).toEqual([
      'unknown topology "mesh"; expected one of pipeline, review-loop, star, round-robin, swarm, selector',
    ]);
    expect(errorMessages(loadRole({ topology: 'pipline', agents: ['a'] }))).toEqual([
      'unknown topology "pipline" (did you mean "pipeline"?); expected one of pipeline, review-loop, star, round-robin, swarm, selector',
    ]);
  });
});
