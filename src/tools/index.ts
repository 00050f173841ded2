/**
 * The worker side of tools: the tools file, module tools, MCP servers, the registry, one call, and the
 * listing behind `troupe tools`. It does I/O (spawns servers, opens connections, loads modules), so
 * workflow code may import only types from here; the plain-JSON shapes the workflow records
 * (`ToolDefinition`, `AgentToolSet`, `ToolCallOutcome`) live in `core/llm/contract`.
 */
export { defineTool, isToolFatalError, ToolFatalError } from './define';
export type { JsonSchemaTool, JsonValue, ModuleTool, ToolContext, ToolReturn, ZodTool } from './define';
export { loadToolsFile, parseToolsFile, TOOLS_FILE_MESSAGES } from './file-load';
export type { Environment, HttpServer, ModuleSpec, ServerSpec, StdioServer, ToolsFile, ToolsFileResult } from './file-load';
export { ToolsFileSchema, TOOLS_FILE_DEFAULTS } from './file-schema';
export { openToolRegistry, ToolRegistry } from './registry';
export type { RegisteredTool, RegistryOptions, RegistryResult } from './registry';
export { MAX_TOOLS_PER_AGENT, resolveAgentTools, RESOLVE_MESSAGES } from './resolve';
export type { ToolResolution } from './resolve';
export { callTool, CALL_SETTINGS, CALL_TEXTS, ToolCallCancelledError, ToolCallRetryableError } from './call';
export type { ToolCallIdentity, ToolCallRequest } from './call';
export { MAX_RESULT_BYTES } from './result-text';
export { listToolsFile } from './list';
export type { ToolListing } from './list';
export { silentLogger, stderrLogger } from './log';
export type { ToolsLogger } from './log';
