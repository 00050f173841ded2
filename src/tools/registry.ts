/**
 * The worker's tools: every tool of a tools file with its model-facing name, description, parameters,
 * timeout and retries, and what runs it. Opening the registry starts the MCP servers (each lists its
 * tools) and loads the modules; a server that cannot start, a broken module or two tools with the same
 * model-facing name stop the worker at start, each error located in the tools file.
 */
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { ConfigIssue } from '../core/config/issues';
import type { ToolDefinition } from '../core/llm/tool-contract';
import { compileJsonSchema, type ArgumentValidator } from './arguments';
import type { ToolsFile } from './file-load';
import { stderrLogger, type ToolsLogger } from './log';
import { McpConnection } from './mcp-connection';
import { loadToolModule, type LoadedModuleTool } from './modules';
import { findCollisions, mcpModelName, mcpYamlName } from './naming';

/** Log lines of the registry, so tests can pin them. */
const REGISTRY_TEXTS = {
  uncheckedSchema: (tool: string, error: string) =>
    `[tools] ${tool}: arguments are not checked before the call (the server checks them): ${error}`,
  mcpLabel: (yamlName: string, server: string) => `${yamlName} (server ${server})`,
  moduleLabel: (name: string, module: string) => `${name} (module ${module})`,
  moduleError: (module: string, message: string) => `${module}: ${message}`,
} as const;

interface Registered {
  definition: ToolDefinition;
  /** How a user recognises the tool in messages. */
  label: string;
  /** Checks arguments before the call; absent when the server's schema cannot be compiled here. */
  validate?: ArgumentValidator;
}

/** A tool of an MCP server. */
export interface RegisteredMcpTool extends Registered {
  kind: 'mcp';
  server: McpConnection;
  /** The tool's own name on its server. */
  tool: string;
}

/** A tool of a tools module. */
export interface RegisteredModuleTool extends Registered {
  kind: 'module';
  loaded: LoadedModuleTool;
  validate: ArgumentValidator;
}

/** Any registered tool. */
export type RegisteredTool = RegisteredMcpTool | RegisteredModuleTool;

/** The tools of one worker, by model-facing name; owns the server connections. */
export class ToolRegistry {
  private readonly byName: Map<string, RegisteredTool>;

  constructor(
    readonly tools: readonly RegisteredTool[],
    private readonly servers: readonly McpConnection[],
    /** The tools file's secrets (`ToolsFile.secrets`), for the worker's redaction. */
    readonly secrets: readonly string[] = [],
  ) {
    this.byName = new Map(tools.map((t) => [t.definition.name, t]));
  }

  /** Every tool's definition, in tools-file order (servers first, then modules). */
  definitions(): ToolDefinition[] {
    return this.tools.map((t) => t.definition);
  }

  /** The tool the model calls `name`. */
  get(name: string): RegisteredTool | undefined {
    return this.byName.get(name);
  }

  /** Closes every server connection, all at once (a stubborn stdio server takes a few seconds). */
  async close(): Promise<void> {
    await Promise.all(this.servers.map((s) => s.close()));
  }
}

/** The registry when the tools file is usable, and every error found opening it. */
interface RegistryResult {
  registry?: ToolRegistry;
  errors: ConfigIssue[];
}

/** Options of {@link openToolRegistry}. */
interface RegistryOptions {
  logger?: ToolsLogger;
}

function mcpTool(server: McpConnection, tool: Tool, log: ToolsLogger): RegisteredMcpTool {
  const spec = server.spec;
  const yamlName = mcpYamlName(spec.name, tool.name);
  const { $schema: _dialect, ...parameters } = tool.inputSchema as Record<string, unknown>;
  // a server's own word that a tool must not run twice wins over the default, not over the file
  const retries = tool.annotations?.idempotentHint === false && !spec.retriesSet ? 0 : spec.retries;
  const validate = compileJsonSchema(tool.inputSchema as Record<string, unknown>);
  if (typeof validate !== 'function') log.warn(REGISTRY_TEXTS.uncheckedSchema(yamlName, validate.error));
  return {
    kind: 'mcp',
    server,
    tool: tool.name,
    label: REGISTRY_TEXTS.mcpLabel(yamlName, spec.name),
    definition: {
      name: mcpModelName(spec.name, tool.name),
      yamlName,
      description: tool.description ?? tool.title ?? tool.annotations?.title ?? '',
      parameters,
      timeoutMs: spec.timeoutMs,
      retries,
    },
    ...(typeof validate === 'function' ? { validate } : {}),
  };
}

function moduleTool(loaded: LoadedModuleTool): RegisteredModuleTool {
  const t = loaded.tool;
  return {
    kind: 'module',
    loaded,
    label: REGISTRY_TEXTS.moduleLabel(t.name, loaded.module),
    validate: loaded.parameters.validate,
    definition: {
      name: t.name,
      yamlName: t.name,
      description: t.description,
      parameters: loaded.parameters.jsonSchema,
      ...(loaded.strict ? { strict: true } : {}),
      timeoutMs: loaded.timeoutMs,
      retries: loaded.retries,
    },
  };
}

/**
 * Starts the servers of `file` (in parallel), lists their tools, loads its modules and names every
 * tool. On any error the servers are closed again and only the errors come back.
 */
export async function openToolRegistry(file: ToolsFile, options: RegistryOptions = {}): Promise<RegistryResult> {
  const log = options.logger ?? stderrLogger;
  const errors: ConfigIssue[] = [];
  const servers = file.servers.map((spec) => new McpConnection(spec, log));
  const listed = await Promise.all(
    servers.map((s) =>
      s.tools().then(
        (tools) => tools.map((t) => mcpTool(s, t, log)),
        (err: Error) => {
          errors.push(file.issue(['mcp_servers', s.name], err.message, 'key'));
          return [];
        },
      ),
    ),
  );
  const modules = file.modules.map((spec, i) => {
    const load = loadToolModule(spec);
    for (const e of load.errors) errors.push(file.issue(['modules', i], REGISTRY_TEXTS.moduleError(spec.given, e)));
    return load.tools.map(moduleTool);
  });
  const tools: RegisteredTool[] = [...listed.flat(), ...modules.flat()];
  for (const c of findCollisions(tools.map((t) => ({ ...t, name: t.definition.name })))) {
    const t = c.second;
    const at = t.kind === 'mcp' ? ['mcp_servers', t.server.name] : ['modules', file.modules.findIndex((m) => m.given === t.loaded.module)];
    errors.push(file.issue(at, c.message, t.kind === 'mcp' ? 'key' : 'value'));
  }
  if (errors.length > 0) {
    await Promise.all(servers.map((s) => s.close()));
    return { errors: errors.sort((a, b) => a.line - b.line || a.col - b.col) };
  }
  return { registry: new ToolRegistry(tools, servers, file.secrets), errors: [] };
}
