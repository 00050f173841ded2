/**
 * What a run asks the worker to resolve before its first call. A role file may name its own
 * endpoint (`model.base_url`) and key variable (`model.api_key_env`); only the worker knows whether
 * it allows them, so a run that names any is checked by the worker at its start, and refused before
 * any request when it names one the worker does not allow. Tools are code the worker runs, so the
 * worker also resolves each agent's tool names to the definitions it offers. A run that names no
 * endpoint and no worker tool needs no preparation. Pure.
 */
import type { CompiledGraph } from '../graph/types';
import { judgeTargets } from '../conditions/walk';
import { BUILTIN_TOOLS } from '../config/schema';
import type { PrepareInput } from './contract';

/**
 * What a run asks the worker at its start, or undefined when there is nothing to ask: no model names
 * an endpoint or key of its own, no agent lists a worker tool, and the graph is not to be checked.
 * `checkGraph` (since troupe 0.3) sends the graph for the worker to check, so the worker is always asked.
 */
export function preparationOf(graph: CompiledGraph, workflowId: string, checkGraph = false): PrepareInput | undefined {
  const models: PrepareInput['models'] = graph.nodes.map((name) => ({ who: `agent ${name}`, model: graph.agents[name].model }));
  if (judgeTargets(graph.termination, graph.edges).length > 0) models.push({ who: 'judge', model: graph.judge.model });
  const own = models.filter(({ model }) => model.baseUrl !== undefined || model.apiKeyEnv !== undefined);
  const tools = graph.nodes
    .map((agent) => ({ agent, names: workerToolNames(graph.agents[agent].tools) }))
    .filter((t) => t.names.length > 0);
  if (own.length === 0 && tools.length === 0 && !checkGraph) return undefined;
  return { workflowId, models: own, ...(tools.length > 0 ? { tools } : {}), ...(checkGraph ? { graph } : {}) };
}

/** The worker tools among an agent's tool names (the built-ins are the workflow's own). */
export function workerToolNames(names: readonly string[]): string[] {
  return names.filter((n) => !(BUILTIN_TOOLS as readonly string[]).includes(n));
}
