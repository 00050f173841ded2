/**
 * What `troupe tools --tools tools.yaml` shows: every tool a tools file offers, found the way a worker
 * finds them (its MCP servers started, its modules loaded), then everything closed again. Needs no
 * Temporal server.
 */
import type { ConfigIssue } from '../core/config/issues';
import { loadToolsFile, type Environment } from './file-load';
import type { ToolsLogger } from './log';
import { openToolRegistry, type RegisteredTool } from './registry';

/** One tool as listed. */
export interface ToolListing {
  /** Model-facing name. */
  name: string;
  /** Name in role and tools files. */
  yamlName: string;
  /** `server files` or `module ./tools/index.ts`. */
  source: string;
  description: string;
  parameters: Record<string, unknown>;
  timeoutMs: number;
  retries: number;
  strict?: boolean;
}

/** Sources as listed, so tests can pin them. */
const TOOLS_LIST_TEXTS = {
  server: (name: string) => `server ${name}`,
  module: (given: string) => `module ${given}`,
} as const;

function listing(t: RegisteredTool): ToolListing {
  const d = t.definition;
  return {
    name: d.name,
    yamlName: d.yamlName,
    source: t.kind === 'mcp' ? TOOLS_LIST_TEXTS.server(t.server.name) : TOOLS_LIST_TEXTS.module(t.loaded.module),
    description: d.description,
    parameters: d.parameters,
    timeoutMs: d.timeoutMs,
    retries: d.retries,
    ...(d.strict ? { strict: true } : {}),
  };
}

/** Loads `file`, starts its servers, lists every tool and closes the servers. Never throws. */
export async function listToolsFile(
  file: string,
  options: { env?: Environment; logger: ToolsLogger },
): Promise<{ tools?: ToolListing[]; errors: ConfigIssue[] }> {
  const loaded = loadToolsFile(file, options.env ?? process.env);
  if (!loaded.tools) return { errors: loaded.errors };
  const opened = await openToolRegistry(loaded.tools, { logger: options.logger });
  if (!opened.registry) return { errors: opened.errors };
  try {
    return { tools: opened.registry.tools.map(listing), errors: [] };
  } finally {
    await opened.registry.close();
  }
}
