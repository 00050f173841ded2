/**
 * `troupe validate --tools`: a role's tool names checked against what a tools file offers, before any
 * run, each problem located at the name in the role file (the worker checks the same at run start).
 */
import type { PathIssue } from '../core/config/issues';
import type { RoleConfig } from '../core/config/schema';
import type { ToolDefinition } from '../core/llm/tool-contract';
import { MAX_TOOLS_PER_AGENT, resolveAgentTools, RESOLVE_MESSAGES } from './resolve';

/** Every agent's tool names resolved against the offered tools: one issue per name that resolves to nothing, and agents offered too many. */
export function checkRoleTools(config: RoleConfig, offered: readonly ToolDefinition[]): PathIssue[] {
  const issues: PathIssue[] = [];
  for (const [agent, spec] of Object.entries(config.agents)) {
    const names = spec.tools ?? [];
    names.forEach((name, i) => {
      const r = resolveAgentTools(offered, [name]);
      if (!r.ok) issues.push(...r.errors.map((message) => ({ path: ['agents', agent, 'tools', i], message })));
    });
    const all = resolveAgentTools(offered, names);
    if (all.ok && all.set.builtins.length + all.set.tools.length > MAX_TOOLS_PER_AGENT) {
      issues.push({ path: ['agents', agent, 'tools'], message: RESOLVE_MESSAGES.tooMany(all.set.builtins.length + all.set.tools.length) });
    }
  }
  return issues;
}
