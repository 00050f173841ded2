/**
 * An agent's `tools:` list resolved against what the worker offers: exact names (`files.read_text_file`,
 * `fetch_page`), globs within a server (`files.*`, `files.read_*`: the part before the first dot names
 * the server, and `*` never reaches into another one), and the built-ins `goal` and `signal`, passed
 * through for the workflow to apply. A name that matches nothing is an error naming it and listing
 * what is offered, and so is a list that offers one model more tools than providers accept in a
 * request. Pure.
 */
import { closest } from '../core/config/did-you-mean';
import { clip } from '../core/config/limits';
import type { AgentToolSet, ToolDefinition } from '../core/llm/tool-contract';
import { globMatches, toolGlobIssue } from '../core/llm/tool-glob';

/** Most tools one request may offer (OpenAI's limit; the built-ins count too). */
export const MAX_TOOLS_PER_AGENT = 128;

const BUILTINS = ['goal', 'signal'] as const;

/** Messages of resolution, so tests can pin them. */
export const RESOLVE_MESSAGES = {
  unknown: (name: string, hint: string, offered: readonly string[]) =>
    `tool "${name}" is not offered by this worker${hint}; it offers: ${offered.length > 0 ? offered.join(', ') : 'no tools'}`,
  noMatch: (pattern: string, offered: readonly string[]) =>
    `"${pattern}" matches no tool of this worker; it offers: ${offered.length > 0 ? offered.join(', ') : 'no tools'}`,
  outOfBounds: (pattern: string, why: string) => `tool pattern "${clip(pattern)}" ${why}`,
  tooMany: (count: number) =>
    `${count} tools would be offered to one model (the built-ins included); providers accept at most ${MAX_TOOLS_PER_AGENT}`,
} as const;

/** The resolved set, or every problem with the list. */
type ToolResolution = { ok: true; set: AgentToolSet } | { ok: false; errors: string[] };

/**
 * Whether `pattern` names the tool `yamlName`: `server.tool-glob` matches tools of that server (a `*`
 * in the tool part may span dots, which MCP tool names can contain; one in the server part stays
 * within the server's name); a pattern without a dot matches module tools only, whose names have
 * none. Linear, never a regular expression built from the pattern (core/llm/tool-glob.ts).
 */
function globNames(pattern: string, yamlName: string): boolean {
  if (toolGlobIssue(pattern) !== undefined) return false;
  const dot = pattern.indexOf('.');
  const nameDot = yamlName.indexOf('.');
  if (dot < 0) return nameDot < 0 && globMatches(pattern, yamlName);
  if (nameDot < 0) return false;
  return globMatches(pattern.slice(0, dot), yamlName.slice(0, nameDot)) && globMatches(pattern.slice(dot + 1), yamlName.slice(nameDot + 1));
}

/** Resolves `requested` (an agent's list, in order) against `offered` (the worker's tools). */
export function resolveAgentTools(offered: readonly ToolDefinition[], requested: readonly string[]): ToolResolution {
  const names = [...BUILTINS, ...offered.map((d) => d.yamlName)];
  const builtins: AgentToolSet['builtins'] = [];
  const tools: ToolDefinition[] = [];
  const errors: string[] = [];
  const add = (d: ToolDefinition) => {
    if (!tools.includes(d)) tools.push(d);
  };
  for (const name of requested) {
    if ((BUILTINS as readonly string[]).includes(name)) {
      const b = name as (typeof BUILTINS)[number];
      if (!builtins.includes(b)) builtins.push(b);
      continue;
    }
    if (name.includes('*')) {
      const bound = toolGlobIssue(name);
      if (bound) {
        errors.push(RESOLVE_MESSAGES.outOfBounds(name, bound));
        continue;
      }
      const hits = offered.filter((d) => globNames(name, d.yamlName));
      if (hits.length === 0) errors.push(RESOLVE_MESSAGES.noMatch(name, names));
      hits.forEach(add);
      continue;
    }
    const hit = offered.find((d) => d.yamlName === name);
    if (hit) add(hit);
    else {
      const near = closest(name, names);
      errors.push(RESOLVE_MESSAGES.unknown(name, near ? ` (did you mean "${near}"?)` : '', names));
    }
  }
  const count = builtins.length + tools.length;
  if (count > MAX_TOOLS_PER_AGENT) errors.push(RESOLVE_MESSAGES.tooMany(count));
  return errors.length > 0 ? { ok: false, errors } : { ok: true, set: { builtins, tools } };
}
