/**
 * What a run asks the worker to resolve before its first call. A role file may name its own
 * endpoint (`model.base_url`) and key variable (`model.api_key_env`); only the worker knows whether
 * it allows them, so a run that names any is checked by the worker at its start, and refused before
 * any request when it names one the worker does not allow. A run that names none uses the worker's
 * own defaults and needs no preparation. Pure.
 */
import type { CompiledGraph } from '../graph/types';
import { judgeTargets } from '../conditions/walk';
import type { PrepareInput } from './contract';

/** The models of a run to check at its start, or undefined when none names an endpoint or key of its own. */
export function preparationOf(graph: CompiledGraph, workflowId: string): PrepareInput | undefined {
  const models: PrepareInput['models'] = graph.nodes.map((name) => ({ who: `agent ${name}`, model: graph.agents[name].model }));
  if (judgeTargets(graph.termination, graph.edges).length > 0) models.push({ who: 'judge', model: graph.judge.model });
  const own = models.filter(({ model }) => model.baseUrl !== undefined || model.apiKeyEnv !== undefined);
  return own.length > 0 ? { workflowId, models: own } : undefined;
}
