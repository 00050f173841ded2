/**
 * `troupe validate --tools`: a role's tool names checked against what a tools file offers, before any
 * run, each problem located at the name in the role file (the worker checks the same at run start),
 * and its `approval.tools` patterns against the same tools: a pattern that gates nothing is most
 * likely a typo, which would mean no approval at all.
 */
import { closest } from '../core/config/did-you-mean';
import type { PathIssue } from '../core/config/issues';
import type { RoleConfig } from '../core/config/schema';
import { needsApproval } from '../core/llm/tool-calls';
import type { ToolDefinition } from '../core/llm/tool-contract';
import { MAX_TOOLS_PER_AGENT, resolveAgentTools, RESOLVE_MESSAGES } from './resolve';

/** Texts of the role checks, so tests pin them. */
const CHECK_ROLE_TEXTS = {
  gatesNothing: (pattern: string, hint: string) =>
    `approval.tools pattern "${pattern}" matches no tool of the tools file${hint}, so no call waits for a human because of it`,
} as const;

/**
 * Every agent's tool names resolved against the offered tools: an error per name that resolves to
 * nothing, and per agent offered too many; a warning per `approval.tools` pattern that matches no tool.
 */
export function checkRoleTools(config: RoleConfig, offered: readonly ToolDefinition[]): { errors: PathIssue[]; warnings: PathIssue[] } {
  const errors: PathIssue[] = [];
  for (const [agent, spec] of Object.entries(config.agents)) {
    const names = spec.tools ?? [];
    names.forEach((name, i) => {
      const r = resolveAgentTools(offered, [name]);
      if (!r.ok) errors.push(...r.errors.map((message) => ({ path: ['agents', agent, 'tools', i], message })));
    });
    const all = resolveAgentTools(offered, names);
    if (all.ok && all.set.builtins.length + all.set.tools.length > MAX_TOOLS_PER_AGENT) {
      errors.push({ path: ['agents', agent, 'tools'], message: RESOLVE_MESSAGES.tooMany(all.set.builtins.length + all.set.tools.length) });
    }
  }
  const yamlNames = offered.map((d) => d.yamlName);
  const warnings: PathIssue[] = (config.approval?.tools ?? []).flatMap((pattern, i) => {
    if (yamlNames.some((name) => needsApproval([pattern], name))) return [];
    const near = closest(pattern, yamlNames);
    return [{ path: ['approval', 'tools', i], message: CHECK_ROLE_TEXTS.gatesNothing(pattern, near ? ` (did you mean "${near}"?)` : '') }];
  });
  return { errors, warnings };
}
