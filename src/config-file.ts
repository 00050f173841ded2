/**
 * Reads a role.yaml from disk and loads it: the Node-side wrapper of the pure `loadRoleConfig`. A
 * file that cannot be read is reported like any other config error.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { loadRoleConfig, type ExtraCheck, type LoadedTeams, type LoadResult } from './core/config/load';
import type { RoleConfig } from './core/config/schema';
import { GRAPH_MESSAGES } from './core/graph/messages';
import { MAX_TEAM_DEPTH } from './core/graph/team-agents';
import { CONFIG_MESSAGES } from './core/config/messages';
import { RoleConfigError, type Role } from './core/config/define';
import { formatIssue } from './core/config/issues';

const READ_ERRORS: Record<string, string> = {
  ENOENT: 'no such file',
  EISDIR: 'it is a directory',
  EACCES: 'permission denied',
};

/** Why `file` cannot be read, or its text. */
function readText(file: string): { text: string } | { why: string } {
  try {
    return { text: fs.readFileSync(file, 'utf8') };
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code ?? '';
    return { why: READ_ERRORS[code] ?? (e as Error).message };
  }
}

/**
 * Read and load `file`, and the team files its agents name (docs/teams.md, "Nested teams"), each
 * resolved against the folder of the file that names it (an absolute path as it is); the issues name
 * the files as reached from `file`. Never throws.
 */
export function loadRoleFile(file: string, extra?: ExtraCheck): LoadResult {
  return loadWithTeams(file, extra, []);
}

/** `chain`: the files that led here, outermost first, as given and as resolved. */
function loadWithTeams(file: string, extra: ExtraCheck | undefined, chain: Array<{ shown: string; resolved: string }>): LoadResult {
  const read = readText(file);
  if ('why' in read) {
    const message = CONFIG_MESSAGES.readFile(read.why);
    return { errors: [{ file, line: 0, col: 0, path: '', message }], warnings: [], found: { errors: 1, warnings: 0 } };
  }
  const here = [...chain, { shown: file, resolved: path.resolve(file) }];
  return loadRoleConfig(read.text, file, extra, (config) => loadTeams(config, here, extra));
}

/** Load each team file of `config`, found from the last file of `chain`, with the caller's `extra` check. */
function loadTeams(config: RoleConfig, chain: Array<{ shown: string; resolved: string }>, extra: ExtraCheck | undefined): LoadedTeams {
  const out: LoadedTeams = { teams: {}, errors: [], inner: { errors: [], warnings: [] } };
  const self = chain[chain.length - 1];
  for (const [name, agent] of Object.entries(config.agents)) {
    if (agent.team === undefined) continue;
    const at = ['agents', name, 'team'];
    // an absolute path stands as written; a relative one is found from the naming file's folder
    const shown = path.isAbsolute(agent.team) ? agent.team : path.join(path.dirname(self.shown), agent.team);
    const resolved = path.resolve(path.dirname(self.resolved), agent.team);
    const names = [...chain.map((c) => c.shown), shown];
    if (chain.some((c) => c.resolved === resolved)) {
      out.errors.push({ path: at, message: GRAPH_MESSAGES.teamCycle(names) });
      continue;
    }
    if (chain.length > MAX_TEAM_DEPTH) {
      out.errors.push({ path: at, message: GRAPH_MESSAGES.teamTooDeep(MAX_TEAM_DEPTH, names) });
      continue;
    }
    const read = readText(resolved);
    if ('why' in read) {
      out.errors.push({ path: at, message: GRAPH_MESSAGES.teamMissing(agent.team, read.why) });
      continue;
    }
    // the caller's check (the worker's tools, for `troupe validate --tools`) applies to the team's agents too
    const child = loadWithTeams(shown, extra, chain);
    out.inner.errors.push(...child.errors);
    out.inner.warnings.push(...child.warnings);
    if (child.graph) out.teams[name] = { file: agent.team, graph: child.graph };
    else out.errors.push({ path: at, message: GRAPH_MESSAGES.teamHasErrors(agent.team, child.found.errors) });
  }
  return out;
}

/** Read, validate and compile a role.yaml; throws {@link RoleConfigError} with every error located `file:line:col path: message`. */
export function loadRole(file: string): Role {
  const r = loadRoleFile(file);
  if (r.errors.length > 0 || !r.graph || !r.config) throw new RoleConfigError(r.errors.map(formatIssue));
  return { config: r.config, graph: r.graph, warnings: r.warnings.map(formatIssue) };
}
