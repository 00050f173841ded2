/**
 * Tool names. Role and tools files write an MCP tool as `<server>.<tool>` and a module tool by its own
 * name; the model sees `<server>__<tool>`, because providers accept only `[a-zA-Z0-9_-]`, at most 64
 * characters, while MCP tool names may be up to 128 characters and contain dots. The mapping is
 * deterministic (the same tools give the same names on every worker), and what still collides after
 * it is an error naming both tools. Pure.
 */
import { sha256Hex } from '../core/text/hash';

/**
 * What a provider accepts as a function name.
 * @internal exported for tests
 */
export const MODEL_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;

/** Longest model-facing name. */
const MAX_MODEL_NAME_LENGTH = 64;

/** Characters kept from a too-long name before `_` and the hash. */
const KEPT_PREFIX_LENGTH = 55;

/** Hex characters of SHA-256 appended to a shortened name. */
const NAME_HASH_LENGTH = 8;

/** Built-in tools the workflow applies itself; no worker tool may take their names. */
const BUILTIN_TOOL_NAMES: readonly string[] = ['goal', 'signal'];

/**
 * Messages about names, so tests can pin them.
 * @internal exported for tests
 */
export const NAMING_MESSAGES = {
  moduleName: (name: string) => `tool name "${name}" must match ^[a-zA-Z0-9_-]{1,64}$`,
  reserved: (name: string) => `tool name "${name}" is reserved for the built-in tool`,
  collision: (name: string, first: string, second: string) =>
    `tools ${first} and ${second} both get the model-facing name "${name}"; rename one (or its server)`,
} as const;

/** The name role and tools files use for tool `tool` of MCP server `server`. */
export function mcpYamlName(server: string, tool: string): string {
  return `${server}.${tool}`;
}

/**
 * The model-facing name of tool `tool` of MCP server `server`: `<server>__<tool>` with every character
 * outside `[A-Za-z0-9_-]` replaced by `_`; a result over 64 characters keeps its first 55 and appends `_`
 * and 8 hex of the SHA-256 of the full name before replacement, so two long names that differ only
 * after the cut, or only in replaced characters, still differ.
 */
export function mcpModelName(server: string, tool: string): string {
  const full = `${server}__${tool}`;
  const safe = full.replace(/[^A-Za-z0-9_-]/g, '_');
  if (safe.length <= MAX_MODEL_NAME_LENGTH) return safe;
  return `${safe.slice(0, KEPT_PREFIX_LENGTH)}_${sha256Hex(full).slice(0, NAME_HASH_LENGTH)}`;
}

/** Why a module tool's own name cannot be offered to a model, or undefined. */
export function moduleNameError(name: string): string | undefined {
  if (!MODEL_NAME_PATTERN.test(name)) return NAMING_MESSAGES.moduleName(name);
  if (BUILTIN_TOOL_NAMES.includes(name)) return NAMING_MESSAGES.reserved(name);
  return undefined;
}

/** A tool described for collision checks: its model-facing name and how a user would recognise it. */
interface NamedTool {
  name: string;
  /** e.g. `files.write_file (server files)` or `fetch_page (module ./tools.ts)`. */
  label: string;
}

/** One clash: the later tool and the message naming both. */
interface NameCollision<T extends NamedTool> {
  first: T;
  second: T;
  message: string;
}

/** Every pair of tools that share a model-facing name (each later tool against the first holder). */
export function findCollisions<T extends NamedTool>(tools: readonly T[]): Array<NameCollision<T>> {
  const seen = new Map<string, T>();
  const out: Array<NameCollision<T>> = [];
  for (const t of tools) {
    const first = seen.get(t.name);
    if (first) out.push({ first, second: t, message: NAMING_MESSAGES.collision(t.name, first.label, t.label) });
    else seen.set(t.name, t);
  }
  return out;
}
