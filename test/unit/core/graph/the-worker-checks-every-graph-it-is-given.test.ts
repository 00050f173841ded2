/**
 * A client of its own can start the workflow with any JSON: the worker checks the graph before the
 * run's first call (core/graph/check-graph.ts in the workflow, activities/prepare.ts for what needs
 * Node). Every graph troupe compiles from a valid role passes; a hand-built one with an unbounded glob,
 * a dangling edge, an unknown condition or a catastrophic regex is refused with each problem named.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { graphRefusals } from '../../../../src/activities/prepare';
import { loadRoleFile } from '../../../../src/config-file';
import { checkGraph, emptyGraph, GRAPH_CHECK_TEXTS, joinProblems } from '../../../../src/core/graph/check-graph';
import type { CompiledGraph } from '../../../../src/core/graph/types';
import { TOOL_GLOB_TEXTS } from '../../../../src/core/llm/tool-glob';

const examples = path.join(__dirname, '..', '..', '..', '..', 'examples');
const roles = fs.readdirSync(examples).filter((f) => f.endsWith('.yaml') && f !== 'tools.yaml');

function example(name = 'review-loop.yaml'): CompiledGraph {
  const r = loadRoleFile(path.join(examples, name));
  if (!r.graph) throw new Error(`${name} does not compile`);
  return JSON.parse(JSON.stringify(r.graph)) as CompiledGraph;
}

describe('the worker’s check of a graph', () => {
  it.each(roles)('passes the compiled %s', (file) => {
    const graph = example(file);
    expect(checkGraph(graph)).toEqual([]);
    expect(graphRefusals(graph)).toEqual([]);
  });

  it('passes the graph a refused run ends with', () => {
    expect(checkGraph(emptyGraph('troupeRun'))).toEqual([]);
  });

  it('refuses unbounded globs, dangling names and unknown conditions, each named at its path', () => {
    const g = example() as unknown as Record<string, any>;
    g.approval.tools = [`${'*'.repeat(30)}X`];
    g.agents.writer.tools = ['files.*****'];
    expect(checkGraph(g)).toEqual([
      GRAPH_CHECK_TEXTS.issue('agents.writer.tools[0]', TOOL_GLOB_TEXTS.tooManyStars(5)),
      GRAPH_CHECK_TEXTS.issue('approval.tools[0]', TOOL_GLOB_TEXTS.tooManyStars(30)),
    ]);
    const h = example() as unknown as Record<string, any>;
    h.edges[0].to = 'nobody';
    h.termination.anyOf.push({ kind: 'any_of', items: [{ kind: 'no_such_condition' }] });
    h.loopGroups[0].backEdges.push(99);
    expect(checkGraph(h)).toEqual([
      GRAPH_CHECK_TEXTS.issue('edges[0].to', GRAPH_CHECK_TEXTS.unknownNode('nobody')),
      GRAPH_CHECK_TEXTS.issue('loopGroups[0].backEdges[1]', GRAPH_CHECK_TEXTS.edgeIndex(99, h.edges.length)),
      GRAPH_CHECK_TEXTS.issue(`termination.anyOf[${h.termination.anyOf.length - 1}].items[0]`, GRAPH_CHECK_TEXTS.unknownCondition('no_such_condition')),
    ]);
  });

  it('refuses what is no graph at all, and conditions nested without end', () => {
    expect(checkGraph('x')).toEqual([GRAPH_CHECK_TEXTS.issue('', 'expected object, got string')]);
    const g = example() as unknown as Record<string, any>;
    let deep: unknown = { kind: 'max_messages', n: 1 };
    for (let i = 0; i < 5000; i += 1) deep = { kind: 'any_of', items: [deep] };
    g.termination.anyOf = [deep];
    const found = checkGraph(g);
    expect(found).toHaveLength(1);
    expect(found[0]).toMatch(/^graph termination\.anyOf\[0\](\.items\[0\]){64}: /);
    expect(found[0].endsWith(GRAPH_CHECK_TEXTS.tooDeep(64))).toBe(true);
  });

  it('refuses, on the worker, a regex that backtracks catastrophically (Node) and an output schema ajv cannot compile (the workflow)', () => {
    const g = example();
    g.termination.anyOf.push({ kind: 'result_matches', agent: 'critic', regex: '^(a+)+$' });
    g.output = { schema: { type: 'nonsense' }, maxRetries: 1 };
    const refusals = graphRefusals(g);
    expect(refusals).toHaveLength(1);
    expect(refusals[0]).toMatch(/^graph termination\.anyOf\[\d+\]\.result_matches\.regex: regex "\^\(a\+\)\+\$" can backtrack catastrophically/);
    const problems = checkGraph(g);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^graph output\.schema: /);
  });

  it('lists at most 20 problems in one refusal', () => {
    const many = Array.from({ length: 25 }, (_, i) => `p${i}`);
    expect(joinProblems(many)).toBe(`${many.slice(0, 20).join('; ')}; ${GRAPH_CHECK_TEXTS.more(5)}`);
  });
});
