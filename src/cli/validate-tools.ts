/**
 * `troupe validate` of a tools file: a file whose top-level keys are only a tools file's (`mcp_servers`,
 * `modules`) is checked as one, with the tools-file loader's located errors, instead of being read as
 * a role file that lacks everything. Its servers are not started and its modules not loaded here;
 * `troupe tools --tools <file>` does that to list its tools.
 */
import * as fs from 'node:fs';
import { isMap, isScalar, parseDocument } from 'yaml';
import { deepTextOffset } from '../core/config/depth';
import { formatIssue } from '../core/config/issues';
import { loadToolsFile } from '../tools/file-load';
import { ToolsFileSchema } from '../tools/file-schema';
import { out, outJson } from './io';
import { CLI_TEXTS } from './texts';

/** The top-level keys of a tools file (from its schema). */
const TOOLS_FILE_KEYS: ReadonlySet<string> = new Set(Object.keys(ToolsFileSchema.shape));

/** The first key of a YAML text, read without parsing it (`mcp_servers` of `mcp_servers: [[[…`). */
function firstKey(text: string): string | undefined {
  return /^(?:[ \t]*(?:#.*)?\r?\n)*([A-Za-z_][\w-]*)[ \t]*:/.exec(text)?.[1];
}

/**
 * Whether YAML `text` is a mapping whose keys, one or more, are all tools-file keys. Text nested too
 * deep for the YAML reader is not parsed here: it is a tools file when its first key is one, and the
 * tools-file loader reports its depth, located.
 */
function looksLikeToolsFile(text: string): boolean {
  if (deepTextOffset(text) !== undefined) return TOOLS_FILE_KEYS.has(firstKey(text) ?? '');
  const top = parseDocument(text, { prettyErrors: false }).contents;
  return isMap(top) && top.items.length > 0 && top.items.every((p) => isScalar(p.key) && TOOLS_FILE_KEYS.has(String(p.key.value)));
}

/** Whether `file` reads as a tools file; a file that cannot be read is left to the role-file check to report. */
export function isToolsFile(file: string): boolean {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return false;
  }
  return looksLikeToolsFile(text);
}

/** Check tools file `file` and print the report (`--json`: one object); resolves to the exit code. */
export function validateToolsFile(file: string, json: boolean): number {
  const r = loadToolsFile(file, process.env);
  const summary = r.tools && { mcpServers: r.tools.servers.length, modules: r.tools.modules.length };
  if (json) {
    const found = { errors: r.errors.length, warnings: 0 };
    outJson({ file, kind: 'tools', valid: r.errors.length === 0, errors: r.errors, warnings: [], found, ...(summary && { summary }) });
    return summary ? 0 : 1;
  }
  for (const e of r.errors) out(formatIssue(e));
  if (!summary) {
    out(CLI_TEXTS.invalidToolsFile(file, r.errors.length));
    return 1;
  }
  out(CLI_TEXTS.validToolsFile(file, summary.mcpServers, summary.modules));
  return 0;
}
