/**
 * What a run asks the worker to resolve before its first call. A role file may name its own
 * endpoint (`model.base_url`) and key variable (`model.api_key_env`); only the worker knows whether
 * it allows them, so the worker checks them at the run's start, and refuses the run before any
 * request when it names one the worker does not allow. Tools are code the worker runs, so the worker
 * also resolves each agent's tool names to the definitions it offers, and checks the graph's regexes
 * and output schema, which needs Node. Pure.
 */
import type { CompiledGraph } from '../graph/types';
import type { Condition } from '../conditions/types';
import { conditionPatterns, judgeTargets } from '../conditions/walk';
import { graphConditions } from '../graph/check-graph';
import { schemaPatterns } from '../output/patterns';
import { BUILTIN_TOOLS } from '../config/schema';
import type { PrepareInput } from './contract';

/**
 * What a run asks the worker at its start, or undefined when there is nothing to ask: the models that
 * name an endpoint or key of their own, the worker tools each agent lists, and the graph when it has
 * regular expressions, whose check for catastrophic backtracking needs Node.
 */
export function preparationOf(graph: CompiledGraph, workflowId: string): PrepareInput | undefined {
  // a team agent calls no model: its child run checks its own
  const models: PrepareInput['models'] = graph.nodes.filter((name) => !graph.agents[name].team).map((name) => ({ who: `agent ${name}`, model: graph.agents[name].model }));
  if (judgeTargets(graph.termination, graph.edges).length > 0) models.push({ who: 'judge', model: graph.judge.model });
  const own = models.filter(({ model }) => model.baseUrl !== undefined || model.apiKeyEnv !== undefined);
  const tools = graph.nodes
    .map((agent) => ({ agent, names: workerToolNames(graph.agents[agent].tools) }))
    .filter((t) => t.names.length > 0);
  const patterns = hasPatterns(graph);
  if (own.length === 0 && tools.length === 0 && !patterns) return undefined;
  return { workflowId, models: own, ...(tools.length > 0 ? { tools } : {}), ...(patterns ? { graph } : {}) };
}

/** Whether the graph runs regular expressions of its role's on agent output (conditions, guards, output-schema patterns). */
function hasPatterns(graph: CompiledGraph): boolean {
  const located = graphConditions(graph).map(({ condition, path }) => ({ condition: condition as Condition, agents: [], path, scope: 'termination' as const, inAllOf: false }));
  return conditionPatterns(located).length > 0 || schemaPatterns(graph.output?.schema).length > 0;
}

/** The worker tools among an agent's tool names (the built-ins are the workflow's own). */
function workerToolNames(names: readonly string[]): string[] {
  return names.filter((n) => !(BUILTIN_TOOLS as readonly string[]).includes(n));
}
