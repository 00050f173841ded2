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

/** Texts of the run-start refusals, so tests pin them. */
export const PREPARE_TEXTS = {
  noToolsFile: (agent: string, names: string[]) =>
    `agent ${agent} uses the tools ${names.join(', ')}, but this worker has no tools file (start it with --tools tools.yaml)`,
  toolError: (agent: string, error: string) => `agent ${agent}: ${error}`,
} as const;

/** Builds the prepare activity for the worker's endpoint policy and tool registry. */
export function makePrepareRun(policy: EndpointPolicy, registry: () => ToolRegistry | undefined = () => undefined) {
  return async function prepareRun(input: PrepareInput): Promise<PrepareResult> {
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
    if (refusals.length > 0) {
      const message = refusals.join('; ');
      throw ApplicationFailure.create({ type: FAILURE_TYPES.fatal, nonRetryable: true, message, details: [{ kind: 'agent', message }] });
    }
    return { ok: true, ...(input.tools?.length ? { tools } : {}) };
  };
}
