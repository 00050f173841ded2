/** Compile a YAML role config in tests; throws with every located error when it is invalid. */
import { formatIssue, loadRoleConfig } from '../../src/core/config/load';
import type { CompiledGraph } from '../../src/core/graph/types';

export function compileYaml(yaml: string, file = 'role.yaml'): CompiledGraph {
  const loaded = loadRoleConfig(yaml, file);
  if (loaded.errors.length > 0 || !loaded.graph) {
    throw new Error(`invalid test config:\n${loaded.errors.map(formatIssue).join('\n')}`);
  }
  return loaded.graph;
}
