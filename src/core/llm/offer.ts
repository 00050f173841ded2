/**
 * What a dispatch offers the model (docs/semantics.md, "Tools"): the built-in tools, the worker tools
 * (each marked when `approval.tools` gates it), the transfers, and the bounds of its tool loop. Built
 * once per dispatch from the compiled graph, the same for the agent activity and the workflow's tool
 * dispatch, and read by the decision after every model turn (`next-step.ts`). Pure.
 */
import { DEFAULT_PARALLEL_TOOL_CALLS } from '../config/limits';
import type { CompiledGraph } from '../graph/types';
import { handoffDefinition, handoffTools } from '../teams/handoffs';
import { builtinToolsOf, toolDefinitions } from './builtin-tools';
import type { TurnOffer } from './contract';
import { needsApproval } from './tool-calls';
import { workerFunctionTool, type ToolDefinition, type WorkerFunctionTool } from './tool-contract';

/** The offer of agent `agent`'s dispatch, whose worker tools (resolved at the run's start) are `specs`. */
export function turnOffer(graph: CompiledGraph, agent: string, specs: readonly ToolDefinition[] = []): TurnOffer {
  const compiled = graph.agents[agent];
  const builtins = builtinToolsOf(compiled.tools);
  const handoffs = handoffTools(graph, agent);
  const workerTools = specs.map((spec) => ({
    definition: workerFunctionTool(spec),
    ...(needsApproval(graph.approval.tools, spec.yamlName) ? { gated: true as const } : {}),
  }));
  return {
    ...(builtins.length > 0 ? { builtins } : {}),
    ...(workerTools.length > 0 ? { workerTools } : {}),
    ...(handoffs.length > 0 ? { handoffs } : {}),
    maxToolRounds: compiled.maxToolRounds,
    maxParallelToolCalls: compiled.maxParallelToolCalls ?? DEFAULT_PARALLEL_TOOL_CALLS,
    ...(compiled.toolChoice ? { toolChoice: compiled.toolChoice } : {}),
  };
}

/** The tools the model is offered, as sent: the built-ins, then the worker tools, then the transfers. */
export function offeredTools(offer: TurnOffer): WorkerFunctionTool[] {
  return [...toolDefinitions(offer.builtins ?? []), ...(offer.workerTools ?? []).map((t) => t.definition), ...(offer.handoffs ?? []).map(handoffDefinition)];
}

/** Every tool name the model was offered, in the order of {@link offeredTools}. */
export function offeredNames(offer: TurnOffer): string[] {
  return [...(offer.builtins ?? []), ...(offer.workerTools ?? []).map((t) => t.definition.function.name), ...(offer.handoffs ?? []).map((h) => h.name)];
}
