/**
 * The worker's own check of a compiled graph. `troupe validate` and `troupe run` check a role before
 * it is compiled, but a client of its own can start the workflow with any JSON: the worker checks the
 * graph it is given before the run's first call (docs/security.md). This is the structure of
 * {@link CompiledGraph} as a zod schema with the role file's bounds (names, tool globs, counts), the
 * references between its parts (edges, entry, loop groups), the kinds of its conditions and its output
 * schema (ajv compiles it, as the output check does); the worker's start-of-run step adds the
 * regex-safety check, which needs Node. Pure.
 */
import { z } from 'zod';
import { AGENT_NAME_RE, TOOL_NAME_RE, TOOL_PATTERN_RE } from '../config/schema';
import { formatPath, type Path } from '../config/issues';
import { clip, MAX_AGENTS, MAX_CONFIG_DEPTH, MAX_PARALLEL_TOOL_CALLS } from '../config/limits';
import { parseWithIssues } from '../config/zod-issues';
import { getConditionPlugin } from '../conditions/registry';
import { REPLY_CAPS } from '../llm/reply-caps';
import { toolGlobIssue } from '../llm/tool-glob';
import { outputSchemaError } from '../output/validator';
import { MAX_TEAM_DEPTH } from './team-agents';
import { PARENT, USER, type CompiledGraph } from './types';

/** Texts of the check, so tests pin them. */
export const GRAPH_CHECK_TEXTS = {
  issue: (path: string, message: string) => (path ? `graph ${path}: ${message}` : `graph: ${message}`),
  unknownNode: (name: string) => `names "${clip(name)}", which is not an agent of the graph`,
  agentKey: (key: string, name: string) => `agent "${clip(key)}" calls itself "${clip(name)}"`,
  edgeIndex: (index: number, edges: number) => `edge ${index} does not exist (the graph has ${edges})`,
  unknownCondition: (key: string) => `condition "${clip(key)}" is not registered on this worker (a --plugins module registers custom conditions)`,
  tooDeep: (max: number) => `conditions are nested more than ${max} levels deep`,
  more: (n: number) => `and ${n} more`,
  badCondition: 'is not a condition (an object with a string "kind")',
  teamTooDeep: (max: number) => `teams are nested more than ${max} levels deep`,
} as const;

/**
 * The schema of a compiled graph. Built on first use and kept out of the module's exports: the worker
 * shares troupe's modules between runs and freezes what they export (`bundleOptions` in
 * src/worker.ts), while zod completes a schema on first use (as `core/humans/signals.ts` explains).
 */
function buildGraphSchema() {
  const positiveInt = z.number().int().positive();
  const text = z.string().max(1024 * 1024);
  const agentName = z.string().min(1).max(1000).regex(copy(AGENT_NAME_RE));
  const nodeName = z.string().min(1).max(1000);
  const ModelSchema = z.strictObject({
    name: z.string().min(1).max(1000),
    temperature: z.number().min(0).max(2).optional(),
    maxTokens: positiveInt.optional(),
    contextWindow: positiveInt.optional(),
    baseUrl: z.string().min(1).max(4096).optional(),
    apiKeyEnv: z.string().min(1).max(256).optional(),
    maxReplyBytes: z.number().int().min(REPLY_CAPS.minBytes).max(REPLY_CAPS.maxReplyBytes).optional(),
    maxEventBytes: z.number().int().min(REPLY_CAPS.minBytes).max(REPLY_CAPS.maxEventBytes).optional(),
    textToolCalls: z.literal('off').optional(),
  });
  // a condition's shape is its plugin's business; its kind is checked by `conditionIssues`
  const ConditionSchema = z.looseObject({ kind: z.string() });
  return z.strictObject({
    name: z.string().min(1).max(1000),
    task: text.optional(),
    topology: z.string().max(1000).optional(),
    agents: z
      .record(
        agentName,
        z.strictObject({
          name: agentName,
          instructions: text,
          description: text.optional(),
          model: ModelSchema,
          tools: z.array(toolGlob(copy(TOOL_NAME_RE))).max(1000),
          maxToolRounds: positiveInt,
          maxParallelToolCalls: positiveInt.max(MAX_PARALLEL_TOOL_CALLS).optional(),
          timeoutMs: positiveInt,
          onTruncated: z.literal('accept').optional(),
          toolChoice: z.literal('required').optional(),
          handoffs: z.array(nodeName).max(MAX_AGENTS + 1).optional(),
          // the team's graph is checked by `checkGraph` itself, one level down
          team: z.strictObject({ file: z.string().min(1).max(4096), graph: z.unknown() }).optional(),
        }),
      )
      .refine((a) => Object.keys(a).length <= MAX_AGENTS, `at most ${MAX_AGENTS} agents`),
    nodes: z.array(agentName).max(MAX_AGENTS),
    edges: z
      .array(
        z.strictObject({
          from: nodeName,
          to: nodeName,
          label: z.string().max(10_000).optional(),
          exit: z.boolean(),
          when: ConditionSchema.optional(),
          handoff: z.literal(true).optional(),
        }),
      )
      .max(100_000),
    entry: z.array(agentName).max(MAX_AGENTS),
    loopGroups: z.array(z.strictObject({ id: z.string(), nodes: z.array(agentName), backEdges: z.array(z.number().int().min(0)) })),
    maxIterations: z.number().int().min(0),
    maxTurns: positiveInt.optional(),
    selector: z
      .strictObject({
        model: ModelSchema,
        prompt: text.optional(),
        allowRepeatedSpeaker: z.boolean(),
        maxAttempts: positiveInt.max(100),
        timeoutMs: positiveInt.optional(),
      })
      .optional(),
    context: z.enum(['inbox', 'thread']),
    termination: z.strictObject({ anyOf: z.array(ConditionSchema), allOf: z.array(ConditionSchema) }),
    judge: z.strictObject({ model: ModelSchema, timeoutMs: positiveInt.optional() }),
    pricing: z.record(z.string(), z.strictObject({ input: z.number().min(0), output: z.number().min(0) })),
    goal: z
      .strictObject({
        objective: text,
        successCriteria: text.optional(),
        constraints: text.optional(),
        maxTurns: positiveInt,
        maxDurationMs: positiveInt,
      })
      .optional(),
    output: z.strictObject({ schema: z.record(z.string(), z.unknown()), maxRetries: z.number().int().min(0) }).optional(),
    approval: z.strictObject({ beforeExit: z.boolean(), tools: z.array(toolGlob(copy(TOOL_PATTERN_RE))).max(1000).optional() }),
    budget: z.strictObject({
      maxTotalTokens: positiveInt.optional(),
      maxCostUsd: z.number().positive().optional(),
      maxAgentCalls: positiveInt.optional(),
      maxDurationMs: positiveInt.optional(),
      // 0 for a team run whose share of its parent's tool calls is none (`core/budgets/shares.ts`)
      maxToolCalls: z.number().int().min(0).optional(),
    }),
  });
}

let graphSchema: ReturnType<typeof buildGraphSchema> | undefined;

/** A regex of its own: zod resets a pattern's `lastIndex`, and an exported one is frozen in the workflow. */
function copy(re: RegExp): RegExp {
  return new RegExp(re.source, re.flags);
}

/** A tool name or glob within its bounds, checked before its regex reads it. */
function toolGlob(re: RegExp) {
  return z.string().superRefine((value, ctx) => {
    const bound = toolGlobIssue(value);
    if (bound !== undefined) ctx.addIssue({ code: 'custom', message: bound });
    else if (!re.test(value)) ctx.addIssue({ code: 'custom', message: `must match ${re.source}` });
  });
}

/** Every condition of the graph, with its path: the termination items and the edges' guards. */
export function graphConditions(graph: CompiledGraph): Array<{ condition: unknown; path: Path }> {
  return [
    ...graph.termination.anyOf.map((condition, i) => ({ condition, path: ['termination', 'anyOf', i] as Path })),
    ...graph.termination.allOf.map((condition, i) => ({ condition, path: ['termination', 'allOf', i] as Path })),
    ...graph.edges.flatMap((e, i) => (e.when ? [{ condition: e.when as unknown, path: ['edges', i, 'when'] as Path }] : [])),
  ];
}

/** Problems with the kinds of a condition tree: unknown kinds and nesting past the bound (an explicit stack, no recursion). */
function conditionIssues(root: unknown, path: Path): string[] {
  const issues: string[] = [];
  const stack: Array<{ c: unknown; path: Path; depth: number }> = [{ c: root, path, depth: 1 }];
  while (stack.length > 0) {
    const { c, path: at, depth } = stack.pop()!;
    const where = formatPath(at);
    if (depth > MAX_CONFIG_DEPTH) {
      issues.push(GRAPH_CHECK_TEXTS.issue(where, GRAPH_CHECK_TEXTS.tooDeep(MAX_CONFIG_DEPTH)));
      continue;
    }
    const kind = c !== null && typeof c === 'object' ? (c as { kind?: unknown }).kind : undefined;
    if (typeof kind !== 'string') {
      issues.push(GRAPH_CHECK_TEXTS.issue(where, GRAPH_CHECK_TEXTS.badCondition));
      continue;
    }
    if (kind === 'any_of' || kind === 'all_of') {
      const items = (c as { items?: unknown }).items;
      if (!Array.isArray(items)) issues.push(GRAPH_CHECK_TEXTS.issue(where, GRAPH_CHECK_TEXTS.badCondition));
      else items.forEach((item, i) => stack.push({ c: item, path: [...at, 'items', i], depth: depth + 1 }));
      continue;
    }
    const key = kind === 'custom' ? (c as { key?: unknown }).key : kind;
    if (typeof key !== 'string' || !getConditionPlugin(key)) issues.push(GRAPH_CHECK_TEXTS.issue(where, GRAPH_CHECK_TEXTS.unknownCondition(String(key))));
  }
  return issues;
}

/** Names that refer to agents the graph does not have. */
function referenceIssues(graph: CompiledGraph, base: Path): string[] {
  const issues: string[] = [];
  const agents = new Set(Object.keys(graph.agents));
  const at = (path: Path, message: string) => issues.push(GRAPH_CHECK_TEXTS.issue(formatPath([...base, ...path]), message));
  for (const [key, agent] of Object.entries(graph.agents)) {
    if (agent.name !== key) at(['agents', key, 'name'], GRAPH_CHECK_TEXTS.agentKey(key, agent.name));
    agent.handoffs?.forEach((target, i) => {
      if (target !== USER && !agents.has(target)) at(['agents', key, 'handoffs', i], GRAPH_CHECK_TEXTS.unknownNode(target));
    });
  }
  graph.edges.forEach((e, i) => {
    for (const end of ['from', 'to'] as const) if (e[end] !== PARENT && !agents.has(e[end])) at(['edges', i, end], GRAPH_CHECK_TEXTS.unknownNode(e[end]));
  });
  for (const list of ['nodes', 'entry'] as const) {
    graph[list].forEach((n, i) => {
      if (!agents.has(n)) at([list, i], GRAPH_CHECK_TEXTS.unknownNode(n));
    });
  }
  graph.loopGroups.forEach((g, i) => {
    g.nodes.forEach((n, j) => {
      if (!agents.has(n)) at(['loopGroups', i, 'nodes', j], GRAPH_CHECK_TEXTS.unknownNode(n));
    });
    g.backEdges.forEach((e, j) => {
      if (e >= graph.edges.length) at(['loopGroups', i, 'backEdges', j], GRAPH_CHECK_TEXTS.edgeIndex(e, graph.edges.length));
    });
  });
  return issues;
}

/**
 * Every problem with a graph given to the worker, one line each (`graph agents.writer.tools[0]: …`);
 * none for a graph `troupe` compiled from a valid role.
 */
export function checkGraph(graph: unknown): string[] {
  return checkAt(graph, [], 0);
}

/** {@link checkGraph} of a graph found at `at`, `depth` levels of teams down (docs/teams.md, "Nested teams"). */
function checkAt(graph: unknown, at: Path, depth: number): string[] {
  const issue = (path: Path, message: string) => GRAPH_CHECK_TEXTS.issue(formatPath([...at, ...path]), message);
  const parsed = parseWithIssues((graphSchema ??= buildGraphSchema()), graph);
  if (!parsed.ok) return parsed.issues.map((i) => issue(i.path, i.message));
  const g = graph as CompiledGraph;
  const schemaError = g.output ? outputSchemaError(g.output.schema) : undefined;
  const teams = Object.entries(g.agents).flatMap(([name, agent]) => {
    if (!agent.team) return [];
    const path = ['agents', name, 'team', 'graph'];
    return depth + 1 > MAX_TEAM_DEPTH ? [issue(path, GRAPH_CHECK_TEXTS.teamTooDeep(MAX_TEAM_DEPTH))] : checkAt(agent.team.graph, [...at, ...path], depth + 1);
  });
  return [
    ...referenceIssues(g, at),
    ...graphConditions(g).flatMap(({ condition, path }) => conditionIssues(condition, [...at, ...path])),
    ...(schemaError ? [issue(['output', 'schema'], schemaError)] : []),
    ...teams,
  ];
}

/**
 * A graph with no agents, for the state of a run whose own graph failed {@link checkGraph}: the run
 * ends at once, and everything that reads the graph on the way (its status, its result) reads this.
 */
export function emptyGraph(name: string): CompiledGraph {
  return {
    name,
    agents: {},
    nodes: [],
    edges: [],
    entry: [],
    loopGroups: [],
    maxIterations: 0,
    context: 'inbox',
    termination: { anyOf: [], allOf: [] },
    judge: { model: { name: 'none' } },
    pricing: {},
    approval: { beforeExit: false },
    budget: {},
  };
}

/** Most problems one refusal lists. */
const MAX_LISTED = 20;

/** Problems in one line, `; `-separated: the first {@link MAX_LISTED}, then how many more. */
export function joinProblems(problems: readonly string[]): string {
  const listed = problems.length > MAX_LISTED ? [...problems.slice(0, MAX_LISTED), GRAPH_CHECK_TEXTS.more(problems.length - MAX_LISTED)] : problems;
  return listed.join('; ');
}
