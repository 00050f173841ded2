/** Hand-built compiled graphs (the edge shapes of docs/semantics.md, "The graph") for the prompt and context tests. */
import { PARENT, type CompiledGraph, type Edge } from '../../../../src/core/graph/types';
import type { AgentPromptInput } from '../../../../src/core/prompts/build';

type EdgeSpec = { from: string; to: string; label?: string; guarded?: boolean };

/** Edges of a built-in topology over `names`, exactly as §4.1 lays them out. */
export function topologyEdges(topology: 'pipeline' | 'review-loop' | 'star' | 'round-robin', names: string[]): EdgeSpec[] {
  const last = names[names.length - 1];
  const chain = names.slice(1).map((n, i) => ({ from: names[i], to: n }));
  switch (topology) {
    case 'pipeline':
      return [{ from: PARENT, to: names[0] }, ...chain, { from: last, to: PARENT }];
    case 'review-loop':
    case 'round-robin':
      return [
        { from: PARENT, to: names[0] },
        ...chain,
        { from: last, to: names[0], label: 'loop' },
        { from: last, to: PARENT, label: 'exit' },
      ];
    case 'star':
      return names.flatMap((n) => [
        { from: PARENT, to: n },
        { from: n, to: PARENT },
      ]);
  }
}

/** A minimal compiled graph: agents with instructions, the given edges, nodes and entry derived. */
export function graphOf(opts: {
  name: string;
  topology?: string;
  instructions: Record<string, string>;
  edges: EdgeSpec[];
  context?: 'inbox' | 'thread';
  maxIterations?: number;
}): CompiledGraph {
  const edges: Edge[] = opts.edges.map((e) => ({
    from: e.from,
    to: e.to,
    exit: e.to === PARENT,
    ...(e.label ? { label: e.label } : {}),
    ...(e.guarded ? { when: { kind: 'result_matches' as const, agent: e.from, contains: 'REVISE' } } : {}),
  }));
  const nodes: string[] = [];
  for (const e of edges) {
    for (const n of [e.from, e.to]) if (n !== PARENT && !nodes.includes(n)) nodes.push(n);
  }
  const agents = Object.fromEntries(
    Object.entries(opts.instructions).map(([name, instructions]) => [
      name,
      { name, instructions, model: { name: 'gpt-4o-mini' }, tools: [], maxToolRounds: 8, timeoutMs: 30000 },
    ]),
  );
  return {
    name: opts.name,
    ...(opts.topology ? { topology: opts.topology } : {}),
    agents,
    nodes,
    edges,
    entry: edges.filter((e) => e.from === PARENT).map((e) => e.to),
    loopGroups: [],
    maxIterations: opts.maxIterations ?? 0,
    context: opts.context ?? 'inbox',
    termination: { anyOf: [], allOf: [] },
    judge: { model: { name: 'gpt-4o-mini' } },
    pricing: {},
    approval: { beforeExit: false },
    budget: {},
  };
}

/** A prompt input with empty history, overridable field by field. */
export function promptInput(graph: CompiledGraph, agent: string, over: Partial<AgentPromptInput> = {}): AgentPromptInput {
  return {
    graph,
    agent,
    task: 'Write an essay about tides.',
    round: 1,
    wave: 1,
    iteration: 1,
    maxIterations: graph.maxIterations,
    ownRecent: [],
    triggers: [],
    thread: [],
    notes: [],
    ...over,
  };
}
