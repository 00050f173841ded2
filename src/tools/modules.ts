/**
 * Loading tools modules: `.ts` files through tsx (unless the host already compiles TypeScript, as the
 * CLI and jest do), `.js` files through `require`. A module's `tools` export, else its default export,
 * is an array of tools; each is checked here (name, description, parameters, execute, settings), so a
 * mistake stops the worker when it starts, located at the module's line in the tools file.
 */
import { z } from 'zod';
import { formatPath } from '../core/config/issues';
import { parseWithIssues } from '../core/config/zod-issues';
import { isZodSchema, jsonSchemaParameters, zodParameters, type Parameters } from './arguments';
import type { ModuleTool } from './define';
import type { ModuleSpec } from './file-load';
import { TOOLS_FILE_DEFAULTS } from './file-schema';
import { moduleNameError } from './naming';

/**
 * Messages about tools modules, so tests can pin them.
 * @internal exported for tests
 */
export const MODULE_MESSAGES = {
  cannotLoad: (error: string) => `cannot load the module: ${error}`,
  noTools: 'exports no "tools" array (nor a default export that is one)',
  inTool: (path: string, message: string) => `${path}: ${message}`,
  parameters: 'must be a zod schema or a JSON Schema object',
  execute: 'must be a function',
} as const;

/** A module tool, checked and ready to call. */
export interface LoadedModuleTool {
  tool: ModuleTool;
  /** The module it came from, as the tools file wrote it. */
  module: string;
  parameters: Parameters;
  timeoutMs: number;
  retries: number;
  strict: boolean;
}

/** The tools of one module, and what is wrong with it (each message is about the module as a whole). */
interface ModuleLoad {
  tools: LoadedModuleTool[];
  errors: string[];
}

const ModuleToolShape = z.strictObject({
  name: z.string(),
  description: z.string().min(1),
  parameters: z.custom<object>((v) => typeof v === 'object' && v !== null, MODULE_MESSAGES.parameters),
  execute: z.custom<(...args: unknown[]) => unknown>((v) => typeof v === 'function', MODULE_MESSAGES.execute),
  timeout_ms: z.int().positive().optional(),
  retries: z.int().min(0).optional(),
  strict: z.boolean().optional(),
});

const TS_EXTENSIONS = /\.[cm]?tsx?$/;
let tsxRegistered = false;

/**
 * Makes `require` compile TypeScript. Plain Node gets tsx's CommonJS hook (once, for the process);
 * a host that already handles `.ts` (tsx's CLI hook) or replaces `require` altogether (jest, whose
 * `require.extensions` is empty) compiles it itself.
 */
function ensureTypeScript(): void {
  const extensions = require.extensions as Record<string, unknown> | undefined;
  const plainNode = extensions !== undefined && '.js' in extensions;
  if (tsxRegistered || !plainNode || '.ts' in extensions) return;
  (require('tsx/cjs/api') as { register(): unknown }).register();
  tsxRegistered = true;
}

function requireModule(file: string): unknown {
  if (TS_EXTENSIONS.test(file)) ensureTypeScript();
  return require(file);
}

function toolsExport(mod: unknown): unknown[] | undefined {
  if (Array.isArray(mod)) return mod;
  const m = mod as { tools?: unknown; default?: unknown } | null;
  if (Array.isArray(m?.tools)) return m.tools;
  if (Array.isArray(m?.default)) return m.default;
  const inner = (m?.default as { tools?: unknown } | undefined)?.tools;
  return Array.isArray(inner) ? inner : undefined;
}

function firstLine(text: string): string {
  return text.split('\n').find((l) => l.trim() !== '') ?? text;
}

/** Loads the module `spec` and checks its tools. Never throws. */
export function loadToolModule(spec: ModuleSpec): ModuleLoad {
  let mod: unknown;
  try {
    mod = requireModule(spec.path);
  } catch (e) {
        // errors from another realm (a host's own module system) are not `instanceof Error`
    const message = typeof (e as Error | null)?.message === 'string' ? (e as Error).message : String(e);
    return { tools: [], errors: [MODULE_MESSAGES.cannotLoad(firstLine(message))] };
  }
  const list = toolsExport(mod);
  if (!list) return { tools: [], errors: [MODULE_MESSAGES.noTools] };
  const tools: LoadedModuleTool[] = [];
  const errors: string[] = [];
  list.forEach((value, i) => {
    const r = checkTool(value, i, spec.given);
    if ('errors' in r) errors.push(...r.errors);
    else tools.push(r);
  });
  return { tools, errors };
}

function checkTool(value: unknown, index: number, module: string): LoadedModuleTool | { errors: string[] } {
  const at = (path: ReadonlyArray<string | number>, message: string) => MODULE_MESSAGES.inTool(formatPath(['tools', index, ...path]), message);
  const shape = parseWithIssues(ModuleToolShape, value);
  if (!shape.ok) return { errors: shape.issues.map((i) => at(i.path, i.message)) };
  const tool = value as ModuleTool;
  const errors: string[] = [];
  const nameError = moduleNameError(tool.name);
  if (nameError) errors.push(at(['name'], nameError));
  const parameters = isZodSchema(tool.parameters) ? zodParameters(tool.parameters) : jsonSchemaParameters(tool.parameters);
  if ('error' in parameters) errors.push(at(['parameters'], parameters.error));
  if (errors.length > 0 || 'error' in parameters) return { errors };
  return {
    tool,
    module,
    parameters,
    timeoutMs: tool.timeout_ms ?? TOOLS_FILE_DEFAULTS.timeoutMs,
    retries: tool.retries ?? TOOLS_FILE_DEFAULTS.retries,
    strict: tool.strict === true,
  };
}
