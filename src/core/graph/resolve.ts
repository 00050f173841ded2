/**
 * Config → compiled settings: effective models (top-level `model` defaults merged under
 * each agent's and the judge's own), agents with their defaults, goal, output, approval, budget.
 * Pure.
 */
import { DEFAULT_MAX_TOOL_ROUNDS, DEFAULT_PARALLEL_TOOL_CALLS } from '../config/limits';
import type { AgentConfig, BudgetConfig, GoalConfig, ModelConfig, RoleConfig } from '../config/schema';
import type { CompiledAgent, CompiledBudget, CompiledGoal, CompiledGraph, ResolvedModel } from './types';

/** Model used when neither the agent nor the top-level `model` names one. */
const DEFAULT_MODEL_NAME = 'gpt-4o-mini';

/** Agent activity start-to-close when `timeout_ms` is not set. */
const DEFAULT_AGENT_TIMEOUT_MS = 30_000;

/** Merge `own` over `defaults` and map YAML keys to compiled ones. */
export function resolveModel(defaults: ModelConfig | undefined, own: ModelConfig | undefined): ResolvedModel {
  const m = { ...defaults, ...own };
  return {
    name: m.name ?? DEFAULT_MODEL_NAME,
    ...(m.temperature !== undefined && { temperature: m.temperature }),
    ...(m.max_tokens !== undefined && { maxTokens: m.max_tokens }),
    ...(m.context_window !== undefined && { contextWindow: m.context_window }),
    ...(m.base_url !== undefined && { baseUrl: m.base_url }),
    ...(m.api_key_env !== undefined && { apiKeyEnv: m.api_key_env }),
    ...(m.max_reply_bytes !== undefined && { maxReplyBytes: m.max_reply_bytes }),
    ...(m.max_event_bytes !== undefined && { maxEventBytes: m.max_event_bytes }),
    ...(m.text_tool_calls === 'off' && { textToolCalls: 'off' as const }),
  };
}

/** One agent with defaults applied: model merged, tools `[]`, timeout 30000 ms (or the model's `timeout_ms`). */
function resolveAgent(name: string, a: AgentConfig, defaults: ModelConfig | undefined): CompiledAgent {
  return {
    name,
    // a team agent has none: its description stands for it in the other agents' prompts
    instructions: a.instructions ?? a.description ?? '',
    ...(a.description !== undefined && { description: a.description }),
    model: resolveModel(defaults, a.model),
    tools: [...(a.tools ?? [])],
    maxToolRounds: a.max_tool_rounds ?? a.model?.max_tool_rounds ?? defaults?.max_tool_rounds ?? DEFAULT_MAX_TOOL_ROUNDS,
    maxParallelToolCalls:
      a.max_parallel_tool_calls ?? a.model?.max_parallel_tool_calls ?? defaults?.max_parallel_tool_calls ?? DEFAULT_PARALLEL_TOOL_CALLS,
    timeoutMs: a.timeout_ms ?? a.model?.timeout_ms ?? defaults?.timeout_ms ?? DEFAULT_AGENT_TIMEOUT_MS,
    ...((a.on_truncated ?? a.model?.on_truncated ?? defaults?.on_truncated) === 'accept' && { onTruncated: 'accept' as const }),
    // a model-wide `required` means nothing to an agent with no tools
    ...((a.tool_choice ?? a.model?.tool_choice ?? defaults?.tool_choice) === 'required' && (a.tools ?? []).length > 0 && { toolChoice: 'required' as const }),
  };
}

/** Goal settings in compiled form. */
function resolveGoal(g: GoalConfig): CompiledGoal {
  return {
    objective: g.objective,
    ...(g.success_criteria !== undefined && { successCriteria: g.success_criteria }),
    ...(g.constraints !== undefined && { constraints: g.constraints }),
    maxTurns: g.max_turns,
    maxDurationMs: g.max_duration_ms,
  };
}

/** Budget limits in compiled form. */
function resolveBudget(b: BudgetConfig | undefined): CompiledBudget {
  return {
    ...(b?.max_total_tokens !== undefined && { maxTotalTokens: b.max_total_tokens }),
    ...(b?.max_cost_usd !== undefined && { maxCostUsd: b.max_cost_usd }),
    ...(b?.max_agent_calls !== undefined && { maxAgentCalls: b.max_agent_calls }),
    ...(b?.max_duration_ms !== undefined && { maxDurationMs: b.max_duration_ms }),
    ...(b?.max_tool_calls !== undefined && { maxToolCalls: b.max_tool_calls }),
  };
}

/** The non-graph parts of the compiled graph. */
export function resolveSettings(
  config: RoleConfig,
): Pick<CompiledGraph, 'name' | 'agents' | 'judge' | 'pricing' | 'approval' | 'budget'> & Partial<Pick<CompiledGraph, 'task' | 'goal' | 'output'>> {
  const agents: Record<string, CompiledAgent> = {};
  for (const [name, a] of Object.entries(config.agents)) agents[name] = resolveAgent(name, a, config.model);
  return {
    name: config.name,
    ...(config.task !== undefined && { task: config.task }),
    agents,
    judge: judgeOf(config),
    pricing: { ...(config.pricing ?? {}) },
    ...(config.goal && { goal: resolveGoal(config.goal) }),
    ...(config.output && { output: { schema: config.output.schema, maxRetries: config.output.max_retries } }),
    approval: {
      beforeExit: config.approval?.before_exit ?? false,
      ...(config.approval?.tools?.length ? { tools: [...config.approval.tools] } : {}),
    },
    budget: resolveBudget(config.budget),
  };
}

/** The judge: its model (defaults merged) and its timeout when the role sets one (`judge.model.timeout_ms`, else `model.timeout_ms`). */
function judgeOf(config: RoleConfig): CompiledGraph['judge'] {
  const timeoutMs = config.judge?.model?.timeout_ms ?? config.model?.timeout_ms;
  return { model: resolveModel(config.model, config.judge?.model), ...(timeoutMs !== undefined && { timeoutMs }) };
}
