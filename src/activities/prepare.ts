/**
 * The run-start activity. The worker checks, against its own allowlists, every endpoint and key
 * variable a run's role file names, and resolves each agent's tool names to the tools it offers; it
 * refuses the run (a non-retryable failure naming each refused setting, or each tool no worker offers
 * with the list of those it does) before any request is sent. It runs as a local activity, so its
 * answer is recorded in the history and a replay never asks the worker again.
 */
import { ApplicationFailure } from '@temporalio/activity';
import { FAILURE_TYPES, type PrepareInput, type PrepareResult } from '../core/llm/contract';
import type { ToolDefinition } from '../core/llm/tool-contract';
import { resolveAgentTools, type ToolRegistry } from '../tools';
import { checkRunEndpoints, type EndpointPolicy } from './endpoints';
import { formatPath } from '../core/config/issues';
import type { Condition } from '../core/conditions/types';
import type { LocatedCondition } from '../core/conditions/walk';
import { graphConditions, GRAPH_CHECK_TEXTS, joinProblems } from '../core/graph/check-graph';
import type { CompiledGraph } from '../core/graph/types';
import { patternIssues } from '../core/graph/validate-patterns';

/** Texts of the run-start refusals, so tests pin them. */
const PREPARE_TEXTS = {
  noToolsFile: (agent: string, names: string[]) =>
    `agent ${agent} uses the tools ${names.join(', ')}, but this worker has no tools file (start it with --tools tools.yaml)`,
  toolError: (agent: string, error: string) => `agent ${agent}: ${error}`,
} as const;

/** Builds the prepare activity for the worker's endpoint policy and tool registry. */
export function makePrepareRun(policy: EndpointPolicy, registry: () => ToolRegistry | undefined = () => undefined) {
  return async function prepareRun(input: PrepareInput): Promise<PrepareResult> {
    const wrong = input.graph ? graphRefusals(input.graph) : [];
    if (wrong.length > 0) refuse(wrong);
    const refusals = checkRunEndpoints(input.models, policy).map((v) => v.message);
    const tools: Record<string, ToolDefinition[]> = {};
    const offered = registry()?.definitions();
    for (const { agent, names } of input.tools ?? []) {
      if (!offered) {
        refusals.push(PREPARE_TEXTS.noToolsFile(agent, names));
        continue;
      }
      const resolved = resolveAgentTools(offered, names);
      if (resolved.ok) tools[agent] = resolved.set.tools;
      else refusals.push(...resolved.errors.map((e) => PREPARE_TEXTS.toolError(agent, e)));
    }
    if (refusals.length > 0) refuse(refusals);
    return { ok: true, ...(input.tools?.length ? { tools } : {}) };
  };
}

function refuse(refusals: string[]): never {
  const message = joinProblems(refusals);
  throw ApplicationFailure.create({ type: FAILURE_TYPES.fatal, nonRetryable: true, message, details: [{ kind: 'agent', message }] });
}

/**
 * The check of a graph that needs Node, after the workflow's own (core/graph/check-graph.ts): regexes
 * that could backtrack catastrophically.
 * @internal exported for tests
 */
export function graphRefusals(graph: CompiledGraph): string[] {
  const located: LocatedCondition[] = graphConditions(graph).map(({ condition, path }) => ({
    condition: condition as Condition,
    agents: [],
    path,
    scope: 'termination',
    inAllOf: false,
  }));
  return patternIssues(located, graph.output?.schema).map((i) => GRAPH_CHECK_TEXTS.issue(formatPath(i.path), i.message));
}
