/**
 * Reads a role.yaml from disk and loads it: the Node-side wrapper of the pure `loadRoleConfig`. A
 * file that cannot be read is reported like any other config error.
 */
import * as fs from 'node:fs';
import { loadRoleConfig, type ExtraCheck, type LoadResult } from './core/config/load';
import { CONFIG_MESSAGES } from './core/config/messages';
import { RoleConfigError, type Role } from './core/config/define';
import { formatIssue } from './core/config/issues';

const READ_ERRORS: Record<string, string> = {
  ENOENT: 'no such file',
  EISDIR: 'it is a directory',
  EACCES: 'permission denied',
};

/** Read and load `file`; the issues name the file as given. Never throws. */
export function loadRoleFile(file: string, extra?: ExtraCheck): LoadResult {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code ?? '';
    const message = CONFIG_MESSAGES.readFile(READ_ERRORS[code] ?? (e as Error).message);
    return { errors: [{ file, line: 0, col: 0, path: '', message }], warnings: [], found: { errors: 1, warnings: 0 } };
  }
  return loadRoleConfig(text, file, extra);
}

/** Read, validate and compile a role.yaml; throws {@link RoleConfigError} with every error located `file:line:col path: message`. */
export function loadRole(file: string): Role {
  const r = loadRoleFile(file);
  if (r.errors.length > 0 || !r.graph || !r.config) throw new RoleConfigError(r.errors.map(formatIssue));
  return { config: r.config, graph: r.graph, warnings: r.warnings.map(formatIssue) };
}
