/**
 * The worker side of tools: the tools file, module tools, MCP servers, the registry, one call, and the
 * listing behind `troupe tools`. It does I/O (spawns servers, opens connections, loads modules), so
 * workflow code may import only types from here; the plain-JSON shapes the workflow records
 * (`ToolDefinition`, `AgentToolSet`, `ToolCallOutcome`) live in `core/llm/contract`.
 */
export { defineTool, ToolFatalError } from './define';
export type { ModuleTool, ToolContext } from './define';
export { loadToolsFile } from './file-load';
export { openToolRegistry, ToolRegistry } from './registry';
export { resolveAgentTools } from './resolve';
export { callTool, ToolCallCancelledError, ToolCallRetryableError } from './call';
export { stderrLogger } from './log';
export type { ToolsLogger } from './log';
