/**
 * The schema of a tools file (`tools.yaml`): the MCP servers a worker starts and the JS/TS modules it
 * loads. It is the single source of truth for the file's shape; the loader validates a server with the
 * stdio or the Streamable HTTP part depending on whether it names a `url`, so an error speaks of the
 * kind of server the user meant.
 */
import { z } from 'zod';

/** Defaults of a server's call settings. */
export const TOOLS_FILE_DEFAULTS = {
  /** Start-to-close timeout of one tool call. */
  timeoutMs: 60_000,
  /** Extra attempts after a transport failure. */
  retries: 2,
} as const;

/** Server names become the prefix of model-facing names (`files__read_text_file`), so they stay plain. */
export const SERVER_NAME_PATTERN = /^[A-Za-z0-9_-]+$/;

/** Environment values, arguments and headers: YAML numbers and booleans are taken as their text. */
const Text = z.union([z.string(), z.number(), z.boolean()]).transform((v) => String(v));

const CallSettings = {
  timeout_ms: z.int().positive().optional(),
  /** Left unset when not written, so a non-idempotent tool can default to no retries. */
  retries: z.int().min(0).optional(),
};

/** An MCP server the worker spawns and talks to over stdin/stdout. */
export const StdioServerSchema = z.strictObject({
  command: z.string().min(1),
  args: z.array(Text).default([]),
  env: z.record(z.string(), Text).default({}),
  cwd: z.string().min(1).optional(),
  ...CallSettings,
});

/** An MCP server reached over Streamable HTTP. */
export const HttpServerSchema = z.strictObject({
  url: z.string().min(1),
  headers: z.record(z.string(), Text).default({}),
  ...CallSettings,
});

/** Either kind of server. */
const McpServerSchema = z.union([StdioServerSchema, HttpServerSchema]);

/** The whole tools file. */
export const ToolsFileSchema = z.strictObject({
  mcp_servers: z.record(z.string(), McpServerSchema).default({}),
  modules: z.array(z.string().min(1)).default([]),
});

/** The top level of the file, with each server left for its own schema (see the module doc). */
export const ToolsFileTopSchema = ToolsFileSchema.extend({
  mcp_servers: z.record(z.string(), z.unknown()).default({}),
});

export type StdioServerConfig = z.infer<typeof StdioServerSchema>;
export type HttpServerConfig = z.infer<typeof HttpServerSchema>;
