/**
 * Team agents in the compiled graph (docs/teams.md, "Nested teams"): an agent that is a whole role,
 * run as a child workflow (its run is `core/teams/team-run.ts`). Compiling checks the team agents'
 * settings and takes their compiled graphs from the caller (the file loader reads the files;
 * `defineRole` takes Roles), so the compiler stays pure.
 */
import type { PathIssue } from '../config/issues';
import type { AgentConfig, RoleConfig } from '../config/schema';
import { GRAPH_MESSAGES as M } from './messages';
import type { CompiledGraph, TeamGraph } from './types';

/** Most levels of teams below a role (a role whose team has a team is 2 levels deep). */
export const MAX_TEAM_DEPTH = 4;

/** The keys a team agent may have: its team and its description; the rest belong to the team's own agents. */
const TEAM_AGENT_KEYS = new Set(['team', 'description']);

/** Levels of teams below `graph`: 0 when none of its agents is a team. */
export function teamDepth(graph: CompiledGraph): number {
  let deepest = 0;
  for (const agent of Object.values(graph.agents)) {
    // a hostile graph could be deep: stop counting past the bound
    if (agent.team && deepest <= MAX_TEAM_DEPTH) deepest = Math.max(deepest, 1 + teamDepth(agent.team.graph));
  }
  return deepest;
}

/** What the compiler made of the team agents: their graphs by agent, and the mistakes. */
interface TeamAgents {
  teams: Record<string, TeamGraph>;
  errors: PathIssue[];
}

/**
 * Check every agent's team settings: an agent that is not a team needs `instructions`; a team agent
 * has only `team` and `description`, and its team's graph must have been given (`teams`, by agent)
 * and be at most {@link MAX_TEAM_DEPTH} levels deep with this role. `partial`: the config is the
 * loader's stand-in for a file that failed the schema, whose teams were not read.
 */
export function compileTeamAgents(config: RoleConfig, teams: Record<string, TeamGraph> | undefined, partial: boolean): TeamAgents {
  const out: TeamAgents = { teams: {}, errors: [] };
  for (const [name, agent] of Object.entries(config.agents)) {
    if (agent.team === undefined) {
      if (agent.instructions === undefined) out.errors.push({ path: ['agents', name, 'instructions'], message: 'required' });
      continue;
    }
    for (const key of Object.keys(agent) as Array<keyof AgentConfig>) {
      if (!TEAM_AGENT_KEYS.has(key)) out.errors.push({ path: ['agents', name, key], message: M.notOnTeam(key), at: 'key' });
    }
    const team = teams?.[name];
    if (!team) {
      // given teams: the caller reported why this one is missing
      if (!partial && teams === undefined) out.errors.push({ path: ['agents', name, 'team'], message: M.teamNotLoaded(agent.team) });
      continue;
    }
    if (1 + teamDepth(team.graph) > MAX_TEAM_DEPTH) {
      out.errors.push({ path: ['agents', name, 'team'], message: M.teamTooDeep(MAX_TEAM_DEPTH, [config.name, ...teamChain(team)]) });
      continue;
    }
    out.teams[name] = team;
  }
  return out;
}

/** The names along the deepest chain of teams from `team` down (for the depth error). */
function teamChain(team: TeamGraph): string[] {
  const chain = [team.file];
  let graph = team.graph;
  for (let level = 0; level <= MAX_TEAM_DEPTH; level++) {
    const next = Object.values(graph.agents)
      .flatMap((a) => (a.team ? [a.team] : []))
      .sort((a, b) => teamDepth(b.graph) - teamDepth(a.graph))[0];
    if (!next) break;
    chain.push(next.file);
    graph = next.graph;
  }
  return chain;
}
