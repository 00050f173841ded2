/**
 * Graphs written in TypeScript: `defineRole({...})` takes the same object a role.yaml holds, typed
 * from the zod schema, validates and compiles it exactly as the YAML loader does, and throws one
 * error listing every problem by config path when it is invalid. Pure.
 */
import type { z } from 'zod';
import { compileRole } from '../graph/compile';
import { GRAPH_MESSAGES } from '../graph/messages';
import type { CompiledGraph, TeamGraph } from '../graph/types';
import { depthProblem } from './depth';
import { formatPath, type PathIssue } from './issues';
import { MAX_CONFIG_DEPTH } from './limits';
import { CONFIG_MESSAGES as M } from './messages';
import { RoleConfigSchema, type RoleConfig } from './schema';
import { parseWithIssues } from './zod-issues';

type SchemaInput = z.input<typeof RoleConfigSchema>;
type AgentInput = SchemaInput['agents'][string];

/**
 * What a role may be written as in TypeScript: the role.yaml object (zod's input side: defaults
 * optional), where an agent's `team` is a Role from `defineRole` (or `loadRole`): a nested team
 * (docs/teams.md, "Nested teams"). A file name there is an error: `defineRole` reads no files.
 */
export type RoleInput = Omit<SchemaInput, 'agents'> & {
  agents: Record<string, Omit<AgentInput, 'team'> & { team?: Role | string }>;
};

/** A validated, compiled role: what `startRun` starts. */
export interface Role {
  config: RoleConfig;
  graph: CompiledGraph;
  /** Warnings, as `path: message` lines (the role is usable). */
  warnings: string[];
}

/** An invalid role: every error, as `path: message` lines. */
export class RoleConfigError extends Error {
  constructor(readonly issues: string[]) {
    super(`invalid role (${issues.length} error${issues.length === 1 ? '' : 's'}):\n${issues.map((i) => `  ${i}`).join('\n')}`);
    this.name = 'RoleConfigError';
  }
}

/** The schema's input, each Role given as a team replaced by its name, and those Roles' graphs by agent. */
function splitTeams(roleInput: RoleInput): { input: SchemaInput; teams: Record<string, TeamGraph> } {
  const teams: Record<string, TeamGraph> = {};
  if (!roleInput || typeof roleInput !== 'object' || !roleInput.agents || typeof roleInput.agents !== 'object') return { input: roleInput as SchemaInput, teams };
  const agents: SchemaInput['agents'] = {};
  for (const [name, agent] of Object.entries(roleInput.agents)) {
    const team = agent?.team;
    if (team !== null && typeof team === 'object' && 'graph' in team) {
      teams[name] = { file: team.graph.name, graph: team.graph };
      agents[name] = { ...agent, team: team.graph.name };
    } else agents[name] = agent as AgentInput;
  }
  return { input: { ...roleInput, agents }, teams };
}

function line(issue: PathIssue): string {
  const path = formatPath(issue.path);
  return path ? `${path}: ${issue.message}` : issue.message;
}

/** Validate and compile a role written as an object; throws {@link RoleConfigError} listing every error. */
export function defineRole(roleInput: RoleInput): Role {
  const { input, teams } = splitTeams(roleInput);
  const problem = depthProblem(input);
  if (problem) {
    throw new RoleConfigError([line({ path: problem.path, message: problem.kind === 'cycle' ? M.selfReference : M.tooDeep(MAX_CONFIG_DEPTH) })]);
  }
  const parsed = parseWithIssues(RoleConfigSchema, input);
  if (!parsed.ok) throw new RoleConfigError(parsed.issues.map(line));
  const compiled = compileRole(parsed.data, { teams });
  const unread = Object.entries(roleInput.agents ?? {}).flatMap(([name, a]) =>
    typeof a?.team === 'string' ? [{ path: ['agents', name, 'team'], message: GRAPH_MESSAGES.teamNotLoaded(a.team) }] : [],
  );
  const errors = [...compiled.errors, ...unread];
  if (errors.length > 0 || !compiled.graph) throw new RoleConfigError(errors.map(line));
  return { config: parsed.data, graph: compiled.graph, warnings: compiled.warnings.map(line) };
}
