/**
 * Config-level checks that need the compiled pieces: agent names, a goal no
 * agent can report on, an output schema ajv cannot compile, and `max_cost_usd` without pricing for
 * every model used. Pure.
 */
import { AGENT_NAME_RE, type RoleConfig } from '../config/schema';
import type { PathIssue } from '../config/issues';
import type { ValidationIssues } from './validate';
import { GRAPH_MESSAGES as M } from './messages';
import { outputSchemaError } from '../output/validator';
import { PARENT, USER, type CompiledAgent, type ResolvedModel } from './types';

/** What the config checks read. */
interface ConfigCheckInput {
  config: RoleConfig;
  agents: Record<string, CompiledAgent>;
  /** Agents that are nodes of the graph. */
  nodes: readonly string[];
  judge: ResolvedModel;
  usesJudge: boolean;
}

function checkAgentNames(config: RoleConfig, errors: PathIssue[]): void {
  for (const name of Object.keys(config.agents)) {
    if (name === PARENT) errors.push({ path: ['agents', name], message: M.reservedAgentName, at: 'key' });
    else if (name === USER) errors.push({ path: ['agents', name], message: M.reservedUserName, at: 'key' });
    else if (!AGENT_NAME_RE.test(name)) errors.push({ path: ['agents', name], message: M.badAgentName(name), at: 'key' });
  }
}

/** Model names the run will call (graph agents, plus the judge when a condition needs it). */
function modelsUsed(input: ConfigCheckInput): string[] {
  const names = input.nodes.flatMap((n) => (input.agents[n] && input.config.agents[n]?.team === undefined ? [input.agents[n].model.name] : []));
  if (input.usesJudge) names.push(input.judge.name);
  return [...new Set(names)];
}

/** Run the config checks. */
export function validateConfig(input: ConfigCheckInput): ValidationIssues {
  const out: ValidationIssues = { errors: [], warnings: [] };
  const { config } = input;
  checkAgentNames(config, out.errors);
  for (const [name, agent] of Object.entries(config.agents)) {
    const choice = agent.tool_choice ?? agent.model?.tool_choice;
    if (choice === 'required' && (agent.tools ?? []).length === 0) {
      const at = agent.tool_choice !== undefined ? ['agents', name, 'tool_choice'] : ['agents', name, 'model', 'tool_choice'];
      out.errors.push({ path: at, message: M.toolChoiceWithoutTools });
    }
  }
  if (config.goal && !input.nodes.some((n) => input.agents[n]?.tools.includes('goal'))) {
    out.warnings.push({ path: ['goal'], message: M.goalUnreported, at: 'key' });
  }
  const schemaError = config.output ? outputSchemaError(config.output.schema) : undefined;
  if (schemaError) out.errors.push({ path: ['output', 'schema'], message: schemaError, at: 'key' });
  if (config.budget?.max_cost_usd !== undefined) {
    const pricing = config.pricing ?? {};
    const missing = modelsUsed(input).filter((m) => !Object.prototype.hasOwnProperty.call(pricing, m));
    if (missing.length) out.errors.push({ path: ['budget', 'max_cost_usd'], message: M.missingPricing(missing) });
  }
  return out;
}
