/**
 * Graphs written in TypeScript: `defineRole({...})` takes the same object a role.yaml holds, typed
 * from the zod schema, validates and compiles it exactly as the YAML loader does, and throws one
 * error listing every problem by config path when it is invalid. Pure.
 */
import type { z } from 'zod';
import { compileRole } from '../graph/compile';
import type { CompiledGraph } from '../graph/types';
import { depthProblem } from './depth';
import { formatPath, type PathIssue } from './issues';
import { MAX_CONFIG_DEPTH } from './limits';
import { CONFIG_MESSAGES as M } from './messages';
import { RoleConfigSchema, type RoleConfig } from './schema';
import { parseWithIssues } from './zod-issues';

/** What a role may be written as in TypeScript: the role.yaml object (zod's input side: defaults optional). */
export type RoleInput = z.input<typeof RoleConfigSchema>;

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

function line(issue: PathIssue): string {
  const path = formatPath(issue.path);
  return path ? `${path}: ${issue.message}` : issue.message;
}

/** Validate and compile a role written as an object; throws {@link RoleConfigError} listing every error. */
export function defineRole(input: RoleInput): Role {
  const problem = depthProblem(input);
  if (problem) {
    throw new RoleConfigError([line({ path: problem.path, message: problem.kind === 'cycle' ? M.selfReference : M.tooDeep(MAX_CONFIG_DEPTH) })]);
  }
  const parsed = parseWithIssues(RoleConfigSchema, input);
  if (!parsed.ok) throw new RoleConfigError(parsed.issues.map(line));
  const compiled = compileRole(parsed.data);
  if (compiled.errors.length > 0 || !compiled.graph) throw new RoleConfigError(compiled.errors.map(line));
  return { config: parsed.data, graph: compiled.graph, warnings: compiled.warnings.map(line) };
}
